/**
 * Creates arriving together on many connections run one after the other at the end of the server's turn
 * (endpoints/create-turn.ts): each is still admitted against what the creates before it committed, committed before
 * it is answered, and refused or accepted on its own.
 */
import { describe, expect, it } from 'vitest';
import { apiRequest } from '../helpers/http.js';
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
  it('are each committed and answered with their own resourceVersion; a refused one among them leaves the others', async () => {
    const ns = await namespace();
    const collection = `/clusters/root/api/v1/namespaces/${ns}/configmaps`;
    const names = Array.from({ length: 24 }, (_, i) => (i === 7 ? 'Not_A_Name' : `cm-${i}`));
    const answers = await Promise.all(names.map((name) => apiRequest(e2e.server, collection, { method: 'POST', headers: json, body: configMap(ns, name) })));
    expect(answers[7]!.status).toBe(422);
    const created = answers.filter((_, i) => i !== 7);
    expect(created.map((a) => a.status)).toEqual(created.map(() => 201));
    const versions = created.map((a) => Number(a.json().metadata.resourceVersion));
    expect(new Set(versions).size).toBe(versions.length);
    // Every acknowledged object is there, as answered.
    const listed = (await apiRequest(e2e.server, collection)).json().items as Array<{ metadata: { name: string; resourceVersion: string } }>;
    expect(listed.map((i) => i.metadata.name).sort()).toEqual(names.filter((n) => n !== 'Not_A_Name').sort());
    for (const item of listed) expect(versions).toContain(Number(item.metadata.resourceVersion));
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
