/**
 * Issue 2, read paths with the real kubectl: version, discovery (api-resources, api-versions, explain, get --raw),
 * and `kubectl get` in all its everyday forms, in root and in a second logical cluster; plus the versioned
 * kubectl binaries (1.32 and 1.33 always, 1.27 … 1.33 with KCPT_KUBECTL_MATRIX=1).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { apiRequest } from '../helpers/http.js';
import { clusterArgs, kubectl, matrixBinaries, uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { parseTable, freshAge } from '../helpers/table.js';
import { expectError, expectNotFound, lines, useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer();

describe.each(e2e.clusters)('kubectl read paths in $label', ({ name: cluster }) => {
  const k: ClusterKubectl = (args, opts) => e2e.k(cluster)(args, opts);
  const ns = uniqueName('basics');
  // Four configmaps with different data counts, labels and an `order` annotation that sorts differently
  // from their names.
  const manifest = (mark: string) =>
    [
      cm('alpha', { a: '1' }, { app: 'web', tier: 'front', mark }, '4'),
      cm('bravo', { a: '1', b: '2' }, { app: 'web', tier: 'back', mark }, '2'),
      cm('charlie', {}, { app: 'db', mark }, '3'),
      cm('delta', { x: 'y', z: 'w', q: 'r' }, { mark }, '1'),
    ].join('---\n');
  function cm(name: string, data: Record<string, string>, labels: Record<string, string>, order: string): string {
    const dataLines = Object.entries(data).map(([key, v]) => `  ${key}: "${v}"\n`);
    return (
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n` +
      `  annotations:\n    order: "${order}"\n  labels:\n` +
      Object.entries(labels)
        .map(([key, v]) => `    ${key}: "${v}"\n`)
        .join('') +
      (dataLines.length ? `data:\n${dataLines.join('')}` : '')
    );
  }

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
    await k(['create', '-f', '-'], { input: manifest(ns) });
  }, 60_000);

  /** Rows of our four configmaps (ignores anything the server itself may publish, like kube-root-ca.crt). */
  const ours = (records: Record<string, string>[]) =>
    records.filter((r) => ['alpha', 'bravo', 'charlie', 'delta'].some((n) => (r.NAME ?? '').endsWith(n)));

  it('version prints Server Version v1.32.x through the dispatcher', async () => {
    const { stdout } = await k(['version']);
    expect(lines(stdout)).toContainEqual(expect.stringMatching(/^Server Version: v1\.32\.\d+/));
    const json = JSON.parse((await k(['version', '-o', 'json'])).stdout);
    expect(json.serverVersion).toMatchObject({ major: '1', minor: '32' });
    expect(json.serverVersion.gitVersion).toMatch(/^v1\.32\.\d+/);
  });

  it('api-resources shows the built-in and kcp resources with their short names and scope', async () => {
    const table = parseTable((await k(['api-resources'])).stdout);
    expect(table.header).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    const row = (name: string, apiVersion: string) =>
      table.records.find((r) => r.NAME === name && r.APIVERSION === apiVersion);
    const expected: [string, string, string, string, string][] = [
      ['configmaps', 'cm', 'v1', 'true', 'ConfigMap'],
      ['events', 'ev', 'v1', 'true', 'Event'],
      ['limitranges', 'limits', 'v1', 'true', 'LimitRange'],
      ['namespaces', 'ns', 'v1', 'false', 'Namespace'],
      ['resourcequotas', 'quota', 'v1', 'true', 'ResourceQuota'],
      ['secrets', '', 'v1', 'true', 'Secret'],
      ['serviceaccounts', 'sa', 'v1', 'true', 'ServiceAccount'],
      ['leases', '', 'coordination.k8s.io/v1', 'true', 'Lease'],
      ['events', 'ev', 'events.k8s.io/v1', 'true', 'Event'],
      ['clusterrolebindings', '', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRoleBinding'],
      ['clusterroles', '', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRole'],
      ['rolebindings', '', 'rbac.authorization.k8s.io/v1', 'true', 'RoleBinding'],
      ['roles', '', 'rbac.authorization.k8s.io/v1', 'true', 'Role'],
      ['logicalclusters', '', 'core.kcp.io/v1alpha1', 'false', 'LogicalCluster'],
    ];
    for (const [name, shortNames, apiVersion, namespaced, kind] of expected) {
      expect(row(name, apiVersion), `api-resources row ${name} ${apiVersion}`).toEqual({
        NAME: name,
        SHORTNAMES: shortNames,
        APIVERSION: apiVersion,
        NAMESPACED: namespaced,
        KIND: kind,
      });
    }
    // Subresources (namespaces/status, namespaces/finalize) are never listed.
    expect(table.records.filter((r) => r.NAME!.includes('/'))).toEqual([]);
  });

  it('api-resources -o wide adds VERBS and CATEGORIES', async () => {
    const table = parseTable((await k(['api-resources', '-o', 'wide'])).stdout);
    expect(table.header).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES']);
    const row = (name: string, apiVersion: string) => {
      const r = table.records.find((x) => x.NAME === name && x.APIVERSION === apiVersion);
      expect(r, `api-resources -o wide row ${name} ${apiVersion}`).toBeDefined();
      return r!;
    };
    // kubectl prints the verbs comma-separated, in the server's order.
    const verbs = (r: Record<string, string>) => r.VERBS!.split(',').sort();
    const all = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    const configmaps = row('configmaps', 'v1');
    expect({ ...configmaps, VERBS: verbs(configmaps) }).toEqual({
      NAME: 'configmaps',
      SHORTNAMES: 'cm',
      APIVERSION: 'v1',
      NAMESPACED: 'true',
      KIND: 'ConfigMap',
      VERBS: all,
      CATEGORIES: '',
    });
    // kube-apiserver serves no deletecollection for namespaces.
    expect(verbs(row('namespaces', 'v1'))).toEqual(all.filter((v) => v !== 'deletecollection'));
    expect(verbs(row('leases', 'coordination.k8s.io/v1'))).toEqual(all);
    expect(verbs(row('roles', 'rbac.authorization.k8s.io/v1'))).toEqual(all);
    const logicalclusters = row('logicalclusters', 'core.kcp.io/v1alpha1');
    expect(verbs(logicalclusters)).toEqual(all);
    expect(logicalclusters.CATEGORIES).toBe('kcp');
  });

  it('api-versions lists every group/version once, sorted', async () => {
    const versions = lines((await k(['api-versions'])).stdout);
    expect(versions).toEqual([...versions].sort());
    expect(new Set(versions).size).toBe(versions.length);
    for (const gv of [
      'coordination.k8s.io/v1',
      'core.kcp.io/v1alpha1',
      'events.k8s.io/v1',
      'rbac.authorization.k8s.io/v1',
      'v1',
    ]) {
      expect(versions).toContain(gv);
    }
  });

  it('explain configmap.data prints the field from OpenAPI v3', async () => {
    const out = lines((await k(['explain', 'configmap.data'])).stdout);
    expect(out[0]).toMatch(/^KIND:\s+ConfigMap$/);
    expect(out[1]).toMatch(/^VERSION:\s+v1$/);
    expect(out).toContainEqual(expect.stringMatching(/^FIELD:\s+data <map\[string\]string>$/));
    const description = out.indexOf('DESCRIPTION:');
    expect(description, out.join('\n')).toBeGreaterThan(1);
    expect(out[description + 1]?.trim(), 'a description line follows').toMatch(/\w/);
  });

  it('explain configmap lists its fields', async () => {
    const out = lines((await k(['explain', 'configmap'])).stdout);
    expect(out[0]).toMatch(/^KIND:\s+ConfigMap$/);
    expect(out).toContain('FIELDS:');
    for (const field of [/^\s+apiVersion\s+<string>$/, /^\s+data\s+<map\[string\]string>$/, /^\s+metadata\s+<ObjectMeta>$/]) {
      expect(out).toContainEqual(expect.stringMatching(field));
    }
  });

  describe('get --raw on discovery', () => {
    const raw = async (path: string) => JSON.parse((await k(['get', '--raw', path])).stdout);
    // `get --raw` ignores the path of --server, so the cluster prefix is part of the raw path.
    const prefix = `/clusters/${cluster}`;

    it('/api', async () => {
      const body = await raw(`${prefix}/api`);
      expect(body.kind).toBe('APIVersions');
      expect(body.versions).toEqual(['v1']);
    });

    it('/apis', async () => {
      const body = await raw(`${prefix}/apis`);
      expect(body.kind).toBe('APIGroupList');
      const groups = Object.fromEntries(
        (body.groups as { name: string; preferredVersion: { groupVersion: string } }[]).map((g) => [
          g.name,
          g.preferredVersion.groupVersion,
        ]),
      );
      expect(groups).toMatchObject({
        'coordination.k8s.io': 'coordination.k8s.io/v1',
        'events.k8s.io': 'events.k8s.io/v1',
        'rbac.authorization.k8s.io': 'rbac.authorization.k8s.io/v1',
        'core.kcp.io': 'core.kcp.io/v1alpha1',
      });
      expect(Object.keys(groups)).not.toContain('');
    });

    it('/api/v1', async () => {
      const body = await raw(`${prefix}/api/v1`);
      expect(body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
      const byName = new Map((body.resources as { name: string }[]).map((r) => [r.name, r]));
      expect(byName.get('configmaps')).toMatchObject({
        name: 'configmaps',
        singularName: 'configmap',
        namespaced: true,
        kind: 'ConfigMap',
        shortNames: ['cm'],
      });
      expect(byName.get('namespaces')).toMatchObject({ namespaced: false, kind: 'Namespace', shortNames: ['ns'] });
      expect([...byName.keys()]).toEqual(
        expect.arrayContaining(['secrets', 'serviceaccounts', 'events', 'namespaces/status', 'namespaces/finalize']),
      );
    });

    it('/apis/rbac.authorization.k8s.io/v1', async () => {
      const body = await raw(`${prefix}/apis/rbac.authorization.k8s.io/v1`);
      expect(body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'rbac.authorization.k8s.io/v1' });
      expect((body.resources as { name: string }[]).map((r) => r.name).sort()).toEqual(
        expect.arrayContaining(['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']),
      );
    });

    it('/version', async () => {
      for (const path of [`${prefix}/version`, '/version']) {
        const body = await raw(path);
        expect(body, path).toMatchObject({ major: '1', minor: '32' });
        expect(body.gitVersion, path).toMatch(/^v1\.32\.\d+/);
      }
    });

    it('/openapi/v3 and the api/v1 document kubectl validates against', async () => {
      const index = await raw(`${prefix}/openapi/v3`);
      for (const gv of ['api/v1', 'apis/coordination.k8s.io/v1', 'apis/rbac.authorization.k8s.io/v1', 'apis/core.kcp.io/v1alpha1']) {
        expect(index.paths?.[gv]?.serverRelativeURL, `index entry ${gv}`).toMatch(
          new RegExp(`^/openapi/v3/${gv.replace(/\./g, '\\.')}\\?hash=\\w+`),
        );
      }
      const doc = await raw(`${prefix}${index.paths['api/v1'].serverRelativeURL as string}`);
      expect(doc.openapi).toMatch(/^3\./);
      const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']?.patch;
      expect(patch?.['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
      const params = [...(patch?.parameters ?? []), ...(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']?.parameters ?? [])]
        .map((p: { name?: string; $ref?: string }) => p.name ?? p.$ref ?? '');
      expect(params.some((p: string) => /fieldValidation/.test(p)), JSON.stringify(params)).toBe(true);
    });
  });

  describe('get', () => {
    it('plain: NAME DATA AGE', async () => {
      const table = parseTable((await k(['get', 'cm', '-n', ns])).stdout);
      expect(table.header).toEqual(['NAME', 'DATA', 'AGE']);
      const rows = ours(table.records);
      expect(rows.map((r) => [r.NAME, r.DATA])).toEqual([
        ['alpha', '1'],
        ['bravo', '2'],
        ['charlie', '0'],
        ['delta', '3'],
      ]);
      for (const r of rows) expect(r.AGE).toMatch(freshAge);
    });

    it('one object by name, and cm/name form', async () => {
      for (const args of [['get', 'cm', 'bravo'], ['get', 'cm/bravo']]) {
        const table = parseTable((await k([...args, '-n', ns])).stdout);
        expect(table.header).toEqual(['NAME', 'DATA', 'AGE']);
        expect(table.rows.map((r) => r.slice(0, 2))).toEqual([['bravo', '2']]);
      }
    });

    it('namespaces: NAME STATUS AGE with Active', async () => {
      const table = parseTable((await k(['get', 'ns', ns])).stdout);
      expect(table.header).toEqual(['NAME', 'STATUS', 'AGE']);
      expect(table.rows.map((r) => r.slice(0, 2))).toEqual([[ns, 'Active']]);
      expect(table.records[0]!.AGE).toMatch(freshAge);
    });

    it('-o wide', async () => {
      const table = parseTable((await k(['get', 'cm', '-n', ns, '-o', 'wide'])).stdout);
      expect(table.header).toEqual(['NAME', 'DATA', 'AGE']);
      expect(ours(table.records).map((r) => r.NAME)).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    });

    it('-o yaml: the stored object with kcp.io/cluster', async () => {
      const obj = parseYaml((await k(['get', 'cm', 'bravo', '-n', ns, '-o', 'yaml'])).stdout);
      expect(obj).toMatchObject({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        data: { a: '1', b: '2' },
        metadata: {
          name: 'bravo',
          namespace: ns,
          labels: { app: 'web', tier: 'back', mark: ns },
          annotations: { order: '2', 'kcp.io/cluster': cluster },
        },
      });
      expect(obj.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(obj.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
      expect(obj.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('-o json: one object, and a List for a collection', async () => {
      const one = JSON.parse((await k(['get', 'cm', 'alpha', '-n', ns, '-o', 'json'])).stdout);
      expect(one).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'alpha' }, data: { a: '1' } });
      const list = JSON.parse((await k(['get', 'cm', '-n', ns, '-l', `mark=${ns}`, '-o', 'json'])).stdout);
      expect(list.kind).toBe('List');
      expect(list.items.map((i: any) => [i.kind, i.apiVersion, i.metadata.name, i.metadata.annotations['kcp.io/cluster']])).toEqual([
        ['ConfigMap', 'v1', 'alpha', cluster],
        ['ConfigMap', 'v1', 'bravo', cluster],
        ['ConfigMap', 'v1', 'charlie', cluster],
        ['ConfigMap', 'v1', 'delta', cluster],
      ]);
    });

    it('-o jsonpath and -o name', async () => {
      expect((await k(['get', 'cm', 'delta', '-n', ns, '-o', 'jsonpath={.data.z}'])).stdout).toBe('w');
      const names = await k([
        'get', 'cm', '-n', ns, '-l', `mark=${ns}`, '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.annotations.order}{"\\n"}{end}',
      ]);
      expect(lines(names.stdout)).toEqual(['alpha=4', 'bravo=2', 'charlie=3', 'delta=1']);
      expect(lines((await k(['get', 'cm', '-n', ns, '-l', 'app=web', '-o', 'name'])).stdout)).toEqual([
        'configmap/alpha',
        'configmap/bravo',
      ]);
    });

    it('-A adds the NAMESPACE column', async () => {
      const table = parseTable((await k(['get', 'cm', '-A', '-l', `mark=${ns}`])).stdout);
      expect(table.header).toEqual(['NAMESPACE', 'NAME', 'DATA', 'AGE']);
      expect(table.rows.map((r) => r.slice(0, 3))).toEqual([
        [ns, 'alpha', '1'],
        [ns, 'bravo', '2'],
        [ns, 'charlie', '0'],
        [ns, 'delta', '3'],
      ]);
      // Without a selector our rows are among all the cluster's configmaps.
      const everything = parseTable((await k(['get', 'configmaps', '--all-namespaces'])).stdout);
      expect(everything.header).toEqual(['NAMESPACE', 'NAME', 'DATA', 'AGE']);
      expect(everything.records.filter((r) => r.NAMESPACE === ns && r.NAME !== 'kube-root-ca.crt').map((r) => r.NAME)).toEqual([
        'alpha',
        'bravo',
        'charlie',
        'delta',
      ]);
    });

    it('-l with every selector form', async () => {
      const names = async (selector: string) =>
        parseTable((await k(['get', 'cm', '-n', ns, '-l', selector])).stdout).rows.map((r) => r[0]);
      expect(await names('app=web')).toEqual(['alpha', 'bravo']);
      expect(await names('app==web,tier!=back')).toEqual(['alpha']);
      expect(await names('app in (web,db),tier notin (back)')).toEqual(['alpha', 'charlie']);
      expect(await names('tier')).toEqual(['alpha', 'bravo']);
      expect(await names('!tier')).toEqual(['charlie', 'delta']);
      const none = await k(['get', 'cm', '-n', ns, '-l', 'app=none']);
      expect(none.stdout).toBe('');
      expect(lines(none.stderr)).toEqual([`No resources found in ${ns} namespace.`]);
    });

    it('--field-selector metadata.name / metadata.namespace', async () => {
      const byName = parseTable((await k(['get', 'cm', '-n', ns, '--field-selector', 'metadata.name=bravo'])).stdout);
      expect(byName.rows.map((r) => r.slice(0, 2))).toEqual([['bravo', '2']]);
      const notName = parseTable(
        (await k(['get', 'cm', '-n', ns, '-l', `mark=${ns}`, '--field-selector', 'metadata.name!=bravo'])).stdout,
      );
      expect(notName.rows.map((r) => r[0])).toEqual(['alpha', 'charlie', 'delta']);
      const byNamespace = parseTable(
        (await k(['get', 'cm', '-A', '-l', `mark=${ns}`, '--field-selector', `metadata.namespace=${ns}`])).stdout,
      );
      expect(byNamespace.rows.map((r) => r[1])).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    });

    it('--chunk-size=1 pages through everything with one header', async () => {
      const out = (await k(['get', 'cm', '-n', ns, '-l', `mark=${ns}`, '--chunk-size=1'])).stdout;
      const table = parseTable(out);
      expect(table.header).toEqual(['NAME', 'DATA', 'AGE']);
      expect(table.rows.map((r) => r.slice(0, 2))).toEqual([
        ['alpha', '1'],
        ['bravo', '2'],
        ['charlie', '0'],
        ['delta', '3'],
      ]);
      const json = JSON.parse((await k(['get', 'cm', '-n', ns, '-l', `mark=${ns}`, '--chunk-size=1', '-o', 'json'])).stdout);
      expect(json.items.map((i: any) => i.metadata.name)).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    });

    it('--show-kind prefixes names with the kind', async () => {
      const table = parseTable((await k(['get', 'cm', '-n', ns, '-l', 'app=web', '--show-kind'])).stdout);
      expect(table.header).toEqual(['NAME', 'DATA', 'AGE']);
      expect(table.rows.map((r) => r.slice(0, 2))).toEqual([
        ['configmap/alpha', '1'],
        ['configmap/bravo', '2'],
      ]);
    });

    it('--show-labels adds LABELS', async () => {
      const table = parseTable((await k(['get', 'cm', 'charlie', '-n', ns, '--show-labels'])).stdout);
      expect(table.header).toEqual(['NAME', 'DATA', 'AGE', 'LABELS']);
      expect(table.records[0]!.LABELS).toBe(`app=db,mark=${ns}`);
    });

    it('--sort-by', async () => {
      const sorted = async (key: string) =>
        parseTable((await k(['get', 'cm', '-n', ns, '-l', `mark=${ns}`, `--sort-by=${key}`])).stdout).rows.map((r) => r[0]);
      expect(await sorted('.metadata.name')).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
      expect(await sorted('.metadata.annotations.order')).toEqual(['delta', 'bravo', 'charlie', 'alpha']);
    });

    it('secrets: NAME TYPE DATA AGE', async () => {
      const name = uniqueName('sec');
      await k(['create', 'secret', 'generic', name, '-n', ns, '--from-literal=user=admin', '--from-literal=pw=x']);
      const table = parseTable((await k(['get', 'secret', name, '-n', ns])).stdout);
      expect(table.header).toEqual(['NAME', 'TYPE', 'DATA', 'AGE']);
      expect(table.rows.map((r) => r.slice(0, 3))).toEqual([[name, 'Opaque', '2']]);
    });
  });

  describe('errors', () => {
    it('get a missing object: NotFound', async () => {
      expectError(
        await k(['get', 'cm', 'nope', '-n', ns], { reject: false }),
        'Error from server (NotFound): configmaps "nope" not found',
      );
      expectError(await k(['get', 'ns', uniqueName('nope')], { reject: false }), /^Error from server \(NotFound\): namespaces "nope-\w+" not found$/);
    });

    it('get in a namespace that does not exist: kubectl follows the 404 up and names the namespace', async () => {
      // kube-apiserver answers `configmaps "nope" not found`; kubectl then GETs the namespace and, finding it
      // missing too, prints that instead (observed on the wire with -v=8).
      const missing = uniqueName('nons');
      expectError(
        await k(['get', 'cm', 'nope', '-n', missing], { reject: false }),
        `Error from server (NotFound): namespaces "${missing}" not found`,
      );
      // The server's own answer names the object.
      expectError(
        await k(['get', '--raw', `/clusters/${cluster}/api/v1/namespaces/${missing}/configmaps/nope`], { reject: false }),
        'Error from server (NotFound): configmaps "nope" not found',
      );
    });

    it('bad label selector: BadRequest', async () => {
      expectError(
        await k(['get', 'cm', '-n', ns, '-l', 'app in (web'], { reject: false }),
        /^Error from server \(BadRequest\): Unable to find "\/v1, Resource=configmaps" that match label selector "app in \(web", field selector "": .+/,
      );
    });

    it('unsupported field selector: BadRequest', async () => {
      expectError(
        await k(['get', 'cm', '-n', ns, '--field-selector', 'data.a=1'], { reject: false }),
        /^Error from server \(BadRequest\): Unable to find "\/v1, Resource=configmaps" that match label selector "", field selector "data\.a=1": .*field label not supported: data\.a/,
      );
    });

    it('unknown resource type', async () => {
      expectError(
        await k(['get', 'pods'], { reject: false }),
        'error: the server doesn\'t have a resource type "pods"',
      );
    });
  });

  it('nothing of this cluster is visible in the other one', async () => {
    const other = e2e.k(e2e.other(cluster));
    await expectNotFound(other, 'ns', ns);
    const cm = await other(['get', 'cm', 'alpha', '-n', ns], { reject: false });
    expectError(cm, /^Error from server \(NotFound\): (configmaps "alpha"|namespaces "basics-\w+") not found$/);
    const listed = await other(['get', 'cm', '-A', '-l', `mark=${ns}`]);
    expect(listed.stdout).toBe('');
    expect(lines(listed.stderr)).toEqual(['No resources found']);
  });
});

describe('aggregated discovery negotiation (what kubectl 1.27 … 1.33 rely on)', () => {
  const accept = (v: string) => `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;
  const params = (contentType: string | string[] | undefined) =>
    Object.fromEntries(
      String(contentType)
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('='))
        // Quoted parameter values are equivalent (RFC 9110) and Go's mime.ParseMediaType reads both.
        .map(([key, value]) => [key, (value ?? '').replace(/^"(.*)"$/, '$1')]),
    );

  it.each(['v2', 'v2beta1'])('/api and /apis answer %s when asked', async (version) => {
    for (const path of ['/clusters/root/api', '/clusters/root/apis', `/clusters/${e2e.second}/apis`]) {
      const answer = await apiRequest(e2e.server, path, { headers: { accept: `${accept(version)},application/json` } });
      expect(answer.status, path).toBe(200);
      expect(String(answer.headers['content-type']).split(';')[0], path).toBe('application/json');
      expect(params(answer.headers['content-type']), path).toMatchObject({
        g: 'apidiscovery.k8s.io',
        v: version,
        as: 'APIGroupDiscoveryList',
      });
      const body = answer.json();
      expect(body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}` });
      expect(String(answer.headers.vary ?? '').toLowerCase()).toContain('accept');
    }
  });

  it('aggregated /api lists configmaps with responseKind', async () => {
    const body = (await apiRequest(e2e.server, '/clusters/root/api', { headers: { accept: accept('v2') } })).json();
    const core = body.items.find((g: any) => (g.metadata?.name ?? '') === '');
    const v1 = core.versions.find((v: any) => v.version === 'v1');
    expect(v1.resources.find((r: any) => r.resource === 'configmaps')).toMatchObject({
      resource: 'configmaps',
      singularResource: 'configmap',
      scope: 'Namespaced',
      responseKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      shortNames: ['cm'],
    });
  });

  it('plain application/json gets the legacy shapes', async () => {
    const api = await apiRequest(e2e.server, '/clusters/root/api', { headers: { accept: 'application/json' } });
    expect(api.json().kind).toBe('APIVersions');
    const apis = await apiRequest(e2e.server, '/clusters/root/apis', { headers: { accept: 'application/json' } });
    expect(apis.json().kind).toBe('APIGroupList');
  });
});

describe.each(matrixBinaries().map((b) => ({ ...b, label: `kubectl ${b.version}` })))('$label', (binary) => {
  let cacheDir = '';
  beforeAll(async () => {
    // Each binary gets its own discovery cache: a cache written by another version would hide this one's
    // discovery requests (1.27 and 1.28 ask for aggregated v2beta1 only).
    cacheDir = await mkdtemp(join(tmpdir(), `kcpt-e2e-kubectl-${binary.version}-`));
  });
  afterAll(async () => {
    if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  });

  describe.each(e2e.clusters)('in $label', ({ name: cluster }) => {
    const run = (args: string[], reject = true) =>
      kubectl(e2e.server, [...clusterArgs(e2e.server, cluster), ...args], {
        binary: binary.path,
        env: { KUBECACHEDIR: cacheDir },
        reject,
      });

    it('version reports the server as 1.32', async () => {
      const json = JSON.parse((await run(['version', '-o', 'json'])).stdout);
      expect(json.clientVersion.minor).toBe(binary.version.split('.')[1]);
      expect(json.serverVersion).toMatchObject({ major: '1', minor: '32' });
      expect(json.serverVersion.gitVersion).toMatch(/^v1\.32\.\d+/);
    });

    it('create, get, delete a configmap', async () => {
      const name = uniqueName(`m${binary.version.replace('.', '')}`);
      expect((await run(['create', 'configmap', name, '-n', 'default', '--from-literal=k=v'])).stdout).toBe(
        `configmap/${name} created`,
      );
      const table = parseTable((await run(['get', 'cm', name, '-n', 'default'])).stdout);
      expect(table.header).toEqual(['NAME', 'DATA', 'AGE']);
      expect(table.rows.map((r) => r.slice(0, 2))).toEqual([[name, '1']]);
      expect((await run(['get', 'cm', name, '-n', 'default', '-o', 'jsonpath={.data.k}'])).stdout).toBe('v');
      const resources = parseTable((await run(['api-resources'])).stdout);
      expect(resources.records.find((r) => r.NAME === 'configmaps' && r.APIVERSION === 'v1')).toMatchObject({ SHORTNAMES: 'cm', KIND: 'ConfigMap' });
      expect((await run(['delete', 'cm', name, '-n', 'default'])).stdout).toBe(`configmap "${name}" deleted`);
      expectError(await run(['get', 'cm', name, '-n', 'default'], false), `Error from server (NotFound): configmaps "${name}" not found`);
    });
  });
});
