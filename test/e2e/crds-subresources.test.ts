/**
 * Custom resource subresources and versions with the real kubectl: the status subresource (main resource and status
 * each ignore the other's changes, generation counts spec changes only), the scale subresource (`kubectl scale`,
 * the autoscaling/v1 Scale shape), several versions with conversion None, unserved versions, and selectableFields.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from '../helpers/http.js';
import { clusterArgs, kubectlBackground, matrixBinaries, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { expectError, lines, useE2EServer } from '../helpers/suite.js';
import { parseTable } from '../helpers/table.js';
import { applyCRD, crdObject, widgetSchema, withFile, type Json } from './crds-fixtures.js';

const e2e = useE2EServer();

const subresources = {
  status: {},
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
};

describe.each(matrixBinaries())('subresources and versions with kubectl $version', ({ version, path: binary }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, { ...opts, binary });
  const group = `sub${version.replace('.', '')}.example.com`;
  const res = `widgets.${group}`;
  const ns = uniqueName('subres');
  const w = (name: string, spec: Json, extra: Json = {}): Json => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec, ...extra });
  const getJson = async (name: string, ...more: string[]) => JSON.parse((await k(['get', res, name, '-n', ns, '-o', 'json', ...more])).stdout);

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
    await applyCRD(k, crdObject({ group, plural: 'widgets', kind: 'Widget', version: { subresources, selectableFields: [{ jsonPath: '.spec.color' }] } }));
  }, 90_000);

  it('status subresource: create drops status, the main resource ignores status, status ignores the rest', async () => {
    await withFile(k, ['create', '-n', ns], w('s1', { color: 'red' }, { status: { replicas: 9 } }));
    const created = await getJson('s1');
    expect(created.status).toBeUndefined();
    expect(created.metadata.generation).toBe(1);

    await k(['patch', res, 's1', '-n', ns, '--type', 'merge', '-p', '{"spec":{"color":"blue"},"status":{"ready":true}}']);
    let obj = await getJson('s1');
    expect(obj.spec.color).toBe('blue');
    expect(obj.status).toBeUndefined();
    expect(obj.metadata.generation).toBe(2);

    const patched = await k(['patch', res, 's1', '-n', ns, '--subresource=status', '--type', 'merge', '-p', '{"status":{"ready":true,"replicas":2,"selector":"app=s1"},"spec":{"color":"green"},"metadata":{"labels":{"x":"y"}}}']);
    expect(patched.stdout).toBe(`widget.${group}/s1 patched`);
    obj = await getJson('s1');
    expect(obj.status).toEqual({ ready: true, replicas: 2, selector: 'app=s1' });
    expect(obj.spec.color).toBe('blue');
    expect(obj.metadata.labels).toBeUndefined();
    expect(obj.metadata.generation).toBe(2);

    // labels are metadata: they change the object but not its generation
    await k(['label', res, 's1', '-n', ns, 'tier=web']);
    expect((await getJson('s1')).metadata.generation).toBe(2);

    expect((await getJson('s1', '--subresource=status')).status).toEqual({ ready: true, replicas: 2, selector: 'app=s1' });
  });

  it('scale subresource: kubectl scale and the autoscaling/v1 Scale', async () => {
    await withFile(k, ['create', '-n', ns], w('sc', { color: 'red', replicas: 2 }));
    await k(['patch', res, 'sc', '-n', ns, '--subresource=status', '--type', 'merge', '-p', '{"status":{"replicas":2,"selector":"app=sc"}}']);
    expect((await k(['scale', res, 'sc', '-n', ns, '--replicas=3'])).stdout).toBe(`widget.${group}/sc scaled`);
    const obj = await getJson('sc');
    expect(obj.spec.replicas).toBe(3);
    expect(obj.metadata.generation).toBe(2);
    const scale = JSON.parse((await k(['get', '--raw', `/clusters/root/apis/${group}/v1/namespaces/${ns}/widgets/sc/scale`])).stdout);
    expect(scale).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'sc', namespace: ns, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp,
      },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=sc' },
    });
    // The Scale has a table of its own (kube's scale columns), and PartialObjectMetadata is its metadata.
    const table = parseTable((await k(['get', res, 'sc', '-n', ns, '--subresource=scale'])).stdout);
    expect(table.header).toEqual(['NAME', 'DESIRED', 'AVAILABLE', 'AGE']);
    expect(table.rows.map((r) => r.slice(0, 3))).toEqual([['sc', '3', '2']]);
    const partial = await apiRequest(e2e.server, `/clusters/root/apis/${group}/v1/namespaces/${ns}/widgets/sc/scale`, {
      headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
    });
    expect(partial.json()).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: scale.metadata });
    // The schema's maximum applies to scale writes too.
    const tooMany = await k(['scale', res, 'sc', '-n', ns, '--replicas=11'], { reject: false });
    expectError(tooMany, 'The Widget "sc" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10');
    expect((await k(['scale', res, 'sc', '-n', ns, '--replicas=1', '--current-replicas=3'])).stdout).toBe(`widget.${group}/sc scaled`);
  });

  it('get -w follows custom resources (defaulted as on reads) and honours selectable field selectors', async () => {
    const watch = kubectlBackground(
      e2e.server,
      [...clusterArgs(e2e.server, 'root'), 'get', res, '-n', ns, '-w', '--field-selector', 'spec.color=green', '-o', 'jsonpath={.metadata.name} {.spec.replicas}{"\\n"}'],
      { binary },
    );
    try {
      await withFile(k, ['create', '-n', ns], [w('watched-blue', { color: 'blue' }), w('watched-green', { color: 'green' })]);
      expect(await watch.waitForLine(/^watched-green /, 30_000)).toBe('watched-green 1');
      expect(watch.lines().some((l) => l.startsWith('watched-blue'))).toBe(false);
    } finally {
      await watch.stop();
    }
  });

  it('selectableFields serve field selectors; other fields are refused as kube does', async () => {
    await withFile(k, ['create', '-n', ns], [w('red-one', { color: 'red' }), w('blue-one', { color: 'blue' })]);
    const red = lines((await k(['get', res, '-n', ns, '--field-selector', 'spec.color=red', '-o', 'name'])).stdout);
    expect(red).toContain(`widget.${group}/red-one`);
    expect(red).not.toContain(`widget.${group}/blue-one`);
    const notRed = lines((await k(['get', res, '-n', ns, '--field-selector', 'spec.color!=red,metadata.name=blue-one', '-o', 'name'])).stdout);
    expect(notRed).toEqual([`widget.${group}/blue-one`]);
    expectError(
      await k(['get', res, '-n', ns, '--field-selector', 'spec.size=1'], { reject: false }),
      `Error from server (BadRequest): Unable to find "${group}/v1, Resource=widgets" that match label selector "", field selector "spec.size=1": field label not supported: spec.size`,
    );
  });
});

describe('several versions with conversion None', () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);
  const group = 'versions.example.com';
  const specSchema = (extra: Json) => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { model: { type: 'string' }, ...extra } } } },
  });

  beforeAll(async () => {
    await applyCRD(
      k,
      crdObject({
        group, plural: 'robots', kind: 'Robot', scope: 'Cluster',
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema: specSchema({ legacy: { type: 'string', default: 'old' } }) },
          { name: 'v1', served: true, storage: true, schema: specSchema({}), additionalPrinterColumns: [{ name: 'Model', type: 'string', jsonPath: '.spec.model' }] },
          { name: 'v1alpha1', served: false, storage: false, schema: specSchema({}) },
        ],
      }),
    );
  }, 90_000);

  it('objects are visible through every served version, each with its own schema', async () => {
    const robot = { apiVersion: `${group}/v1beta1`, kind: 'Robot', metadata: { name: 'r1' }, spec: { model: 't800' } };
    expect((await withFile(k, ['create'], robot)).stdout).toBe(`robot.${group}/r1 created`);
    const v1 = JSON.parse((await k(['get', `robots.v1.${group}`, 'r1', '-o', 'json'])).stdout);
    expect(v1.apiVersion).toBe(`${group}/v1`);
    // stored in v1, pruned with v1's schema on the way out
    expect(v1.spec).toEqual({ model: 't800' });
    const beta = JSON.parse((await k(['get', `robots.v1beta1.${group}`, 'r1', '-o', 'json'])).stdout);
    expect(beta.apiVersion).toBe(`${group}/v1beta1`);
    expect(beta.spec).toEqual({ legacy: 'old', model: 't800' });
    // the preferred version (v1) prints its columns
    expect(parseTable((await k(['get', `robots.${group}`])).stdout).records).toEqual([expect.objectContaining({ NAME: 'r1', MODEL: 't800' })]);
    expect(lines((await k(['api-versions'])).stdout).filter((l) => l.startsWith(group))).toEqual([`${group}/v1`, `${group}/v1beta1`]);
  });

  it('an unserved version is not found', async () => {
    expectError(await k(['get', `robots.v1alpha1.${group}`], { reject: false }), 'error: the server doesn\'t have a resource type "robots"');
    expectError(
      await k(['get', '--raw', `/clusters/root/apis/${group}/v1alpha1/robots`], { reject: false }),
      'Error from server (NotFound): the server could not find the requested resource',
    );
  });
});

describe('deprecated versions', () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);
  const group = 'deprecated.example.com';
  const open = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

  beforeAll(async () => {
    await applyCRD(
      k,
      crdObject({
        group, plural: 'gears', kind: 'Gear', scope: 'Cluster',
        versions: [
          { name: 'v1alpha1', served: true, storage: false, deprecated: true, schema: open },
          { name: 'v1beta1', served: true, storage: false, deprecated: true, deprecationWarning: 'gears v1beta1 goes away in 2027', schema: open },
          { name: 'v1', served: true, storage: true, schema: open },
          { name: 'v2alpha1', served: true, storage: false, schema: open },
        ],
      }),
    );
  }, 90_000);

  it('warn on every request to them, reads and deletes included, as kube’s CRD handler does', async () => {
    // The default text points to the most preferred served version that is not deprecated (v1, not v2alpha1).
    const alpha = 'Warning: deprecated.example.com/v1alpha1 Gear is deprecated; use deprecated.example.com/v1 Gear';
    const gear = { apiVersion: `${group}/v1alpha1`, kind: 'Gear', metadata: { name: 'g1' } };
    expect(lines((await withFile(k, ['create'], gear)).stderr)).toEqual([alpha]);
    expect(lines((await k(['get', `gears.v1alpha1.${group}`])).stderr)).toEqual([alpha]);
    expect(lines((await k(['get', `gears.v1alpha1.${group}`, 'g1', '-o', 'name'])).stderr)).toEqual([alpha]);
    const missing = await k(['get', `gears.v1beta1.${group}`, 'nope'], { reject: false });
    expect(lines(missing.stderr)).toEqual(['Warning: gears v1beta1 goes away in 2027', `Error from server (NotFound): gears.${group} "nope" not found`]);
    const watch = await apiRequest(e2e.server, `/clusters/root/apis/${group}/v1beta1/gears?watch=true&timeoutSeconds=1`);
    expect(watch.headers.warning).toBe('299 - "gears v1beta1 goes away in 2027"');
    expect(lines((await k(['delete', `gears.v1alpha1.${group}`, 'g1'])).stderr)).toEqual([alpha]);
    // Versions that are not deprecated say nothing.
    expect((await k(['get', `gears.v1.${group}`])).stderr).not.toContain('Warning');
  });
});
