// 11. Snapshots as a fixture factory: a fixture (workspace `fixture` → child `a` with a CRD, 20 custom resources, 20
//     ConfigMaps and 5 Secrets) is built through the API a few times (the baseline: what a test suite would do per
//     test), then saved once (`GET /kcpt/snapshot?workspace=`) and cloned by `POST /kcpt/snapshot/restore?as=` many
//     times. Reports wall time and kcpt's CPU (user+sys from /proc) per clone vs per build; the CPU figure is the one
//     to compare on a shared machine. Also times a whole-store online backup. Informational (no target in the issue).
import { log, median, procCpuMs } from './lib/util.js';
import { client, startKcpt } from './lib/kcpt.js';

const GROUP = 'fixture.kcpt.dev';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, check) {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function createWorkspace(c, parent, name) {
  await c.json('POST', `/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
  await waitFor(`${parent}:${name} Ready`, async () => (await c.json('GET', `/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).status?.phase === 'Ready');
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
  },
};

/** The fixture, through the API, the way a test's setup would write it. */
async function buildFixture(c, name) {
  await createWorkspace(c, 'root', name);
  await createWorkspace(c, `root:${name}`, 'a');
  const at = `/clusters/root:${name}:a`;
  await c.json('POST', `${at}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, crd);
  await waitFor('CRD Established', async () => {
    const got = await c.json('GET', `${at}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${GROUP}`);
    return (got.status?.conditions ?? []).some((x) => x.type === 'Established' && x.status === 'True');
  });
  for (let i = 0; i < 20; i++) {
    await c.json('POST', `${at}/apis/${GROUP}/v1/namespaces/default/gadgets`, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: `g${i}` }, spec: { size: i } });
    await c.json('POST', `${at}/api/v1/namespaces/default/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}` }, data: { i: String(i) } });
  }
  for (let i = 0; i < 5; i++) {
    await c.json('POST', `${at}/api/v1/namespaces/default/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` }, stringData: { password: `p${i}` } });
  }
}

async function timed(pid, fn) {
  const cpu0 = procCpuMs(pid);
  const t0 = performance.now();
  const result = await fn();
  return { ms: performance.now() - t0, cpuMs: procCpuMs(pid) - cpu0, result };
}

export async function run(ctx) {
  const server = await startKcpt({ rootDir: ctx.tmp });
  const c = client(server.url, { token: server.token });
  const admin = client(server.url, { token: server.shardToken });
  const pid = server.child.pid;
  try {
    const builds = [];
    for (let i = 0; i < Math.max(3, ctx.runs); i++) builds.push(await timed(pid, () => buildFixture(c, `fixture-${i}`)));
    log(`  build by API: ${builds.map((b) => `${b.ms.toFixed(0)} ms (cpu ${b.cpuMs.toFixed(0)} ms)`).join(', ')}`);

    const save = await timed(pid, async () => {
      const res = await admin.request('GET', '/kcpt/snapshot?workspace=root:fixture-0');
      if (res.status !== 200) throw new Error(`save: HTTP ${res.status} ${res.body.toString().slice(0, 300)}`);
      return res.body.toString('utf8');
    });
    const body = save.result;
    const objects = body.trim().split('\n').length - 1;
    log(`  save: ${save.ms.toFixed(1)} ms (cpu ${save.cpuMs.toFixed(1)} ms), ${objects} objects, ${body.length} bytes`);

    const clones = [];
    const count = 30;
    // /proc counts CPU in 10 ms ticks: the per-clone CPU figure is the whole loop's, divided.
    const cloneCpu0 = procCpuMs(pid);
    for (let i = 0; i < count; i++) {
      clones.push(
        await timed(pid, async () => {
          const res = await admin.request('POST', `/kcpt/snapshot/restore?as=root:clone-${i}`, body, { 'content-type': 'application/jsonl' });
          if (res.status !== 201) throw new Error(`restore: HTTP ${res.status} ${res.body.toString().slice(0, 300)}`);
        }),
      );
    }
    const cloneCpu = (procCpuMs(pid) - cloneCpu0) / count;
    // A clone is usable at once: its custom resources are served.
    const listed = await c.json('GET', `/clusters/root:clone-${count - 1}:a/apis/${GROUP}/v1/namespaces/default/gadgets`);
    if (listed.items.length !== 20) throw new Error(`clone serves ${listed.items.length} gadgets, expected 20`);
    log(`  restore (clone): median ${median(clones.map((x) => x.ms)).toFixed(1)} ms (cpu ${cloneCpu.toFixed(1)} ms each) over ${count}`);

    const backup = await timed(pid, async () => {
      const res = await admin.request('GET', '/kcpt/snapshot');
      if (res.status !== 200) throw new Error(`backup: HTTP ${res.status}`);
      return res.body.length;
    });
    log(`  whole-store backup: ${backup.ms.toFixed(1)} ms (cpu ${backup.cpuMs.toFixed(1)} ms), ${backup.result} bytes`);

    const buildMs = median(builds.map((b) => b.ms));
    const buildCpu = median(builds.map((b) => b.cpuMs));
    const cloneMs = median(clones.map((x) => x.ms));
    return [
      {
        name: `SNAPSHOT clone fixture (${objects} objs) via restore --as`,
        unit: 'ms',
        kcpt: cloneMs,
        baseline: buildMs,
        baselineName: 'same fixture built through the API',
        target: { kind: 'info' },
        note: `server CPU ${cloneCpu.toFixed(1)} ms per clone vs ${buildCpu.toFixed(1)} ms per build`,
        runs: { kcpt: clones.map((x) => x.ms), baseline: builds.map((b) => b.ms) },
      },
      { name: 'SNAPSHOT save fixture subtree (JSON lines)', unit: 'ms', kcpt: save.ms, baseline: NaN, target: { kind: 'info' }, note: `server CPU ${save.cpuMs.toFixed(1)} ms, ${body.length} B` },
      { name: 'SNAPSHOT whole-store online backup', unit: 'ms', kcpt: backup.ms, baseline: NaN, target: { kind: 'info' }, note: `server CPU ${backup.cpuMs.toFixed(1)} ms, ${backup.result} B` },
    ];
  } finally {
    c.close();
    admin.close();
    await server.stop();
  }
}
