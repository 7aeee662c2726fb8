/**
 * The hostile-input fuzzer: KCPT_FUZZ_COUNT requests from fuzz-generator.ts (2,000 in `npm test`, about a hundred
 * per category; 10,000 with `npm run test:fuzz`), seeded by KCPT_FUZZ_SEED (printed, so a failure replays), against
 * a real `kcpt start` over keep-alive HTTPS. Every answer
 * must be a non-5xx (bar kube's 504 for a resourceVersion from the future) with a Status body that says what is
 * wrong; nothing may hang; and afterwards the server is alive, its RSS bounded, and the seeded objects exactly as
 * they were, resourceVersions included.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdObject } from '../e2e/crds-fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import {
  nextCase,
  rng,
  SCRATCH_NAMESPACE,
  SEED_CONFIGMAPS,
  SEED_NAMESPACE,
  SEED_WIDGETS,
  WIDGET_GROUP,
  type FuzzCase,
} from './fuzz-generator.js';
import { keepAliveClient, type KeepAliveClient, type RawAnswer } from './keep-alive-client.js';

const seed = Number(process.env.KCPT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const count = Number(process.env.KCPT_FUZZ_COUNT ?? 2_000);
const concurrency = 16;

let server: TestServer;
let client: KeepAliveClient;

const json = { 'content-type': 'application/json' };

/** The server's CPU time so far (user + system, ms): the cost of the run whatever else shares the machine. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

async function must(method: string, path: string, body?: unknown): Promise<RawAnswer> {
  const res = await client.send({ method, path, headers: json, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return res;
}

/** Names, resourceVersions and contents of every seeded object, and the workspaces in root. */
async function fingerprint(): Promise<string> {
  const lists = [
    `/clusters/root/api/v1/namespaces/${SEED_NAMESPACE}/configmaps`,
    `/clusters/root/apis/${WIDGET_GROUP}/v1/namespaces/${SEED_NAMESPACE}/widgets`,
    '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces',
    '/clusters/root/api/v1/namespaces',
  ];
  const parts: string[] = [];
  for (const path of lists) {
    const list = JSON.parse((await must('GET', path)).body) as { items: any[] };
    for (const item of list.items) {
      const { managedFields: _m, ...meta } = item.metadata;
      // Namespaces and workspaces carry status a controller may still settle; their names and uids are what count.
      const body = path.endsWith('namespaces') || path.endsWith('workspaces') ? { uid: meta.uid } : { ...item, metadata: meta };
      parts.push(`${path} ${meta.name} ${path.endsWith('namespaces') || path.endsWith('workspaces') ? '' : meta.resourceVersion} ${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`);
    }
  }
  return parts.sort().join('\n');
}

