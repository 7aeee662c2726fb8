import { afterEach, describe, expect, it } from 'vitest';
import type { Controller } from '../controllers/controller.js';
import { resourceQuotaController } from '../controllers/resource-quota-controller.js';
import type { KubeObject } from '../registry/types.js';
import { admissionFixture, thrown } from '../builtin/admission-test-support.js';

type Fixture = ReturnType<typeof admissionFixture>;
const controllers: Controller[] = [];
afterEach(() => controllers.splice(0).forEach((c) => c.stop()));

/** The fixture with the quota controller running on its store's watch. */
function withController(): Fixture & { controller: Controller; settle(): Promise<void> } {
  const f = admissionFixture();
  const controller = resourceQuotaController({ store: f.store, generic: f.generic, usage: f.quotaUsage });
  controller.start();
  controllers.push(controller);
  // Listeners run inside commits; the reconcile runs on the next turn.
  const settle = async () => {
    await new Promise((r) => setImmediate(r));
    await controller.idle();
  };
  return { ...f, controller, settle };
}

function createQuota(f: Fixture, cluster: string, namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return f.generic.create(f.ctx(f.types.quotas, cluster, namespace), { metadata: { name }, spec });
}

const quotaStatus = (f: Fixture, cluster: string, namespace: string, name: string) =>
  f.generic.get(f.ctx(f.types.quotas, cluster, namespace), name).status;

describe('ResourceQuota controller', () => {
  it('publishes hard = spec.hard and used for every hard name, counting objects of the namespace only', async () => {
    const f = withController();
    f.cluster('c1', { namespaces: ['a', 'b'] });
    f.cluster('c2', { namespaces: ['a'] });
    f.configMap('c1', 'a', 'one');
    f.configMap('c1', 'b', 'other-namespace');
    f.configMap('c2', 'a', 'other-cluster');
    f.generic.create(f.ctx(f.types.widgets, 'c1', 'a'), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    createQuota(f, 'c1', 'a', 'q', {
      hard: {
        configmaps: '5',
        'count/configmaps': '5',
        'count/widgets.example.com': '3',
        'count/secrets': '1',
        'count/gadgets.example.com': '2', // cluster-scoped: nothing in a namespace
        'count/nothings.example.com': '2', // not served here
        pods: '4',
        'requests.cpu': '1',
        resourcequotas: '2',
      },
    });
    await f.settle();
    expect(quotaStatus(f, 'c1', 'a', 'q')).toEqual({
      hard: {
        configmaps: '5',
        'count/configmaps': '5',
        'count/gadgets.example.com': '2',
        'count/nothings.example.com': '2',
        'count/secrets': '1',
        'count/widgets.example.com': '3',
        pods: '4',
        'requests.cpu': '1',
        resourcequotas: '2',
      },
      used: {
        configmaps: '1',
        'count/configmaps': '1',
        'count/gadgets.example.com': '0',
        'count/nothings.example.com': '0',
        'count/secrets': '0',
        'count/widgets.example.com': '1',
        pods: '0',
        'requests.cpu': '0',
        resourcequotas: '1',
      },
    });
  });

  it('brings used down after a delete and follows spec.hard edits', async () => {
    const f = withController();
    f.cluster('c1');
    for (const name of ['a', 'b', 'c']) f.configMap('c1', 'default', name);
    createQuota(f, 'c1', 'default', 'q', { hard: { configmaps: '5' } });
    await f.settle();
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '5' }, used: { configmaps: '3' } });
    f.generic.delete(f.ctx(f.types.configMaps, 'c1', 'default'), 'a');
    await f.settle();
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '5' }, used: { configmaps: '2' } });
    const q = f.generic.get(f.ctx(f.types.quotas, 'c1', 'default'), 'q');
    f.generic.update(f.ctx(f.types.quotas, 'c1', 'default'), 'q', { ...q, spec: { hard: { configmaps: '9', 'count/secrets': '1' } } });
    await f.settle();
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({
      hard: { configmaps: '9', 'count/secrets': '1' },
      used: { configmaps: '2', 'count/secrets': '0' },
    });
  });

  it('a quota with scopes counts no objects', async () => {
    const f = withController();
    f.cluster('c1');
    f.configMap('c1', 'default', 'a');
    createQuota(f, 'c1', 'default', 'q', { hard: { configmaps: '1', pods: '1' }, scopes: ['BestEffort'] });
    await f.settle();
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '1', pods: '1' }, used: { configmaps: '0', pods: '0' } });
    f.configMap('c1', 'default', 'b');
  });
});

