import { describe, expect, it } from 'vitest';
import { configMaps, limitRanges, namespaces, resourceQuotas, secrets, serviceAccounts } from './resources.js';
import { headers, runCreate, runUpdate } from '../test-support.js';

const now = Date.parse('2024-01-01T01:00:00Z');
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('namespaces', () => {
  it('are created Active with the kubernetes finalizer and the name label, whatever the client sent', () => {
    const { obj, errors } = runCreate(namespaces, {
      metadata: { name: 'team-a', labels: { [`kubernetes.io/metadata.name`]: 'spoofed', app: 'x' } },
      status: { phase: 'Terminating' },
    });
    expect(errors).toEqual([]);
    expect(obj.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(obj.status).toEqual({ phase: 'Active' });
    expect(obj.metadata?.labels).toEqual({ app: 'x', 'kubernetes.io/metadata.name': 'team-a' });
  });

  it('keep spec.finalizers and status on a plain update (they change only through /finalize and /status)', () => {
    const old = runCreate(namespaces, { metadata: { name: 'a' } }).obj;
    const { obj, errors } = runUpdate(namespaces, old, {
      metadata: { name: 'a', labels: { team: 'x' } },
      spec: { finalizers: [] },
      status: { phase: 'Terminating' },
    });
    expect(errors).toEqual([]);
    expect(obj.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(obj.status).toEqual({ phase: 'Active' });
    expect(obj.metadata?.labels).toEqual({ team: 'x', 'kubernetes.io/metadata.name': 'a' });
  });

  it('reject finalizer names that are neither standard nor qualified', () => {
    const { errors } = runCreate(namespaces, { metadata: { name: 'a' }, spec: { finalizers: ['custom'] } });
    expect(errors).toEqual([
      'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    expect(runCreate(namespaces, { metadata: { name: 'a' }, spec: { finalizers: ['example.com/x'] } }).errors).toEqual([]);
  });

  it('turn Terminating on delete while spec.finalizers remain, and check the phase on status writes', () => {
    const ns = runCreate(namespaces, { metadata: { name: 'a' } }).obj;
    expect(namespaces.strategy.deletionBlockers?.(ns)).toEqual(['kubernetes']);
    namespaces.strategy.prepareForDelete?.(ns);
    expect(ns.status).toEqual({ phase: 'Terminating' });

    const live = runCreate(namespaces, { metadata: { name: 'b' } }).obj;
    const statusWrite = { ...structuredClone(live), status: { phase: 'Terminating' } };
    expect(namespaces.strategy.validateUpdate?.(statusWrite, live, { cluster: 'c1' })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'status.Phase',
        detail: 'Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
      },
    ]);
  });

  it('are cluster-scoped label-named resources with status and finalize, and print NAME STATUS AGE', () => {
    expect(namespaces).toMatchObject({ namespaced: false, shortNames: ['ns'], subresources: { status: true, finalize: true } });
    expect(namespaces.verbs).not.toContain('deletecollection');
    expect(namespaces.strategy.nameValidation).toBe('label');
    expect(headers(namespaces)).toEqual(['NAME', 'STATUS', 'AGE']);
    const ns = { metadata: { name: 'a', creationTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Active' } };
    expect(namespaces.printer?.cells(ns, now)).toEqual(['a', 'Active', '60m']);
    expect(namespaces.fieldSelectors?.['status.phase']?.(ns)).toBe('Active');
  });
});

describe('configmaps', () => {
  it('reject bad keys with kube’s message and a key present in both data and binaryData', () => {
    const { errors } = runCreate(configMaps, {
      metadata: { name: 'c' },
      data: { 'bad key': 'x', dup: 'y', '..hidden': 'z' },
      binaryData: { dup: b64('y') },
    });
    expect(errors).toEqual([
      "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      'data[dup]: Invalid value: "dup": duplicate of key present in binaryData',
      "data[..hidden]: Invalid value: \"..hidden\": must not start with '..'",
    ]);
  });

  it('freeze data and binaryData once immutable is set', () => {
    const old = runCreate(configMaps, { metadata: { name: 'c' }, immutable: true, data: { a: '1' } }).obj;
    expect(runUpdate(configMaps, old, { ...old, metadata: { name: 'c', labels: { x: 'y' } } }).errors).toEqual([]);
    expect(runUpdate(configMaps, old, { ...old, data: { a: '2' } }).errors).toEqual([
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(runUpdate(configMaps, old, { ...old, immutable: false }).errors).toEqual([
      'immutable: Forbidden: field is immutable when `immutable` is set',
    ]);
  });

  it('reject more than 1 MiB of data', () => {
    const { errors } = runCreate(configMaps, { metadata: { name: 'c' }, data: { big: 'x'.repeat(1024 * 1024 + 1) } });
    expect(errors).toEqual([': Too long: may not be more than 1048576 bytes']);
  });

  it('print DATA as the number of data and binaryData keys', () => {
    expect(headers(configMaps)).toEqual(['NAME', 'DATA', 'AGE']);
    const cm = { metadata: { name: 'c', creationTimestamp: '2024-01-01T00:59:30Z' }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } };
    expect(configMaps.printer?.cells(cm, now)).toEqual(['c', 3, '30s']);
    expect(configMaps).toMatchObject({ shortNames: ['cm'], storagePrefix: 'core/configmaps', storageVersionHash: 'qFsyl6wFWjQ=' });
  });
});

describe('secrets', () => {
  it('fold stringData into base64 data, default the type to Opaque, and never store stringData', () => {
    const { obj, errors } = runCreate(secrets, {
      metadata: { name: 's' },
      data: { a: b64('old'), b: b64('keep') },
      stringData: { a: 'new', c: 'ünï' },
    });
    expect(errors).toEqual([]);
    expect(obj).not.toHaveProperty('stringData');
    expect(obj.type).toBe('Opaque');
    expect(obj.data).toEqual({ a: b64('new'), b: b64('keep'), c: b64('ünï') });
  });

  it('require the keys of well-known types', () => {
    const create = (type: string, data: Record<string, string>, annotations?: Record<string, string>) =>
      runCreate(secrets, { metadata: { name: 's', annotations }, type, data }).errors;
    expect(create('kubernetes.io/tls', {})).toEqual(['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
    expect(create('kubernetes.io/service-account-token', {})).toEqual([
      'metadata.annotations[kubernetes.io/service-account.name]: Required value',
    ]);
    expect(create('kubernetes.io/service-account-token', {}, { 'kubernetes.io/service-account.name': 'default' })).toEqual([]);
    expect(create('kubernetes.io/basic-auth', {})).toEqual(['data[username]: Required value', 'data[password]: Required value']);
    expect(create('kubernetes.io/basic-auth', { password: '' })).toEqual([]);
    expect(create('kubernetes.io/ssh-auth', {})).toEqual(['data[ssh-privatekey]: Required value']);
    expect(create('kubernetes.io/dockerconfigjson', {})).toEqual(['data[.dockerconfigjson]: Required value']);
    expect(create('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('{"auths":{}}') })).toEqual([]);
    expect(create('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('nope') })[0]).toMatch(
      /^data\[\.dockerconfigjson\]: Invalid value: "<secret contents redacted>": /,
    );
  });

  it('refuse a docker config that is not a JSON object with json.Unmarshal’s words, never quoting the contents', () => {
    const refusal = (type: string, key: string, contents: string) =>
      runCreate(secrets, { metadata: { name: 's' }, type, data: { [key]: b64(contents) } }).errors;
    const redacted = (key: string, why: string) => [`data[${key}]: Invalid value: "<secret contents redacted>": ${why}`];
    expect(refusal('kubernetes.io/dockerconfigjson', '.dockerconfigjson', '{"auths":{"r":{"password":"hunter2"}}')).toEqual(
      redacted('.dockerconfigjson', 'unexpected end of JSON input'),
    );
    expect(refusal('kubernetes.io/dockerconfigjson', '.dockerconfigjson', '{"auths": hunter2}')).toEqual(
      redacted('.dockerconfigjson', "invalid character 'h' looking for beginning of value"),
    );
    expect(refusal('kubernetes.io/dockercfg', '.dockercfg', '["hunter2"]')).toEqual(
      redacted('.dockercfg', 'json: cannot unmarshal array into Go value of type map[string]interface {}'),
    );
    // JSON null unmarshals into a nil map: no error.
    expect(refusal('kubernetes.io/dockerconfigjson', '.dockerconfigjson', 'null')).toEqual([]);
  });

  it('reject data that is not base64', () => {
    const { errors } = runCreate(secrets, { metadata: { name: 's' }, data: { a: 'not base64!' } });
    expect(errors).toEqual(['data[a]: Invalid value: "<secret contents redacted>": illegal base64 data at input byte 3']);
  });

  it('keep the type and, once immutable, the data', () => {
    const old = runCreate(secrets, { metadata: { name: 's' }, immutable: true, data: { a: b64('1') } }).obj;
    expect(runUpdate(secrets, old, { ...old, type: 'kubernetes.io/tls' }).errors).toContain(
      'type: Invalid value: "kubernetes.io/tls": field is immutable',
    );
    expect(runUpdate(secrets, old, { ...old, stringData: { a: '2' } }).errors).toEqual([
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });

  it('warn about a TLS secret whose certificate is not PEM', () => {
    const { warnings, errors } = runCreate(secrets, {
      metadata: { name: 's' },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': 'junk', 'tls.key': 'junk' },
    });
    expect(errors).toEqual([]);
    expect(warnings).toEqual(['tls: failed to find any PEM data in certificate input']);
  });

  it('print TYPE and DATA, and select by type', () => {
    expect(headers(secrets)).toEqual(['NAME', 'TYPE', 'DATA', 'AGE']);
    const s = { metadata: { name: 's', creationTimestamp: '2023-12-30T01:00:00Z' }, type: 'Opaque', data: { a: 'AA==' } };
    expect(secrets.printer?.cells(s, now)).toEqual(['s', 'Opaque', 1, '2d']);
    expect(secrets.fieldSelectors?.type?.(s)).toBe('Opaque');
  });
});

describe('serviceaccounts', () => {
  it('keep only secret names and warn about the deprecated enforce-mountable-secrets annotation', () => {
    const { obj, warnings } = runCreate(serviceAccounts, {
      metadata: { name: 'sa', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } },
      secrets: [{ name: 'tok', namespace: 'x', uid: 'u' }],
    });
    expect(obj.secrets).toEqual([{ name: 'tok' }]);
    expect(warnings).toEqual([
      'metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets',
    ]);
    expect(headers(serviceAccounts)).toEqual(['NAME', 'SECRETS', 'AGE']);
    expect(serviceAccounts.printer?.cells(obj, now)).toEqual(['sa', 1, '60m']);
  });
});

describe('resourcequotas', () => {
  it('validate resource names and quantities like kube', () => {
    const { errors } = runCreate(resourceQuotas, {
      metadata: { name: 'q' },
      spec: { hard: { pods: '1.5', 'requests.cpu': '-1', storage: '1Gi', 'count/deployments.apps': '10', cpu: 'lots' } },
    });
    expect(errors).toEqual([
      'spec.hard[pods]: Invalid value: "1.5": must be an integer',
      'spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
      "spec.hard[cpu]: Invalid value: \"lots\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ]);
  });

  it('reject conflicting scopes and keep scopes immutable', () => {
    const conflicting = runCreate(resourceQuotas, { metadata: { name: 'q' }, spec: { scopes: ['BestEffort', 'NotBestEffort'] } });
    expect(conflicting.errors).toEqual(['spec.scopes: Invalid value: []string{"BestEffort", "NotBestEffort"}: conflicting scopes']);
    const old = runCreate(resourceQuotas, { metadata: { name: 'q' }, spec: { scopes: ['BestEffort'] } }).obj;
    expect(runUpdate(resourceQuotas, old, { ...old, spec: { scopes: ['Terminating'] } }).errors).toEqual([
      'spec.scopes: Invalid value: []string{"Terminating"}: field is immutable',
    ]);
  });

  it('print NAME AGE REQUEST LIMIT: spec.hard names with status numbers, sorted by resource', () => {
    expect(headers(resourceQuotas)).toEqual(['NAME', 'AGE', 'REQUEST', 'LIMIT']);
    const hard = { 'limits.cpu': '2', pods: '10', 'requests.memory': '1Gi', 'limits.memory': '2Gi' };
    const fresh = { metadata: { name: 'q', creationTimestamp: '2024-01-01T00:00:00Z' }, spec: { hard } };
    // Before the controller has published status, kube prints 0/0 for every name.
    expect(resourceQuotas.printer?.cells(fresh, now)).toEqual([
      'q',
      '60m',
      'pods: 0/0, requests.memory: 0/0',
      'limits.cpu: 0/0, limits.memory: 0/0',
    ]);
    const q = {
      metadata: { name: 'q', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { hard },
      status: {
        hard: { 'limits.cpu': '2', pods: '10', 'requests.memory': '1Gi', 'limits.memory': '2Gi' },
        used: { pods: '3', 'limits.cpu': '500m' },
      },
    };
    expect(resourceQuotas.printer?.cells(q, now)).toEqual([
      'q',
      '60m',
      'pods: 3/10, requests.memory: 0/1Gi',
      'limits.cpu: 500m/2, limits.memory: 0/2Gi',
    ]);
    expect(runCreate(resourceQuotas, q).obj).not.toHaveProperty('status');
  });
});

describe('limitranges', () => {
  it('default container limits and requests from max and min', () => {
    const { obj, errors } = runCreate(limitRanges, {
      metadata: { name: 'l' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] },
    });
    expect(errors).toEqual([]);
    expect(obj.spec).toEqual({
      limits: [
        {
          type: 'Container',
          max: { cpu: '2' },
          min: { memory: '64Mi' },
          default: { cpu: '2' },
          defaultRequest: { cpu: '2', memory: '64Mi' },
        },
      ],
    });
  });

  it('reject defaults on Pod items and duplicate types; print NAME CREATED AT', () => {
    const { errors } = runCreate(limitRanges, {
      metadata: { name: 'l' },
      spec: { limits: [{ type: 'Pod', default: { cpu: '1' } }, { type: 'Pod' }] },
    });
    expect(errors).toEqual([
      "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
      'spec.limits[1].type: Duplicate value: "Pod"',
    ]);
    expect(headers(limitRanges)).toEqual(['NAME', 'CREATED AT']);
    expect(limitRanges.printer?.cells({ metadata: { name: 'l', creationTimestamp: '2024-01-01T00:00:00Z' } }, now)).toEqual([
      'l',
      '2024-01-01T00:00:00Z',
    ]);
  });
});
