/**
 * Creates arriving together on many connections run one after the other at the end of the server's turn, and their
 * writes are committed in one transaction (endpoints/create-turn.ts): each is still admitted against what the creates
 * before it wrote, refused or accepted on its own, answered only once committed, and watched in revision order.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { apiRequest, openWatch } from '../helpers/http.js';
import { uniqueName } from '../helpers/kubectl.js';
import { useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();
const json = { 'content-type': 'application/json' };

async function namespace(): Promise<string> {
  const name = uniqueName('turn');
  const res = await apiRequest(e2e.server, '/clusters/root/api/v1/namespaces', { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) });
  expect(res.status).toBe(201);
  return name;
}

const configMap = (ns: string, name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { k: name } });

describe('creates sent at once', () => {
  it('are each committed and answered with their own resourceVersion; refused ones among them leave the others, and a watch sees each once, in order', async () => {
    const ns = await namespace();
    const collection = `/clusters/root/api/v1/namespaces/${ns}/configmaps`;
    const watch = await openWatch(e2e.server, `${collection}?watch=true&resourceVersion=0`);
    try {
      // An invalid name (refused before any write) and a name sent twice (the second refused by its commit).
      const names = Array.from({ length: 24 }, (_, i) => (i === 7 ? 'Not_A_Name' : i === 15 ? 'cm-3' : `cm-${i}`));
      const answers = await Promise.all(names.map((name) => apiRequest(e2e.server, collection, { method: 'POST', headers: json, body: configMap(ns, name) })));
      expect(answers[7]!.status).toBe(422);
      expect([answers[3]!.status, answers[15]!.status].sort()).toEqual([201, 409]);
      const created = answers.filter((a) => a.status === 201);
      expect(created).toHaveLength(22);
      const versions = created.map((a) => Number(a.json().metadata.resourceVersion));
      expect(new Set(versions).size).toBe(versions.length);
      // Every acknowledged object is there, as answered.
      const listed = (await apiRequest(e2e.server, collection)).json().items as Array<{ metadata: { name: string; resourceVersion: string } }>;
      expect(listed.map((i) => i.metadata.name).sort()).toEqual([...new Set(names.filter((n) => n !== 'Not_A_Name'))].sort());
      for (const item of listed) expect(versions).toContain(Number(item.metadata.resourceVersion));
      // The watch: one ADDED per acknowledged create, at the revision it was answered with, in revision order.
      const added = await eventually('22 ADDED events', async () => {
        const events = watch.events.filter((e) => e.type === 'ADDED' && e.object.metadata.name.startsWith('cm-'));
        return events.length >= 22 ? events : undefined;
      }, 10_000, 20);
      const watched = added.map((e) => Number(e.object.metadata.resourceVersion));
      expect(watched).toEqual([...versions].sort((a, b) => a - b));
      // Nothing else about them (the namespace's kube-root-ca.crt may come and go on its own).
      expect(watch.events.filter((e) => e.object?.metadata?.name?.startsWith('cm-')).length).toBe(22);
    } finally {
      watch.close();
    }
  });

  it('stay within a ResourceQuota: exactly as many as it allows are created, the rest refused with 403', async () => {
    const ns = await namespace();
    const quota = await apiRequest(e2e.server, `/clusters/root/api/v1/namespaces/${ns}/resourcequotas`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'cms' }, spec: { hard: { 'count/configmaps': '5' } } }),
    });
    expect(quota.status).toBe(201);
    const collection = `/clusters/root/api/v1/namespaces/${ns}/configmaps`;
    // The namespace's kube-root-ca.crt counts when it exists: what the quota leaves room for, read back.
    const before = (await apiRequest(e2e.server, collection)).json().items.length as number;
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => apiRequest(e2e.server, collection, { method: 'POST', headers: json, body: configMap(ns, `q-${i}`) })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5 - before);
    expect(statuses.filter((s) => s !== 201)).toEqual(statuses.filter((s) => s !== 201).map(() => 403));
    expect((await apiRequest(e2e.server, collection)).json().items).toHaveLength(5);
  });
});