describe('ResourceQuota admission', () => {
  const exceeded = (kind: string, name: string, quota: string, names: string[], used: number, hard: number) =>
    `${kind} "${name}" is forbidden: exceeded quota: ${quota}, requested: ${names.map((n) => `${n}=1`).join(',')}, ` +
    `used: ${names.map((n) => `${n}=${used}`).join(',')}, limited: ${names.map((n) => `${n}=${hard}`).join(',')}`;

  it('refuses the create over the limit with kube’s 403 and charges status.used with every admitted create', async () => {
    const f = withController();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'q', { hard: { configmaps: '2', 'count/secrets': '1' } });
    await f.settle();
    f.configMap('c1', 'default', 'a');
    // Charged in the create's own commit, before the controller runs.
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '2', 'count/secrets': '1' }, used: { configmaps: '1', 'count/secrets': '0' } });
    f.configMap('c1', 'default', 'b');
    const err = thrown(() => f.configMap('c1', 'default', 'c'));
    expect(err).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: exceeded('configmaps', 'c', 'q', ['configmaps'], 2, 2),
      details: { name: 'c', group: '', kind: 'configmaps' },
    });
    f.generic.create(f.ctx(f.types.secrets, 'c1', 'default'), { metadata: { name: 's1' } });
    expect(thrown(() => f.generic.create(f.ctx(f.types.secrets, 'c1', 'default'), { metadata: { name: 's2' } })).message).toBe(
      exceeded('secrets', 's2', 'q', ['count/secrets'], 1, 1),
    );
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '2', 'count/secrets': '1' }, used: { configmaps: '2', 'count/secrets': '1' } });
    // A delete makes room at once (admission measures what is stored), and the controller catches up on status.
    f.generic.delete(f.ctx(f.types.configMaps, 'c1', 'default'), 'a');
    f.configMap('c1', 'default', 'c');
  });

  it('a status.used left high (a delete not yet reconciled) is measured before anything is refused', () => {
    const f = admissionFixture(); // no controller: status only changes by admission and by hand
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'q', { hard: { configmaps: '2' } });
    const q = f.generic.get(f.ctx(f.types.quotas, 'c1', 'default'), 'q');
    f.generic.update(f.ctx(f.types.quotas, 'c1', 'default'), 'q', { ...q, status: { hard: { configmaps: '2' }, used: { configmaps: '2' } } }, { subresource: 'status' });
    f.configMap('c1', 'default', 'a');
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '2' }, used: { configmaps: '1' } });
    f.configMap('c1', 'default', 'b');
    expect(thrown(() => f.configMap('c1', 'default', 'c')).message).toBe(exceeded('configmaps', 'c', 'q', ['configmaps'], 2, 2));
  });

  it('every quota of the namespace applies; the first one exceeded is named', async () => {
    const f = withController();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'loose', { hard: { 'count/configmaps': '10' } });
    createQuota(f, 'c1', 'default', 'tight', { hard: { 'count/configmaps': '1', configmaps: '1' } });
    await f.settle();
    f.configMap('c1', 'default', 'a');
    expect(thrown(() => f.configMap('c1', 'default', 'b')).message).toBe(
      exceeded('configmaps', 'b', 'tight', ['configmaps', 'count/configmaps'], 1, 1),
    );
    expect(quotaStatus(f, 'c1', 'default', 'loose')).toMatchObject({ used: { 'count/configmaps': '1' } });
  });

  it('counts custom resources by count/<resource>.<group>', async () => {
    const f = withController();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'crs', { hard: { 'count/widgets.example.com': '1' } });
    await f.settle();
    const widget = (name: string) =>
      f.generic.create(f.ctx(f.types.widgets, 'c1', 'default'), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name } });
    widget('w1');
    expect(thrown(() => widget('w2')).message).toBe(exceeded('widgets.example.com', 'w2', 'crs', ['count/widgets.example.com'], 1, 1));
    f.configMap('c1', 'default', 'not-a-widget');
  });

  it('a quota only counts its own namespace of its own logical cluster', async () => {
    const f = withController();
    f.cluster('c1', { namespaces: ['a', 'b'] });
    f.cluster('c2', { namespaces: ['a'] });
    createQuota(f, 'c1', 'a', 'q', { hard: { configmaps: '1' } });
    await f.settle();
    f.configMap('c1', 'a', 'x');
    for (const name of ['x', 'y']) f.configMap('c1', 'b', name);
    for (const name of ['x', 'y']) f.configMap('c2', 'a', name);
    expect(thrown(() => f.configMap('c1', 'a', 'y')).code).toBe(403);
  });

  it('dry runs are refused over the limit but never charged', async () => {
    const f = withController();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'q', { hard: { configmaps: '1' } });
    await f.settle();
    f.configMap('c1', 'default', 'dry', true);
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '1' }, used: { configmaps: '0' } });
    f.configMap('c1', 'default', 'real');
    expect(thrown(() => f.configMap('c1', 'default', 'dry2', true)).code).toBe(403);
  });

  it('a refused or failed create charges nothing', async () => {
    const f = withController();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'q', { hard: { configmaps: '3' } });
    await f.settle();
    f.configMap('c1', 'default', 'a');
    expect(thrown(() => f.configMap('c1', 'default', 'a')).code).toBe(409);
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { configmaps: '3' }, used: { configmaps: '1' } });
  });

  it('counts quotas themselves: a second quota over resourcequotas=1 is refused', async () => {
    const f = withController();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'q', { hard: { resourcequotas: '1' } });
    await f.settle();
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { resourcequotas: '1' }, used: { resourcequotas: '1' } });
    expect(thrown(() => createQuota(f, 'c1', 'default', 'q2', { hard: { configmaps: '1' } })).message).toBe(
      exceeded('resourcequotas', 'q2', 'q', ['resourcequotas'], 1, 1),
    );
    // A deleted quota is replenished in the quotas that count quotas.
    const q = f.generic.get(f.ctx(f.types.quotas, 'c1', 'default'), 'q');
    f.generic.update(f.ctx(f.types.quotas, 'c1', 'default'), 'q', { ...q, spec: { hard: { resourcequotas: '2' } } });
    await f.settle();
    createQuota(f, 'c1', 'default', 'q2', { hard: { configmaps: '1' } });
    await f.settle();
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { resourcequotas: '2' }, used: { resourcequotas: '2' } });
    f.generic.delete(f.ctx(f.types.quotas, 'c1', 'default'), 'q2');
    await f.settle();
    expect(quotaStatus(f, 'c1', 'default', 'q')).toEqual({ hard: { resourcequotas: '2' }, used: { resourcequotas: '1' } });
  });

  it('a quota is enforced once its status.hard is published; hard names without used are "status unknown"', () => {
    const f = admissionFixture();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'q', { hard: { configmaps: '0' } });
    f.configMap('c1', 'default', 'before-status'); // no controller ran: status.hard is empty, nothing matches
    const q = f.generic.get(f.ctx(f.types.quotas, 'c1', 'default'), 'q');
    f.generic.update(f.ctx(f.types.quotas, 'c1', 'default'), 'q', { ...q, status: { hard: { configmaps: '0' } } }, { subresource: 'status' });
    expect(thrown(() => f.configMap('c1', 'default', 'x')).message).toBe(
      'configmaps "x" is forbidden: status unknown for quota: q, resources: configmaps',
    );
  });

  it('ignores events, namespaces and scoped quotas', async () => {
    const f = withController();
    f.cluster('c1');
    createQuota(f, 'c1', 'default', 'q', { hard: { 'count/events': '0', 'count/events.events.k8s.io': '0' } });
    createQuota(f, 'c1', 'default', 'scoped', { hard: { configmaps: '0' }, scopes: ['NotTerminating'] });
    await f.settle();
    f.generic.create(f.ctx(f.types.events, 'c1', 'default'), { metadata: { name: 'e' }, involvedObject: { kind: 'Namespace', name: 'default' } });
    f.generic.create(f.ctx(f.types.namespaces, 'c1'), { metadata: { name: 'another' } });
    f.configMap('c1', 'default', 'a');
  });
});