async function seedData(): Promise<void> {
  await must('POST', '/clusters/root/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SEED_NAMESPACE } });
  await must('POST', '/clusters/root/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SCRATCH_NAMESPACE } });
  await must(
    'POST',
    '/clusters/root/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    crdObject({
      group: WIDGET_GROUP,
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    }),
  );
  const widgets = `/clusters/root/apis/${WIDGET_GROUP}/v1/namespaces/${SEED_NAMESPACE}/widgets`;
  for (let tries = 0; (await client.send({ method: 'GET', path: widgets })).status !== 200; tries++) {
    if (tries > 100) throw new Error('the widgets CRD never got served');
    await new Promise((r) => setTimeout(r, 100));
  }
  for (let i = 0; i < SEED_CONFIGMAPS; i++) {
    await must('POST', `/clusters/root/api/v1/namespaces/${SEED_NAMESPACE}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `seed-${i}`, labels: { seed: String(i) } },
      data: { seed: String(i) },
    });
  }
  for (let i = 0; i < SEED_WIDGETS; i++) {
    await must('POST', widgets, { apiVersion: `${WIDGET_GROUP}/v1`, kind: 'Widget', metadata: { name: `w-${i}` }, spec: { n: i } });
  }
}

interface Violation {
  case: FuzzCase;
  status: number;
  problem: string;
  body: string;
}

/** What is wrong with one answer, or undefined. */
function judge(c: FuzzCase, status: number, body: string, contentType: string | undefined): string | undefined {
  const tooLargeRv = status === 504 && /Too large resource version/.test(body);
  if (status >= 500 && !tooLargeRv) return 'a 5xx';
  if (c.expect && !c.expect.includes(status)) return `expected one of ${c.expect.join(', ')}`;
  if (c.mustFail && status < 400) return 'accepted a request aimed at a seeded object';
  if (status < 400) return undefined;
  const accept = Object.entries(c.headers ?? {}).find(([k]) => k.toLowerCase() === 'accept')?.[1] ?? '';
  if (/^application\/vnd\.kubernetes\.protobuf/.test(contentType ?? '') && accept.includes('application/vnd.kubernetes.protobuf')) {
    // Kube writes an error in the type the client negotiated: a protobuf Status (k8s\0, then runtime.Unknown of a v1 Status).
    return body.startsWith('k8s\u0000') && body.includes('Status') ? undefined : 'a protobuf error that is not a Status';
  }
  if (!/^application\/json/.test(contentType ?? '')) return `error answered as ${contentType ?? 'no content type'}`;
  let parsed: any;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'error body is not JSON';
  }
  if (parsed?.kind !== 'Status' || parsed.code !== status || typeof parsed.message !== 'string' || parsed.message.trim() === '') {
    return 'error body is not a Status with the answer’s code and a message';
  }
  return undefined;
}

async function runCase(c: FuzzCase): Promise<Violation | undefined> {
  if (c.stream) {
    const { status, firstChunk } = await client.openAndDrop(c.path, 300);
    if (status >= 400) {
      const problem = judge(c, status, firstChunk, 'application/json');
      return problem ? { case: c, status, problem, body: firstChunk } : undefined;
    }
    if (status !== 200) return { case: c, status, problem: 'a watch answered neither 200 nor a 4xx', body: firstChunk };
    const first = firstChunk.split('\n')[0];
    if (first && /resourceVersion=1(&|$)/.test(c.path)) {
      // Resumed from long-compacted history: the first event must be kube's ERROR with 410 Expired.
      const event = JSON.parse(first) as { type: string; object: { code?: number } };
      if (event.type !== 'ERROR' || event.object.code !== 410) return { case: c, status, problem: 'a watch from a compacted revision did not say 410', body: first };
    }
    return undefined;
  }
  let res: RawAnswer;
  try {
    res = await client.send({ method: c.method, path: c.path, headers: c.headers, body: c.body }, 20_000, c.category === 'huge-body');
  } catch (err) {
    // Over the request limit, the server may answer 413 and close while the client is still writing (kube's Go
    // server does the same): a reset is that refusal, not a hang. The 413 itself is asserted in bad-input.test.ts.
    if (c.category === 'huge-body' && /EPIPE|ECONNRESET|socket hang up/.test((err as Error).message)) return undefined;
    throw err;
  }
  const ct = res.headers['content-type'];
  const problem = judge(c, res.status, res.body, Array.isArray(ct) ? ct[0] : ct);
  return problem ? { case: c, status: res.status, problem, body: res.body.slice(0, 500) } : undefined;
}

beforeAll(async () => {
  server = await startServer({
    // History is compacted within a fraction of a second, so a watch from revision 1 is a 410.
    extraArgs: ['--watch-history-retention', '0s', '--watch-history-compaction-interval', '200ms', '--watch-history-min-revisions', '5'],
  });
  client = keepAliveClient(server, { sockets: concurrency });
  await seedData();
}, 90_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

describe(`fuzzing ${count} hostile requests (KCPT_FUZZ_SEED=${seed})`, () => {
  it('answers each with a Status below 500, never hangs, and leaves the server and its data as they were', async () => {
    console.log(`fuzz: KCPT_FUZZ_SEED=${seed} KCPT_FUZZ_COUNT=${count}`);
    const pid = server.pid();
    const before = await fingerprint();
    const rssBefore = rssKiB(pid);
    const cpuBefore = cpuMs(pid);
    const random = rng(seed);
    // KCPT_FUZZ_ONLY=patch,path narrows a replay to some categories (the seed still draws every case).
    const only = process.env.KCPT_FUZZ_ONLY?.split(',');
    const cases = Array.from({ length: count }, () => nextCase(random)).filter((c) => !only || only.includes(c.category));
    const violations: Violation[] = [];
    const errors: string[] = [];
    const byCategory = new Map<string, number>();
    let next = 0;
    let rssPeak = rssBefore;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          byCategory.set(c.category, (byCategory.get(c.category) ?? 0) + 1);
          try {
            const v = await runCase(c);
            if (v) violations.push(v);
          } catch (err) {
            errors.push(`${c.category} ${c.method} ${c.path.slice(0, 200)}: ${(err as Error).message}`);
          }
          if (next % 500 === 0) rssPeak = Math.max(rssPeak, rssKiB(pid));
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const rssAfter = rssKiB(pid);
    console.log(
      `fuzz: ${cases.length} requests in ${seconds.toFixed(1)} s, server CPU ${((cpuMs(pid) - cpuBefore) / 1000).toFixed(1)} s; RSS ${Math.round(rssBefore / 1024)} → peak ${Math.round(rssPeak / 1024)} → ${Math.round(rssAfter / 1024)} MiB; ` +
        [...byCategory].map(([k, n]) => `${k} ${n}`).join(', '),
    );
    const report = (v: Violation) =>
      `[${v.case.category}] ${v.case.method} ${v.case.path.slice(0, 160)} ${String(v.case.body ?? '').slice(0, 120)} → ${v.status}: ${v.problem}: ${v.body.slice(0, 240)}`;
    if (errors.length > 0 || violations.length > 0) {
      // What the server said is the first thing one needs to replay a failure seen only in CI.
      if (process.env.KCPT_FUZZ_LOG) writeFileSync(process.env.KCPT_FUZZ_LOG, server.output());
      console.log(`fuzz: the server's last output (seed ${seed}):\n${server.output().slice(-6000)}`);
    }
    expect(errors, `transport errors or hangs (seed ${seed})`).toEqual([]);
    expect(violations.map(report), `seed ${seed}`).toEqual([]);

    // Alive and answering, memory bounded, the seeded objects untouched.
    expect((await client.send({ method: 'GET', path: '/readyz' })).status).toBe(200);
    expect(rssAfter, 'RSS after the run (KiB)').toBeLessThan(rssBefore + 256 * 1024);
    expect(await fingerprint()).toBe(before);
  }, 600_000);
});
