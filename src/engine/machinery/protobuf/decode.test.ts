/**
 * Real bytes: every testdata/*.pb was captured from kubectl 1.32.4 talking to a fake server (testdata/README.md).
 * For `create` commands the expectation is kubectl's own `--dry-run=client -o json` output of the same command,
 * minus the nulls and empty structs Go prints for non-omitempty fields (`creationTimestamp: null`, `status: {}`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeProtobuf } from '../../builtin/protobuf.js';
import { ProtobufDecodeError } from './index.js';
import { encodeKube, envelope, encodeMessage, gogoMeta, MAGIC } from '../../builtin/protobuf-test-support.js';

const dir = join(import.meta.dirname, 'testdata');
const pb = (name: string): Buffer => readFileSync(join(dir, `${name}.pb`));

/** Drop nulls and empty objects, recursively; keep "" and list elements (map values like `data.empty: ""`). */
function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(prune);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const p = prune(x);
    if (p === null || (typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0)) continue;
    out[k] = p;
  }
  return out;
}

describe('kubectl create fixtures match kubectl --dry-run=client -o json', () => {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.kubectl.json'))
    .map((f) => f.slice(0, -'.kubectl.json'.length));

  it('has the fixtures', () => {
    expect(names.length).toBeGreaterThanOrEqual(16);
  });

  it.each(names)('%s', (name) => {
    const want = JSON.parse(readFileSync(join(dir, `${name}.kubectl.json`), 'utf8')) as Record<string, unknown>;
    const got = kubeProtobuf.decode(pb(name));
    expect(got.apiVersion).toBe(want.apiVersion);
    expect(got.kind).toBe(want.kind);
    expect(got.object).toStrictEqual(prune(want));
  });

  it('accepts a plain Uint8Array as well as a Buffer', () => {
    expect(kubeProtobuf.decode(new Uint8Array(pb('secret'))).object).toStrictEqual(kubeProtobuf.decode(pb('secret')).object);
  });

  it('keeps empty map values and the core group ""', () => {
    expect(kubeProtobuf.decode(pb('configmap')).object.data).toStrictEqual({ a: 'b', empty: '' });
    expect(kubeProtobuf.decode(pb('secret')).object.data).toStrictEqual({ e: '', pw: 'aHVudGVyMg==' });
    const role = kubeProtobuf.decode(pb('role')).object as { rules: { apiGroups: string[] }[] };
    expect(role.rules[0]?.apiGroups).toStrictEqual(['']);
  });

  it('turns binaryData bytes into base64 and IntOrString into number or string', () => {
    const cm = kubeProtobuf.decode(pb('configmap-binary')).object;
    expect(cm.binaryData).toStrictEqual({ blob: Buffer.from('hello\x00\xff\xfe binary', 'latin1').toString('base64') });
    const svc = kubeProtobuf.decode(pb('service-clusterip')).object as { spec: { ports: { targetPort: unknown }[] } };
    expect(svc.spec.ports.map((p) => p.targetPort)).toStrictEqual([8080, 'https']);
  });
});

/**
 * client-go v0.37's generated clientsets send built-in kinds in protobuf unless told otherwise: the apiextensions
 * clientset's CRDs and the event recorders' events.k8s.io Events (testdata/README.md). The expectation is Go's
 * encoding/json of the same object; Go writes fields that are not omitempty even when zero (`storage: false`,
 * `acceptedNames: {plural: ""}`), which a JSON client may leave out, so both sides are compared without zero values,
 * and the zeros whose presence means something are checked on their own.
 */
describe('client-go fixtures match encoding/json of the same object', () => {
  const withoutZeros = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(withoutZeros);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = withoutZeros(x);
      if (p === null || p === '' || p === false || p === 0 || (typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0)) continue;
      out[k] = p;
    }
    return out;
  };
  const fixture = (name: string) => ({
    got: kubeProtobuf.decode(pb(name)),
    want: JSON.parse(readFileSync(join(dir, `${name}.client-go.json`), 'utf8')) as Record<string, unknown>,
  });

  it.each(['event-recorder', 'event-series', 'crd'])('%s', (name) => {
    const { got, want } = fixture(name);
    expect([got.apiVersion, got.kind]).toStrictEqual([want.apiVersion, want.kind]);
    expect(withoutZeros(got.object)).toStrictEqual(withoutZeros(want));
  });

  it('keeps the CRD zeros that mean something, under their JSON names', () => {
    const crd = fixture('crd').got.object as any;
    const [v1, v1beta1] = crd.spec.versions;
    expect(v1.subresources.status).toStrictEqual({});
    expect(v1.subresources.scale.labelSelectorPath).toBe('.status.selector');
    const spec = v1.schema.openAPIV3Schema.properties.spec;
    expect(spec.properties.closed.additionalProperties).toBe(false);
    expect(spec.properties.labels.additionalProperties).toStrictEqual({ type: 'string' });
    expect(spec.properties.size).toMatchObject({ minimum: 0, maximum: 100, multipleOf: 0.5, default: 1, exclusiveMaximum: true });
    expect(spec.properties.color.enum).toStrictEqual(['red', 'blue']);
    expect(spec.properties.tags.items).toStrictEqual({ type: 'string' });
    expect(spec.properties.template).toStrictEqual({ type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec['x-kubernetes-validations'][0].optionalOldSelf).toBe(false);
    expect(v1beta1).toStrictEqual({
      name: 'v1beta1', served: true, deprecated: true, deprecationWarning: 'use v1',
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    });
  });

  it('gives -0 as 0 (random bytes can carry it) and refuses a schema number JSON cannot carry', () => {
    const negativeZero = encodeMessage('apiextensions.v1.CustomResourceDefinition', {
      spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'number', minimum: -0 } } }] },
    });
    const decoded = kubeProtobuf.decode(envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition', negativeZero)).object as any;
    expect(Object.is(decoded.spec.versions[0].schema.openAPIV3Schema.minimum, 0)).toBe(true);
    const raw = encodeMessage('apiextensions.v1.CustomResourceDefinition', {
      spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'number', maximum: Number.POSITIVE_INFINITY } } }] },
    });
    expect(() => kubeProtobuf.decode(envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition', raw)))
      .toThrow(/spec\.versions\[0\]\.schema\.openAPIV3Schema\.maximum: Infinity is not a JSON number/);
  });
});

describe('kubectl auth and token fixtures', () => {
  const ssar = (spec: unknown) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec,
  });
  const cases: [string, string, Record<string, unknown>][] = [
    ['ssar-resource', 'auth can-i create pods -n default',
      ssar({ resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } })],
    ['ssar-subresource', 'auth can-i get pods --subresource=log -n kube-system',
      ssar({ resourceAttributes: { namespace: 'kube-system', verb: 'get', resource: 'pods', subresource: 'log' } })],
    ['ssar-allns', 'auth can-i list deployments.apps -A',
      ssar({ resourceAttributes: { verb: 'list', group: 'apps', resource: 'deployments' } })],
    ['ssar-name', 'auth can-i delete secret/foo -n default',
      ssar({ resourceAttributes: { namespace: 'default', verb: 'delete', resource: 'secrets', name: 'foo' } })],
    ['ssar-nonresource', 'auth can-i get /logs', ssar({ nonResourceAttributes: { path: '/logs', verb: 'get' } })],
    ['ssrr', 'auth can-i --list -n default',
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'default' } }],
    ['ssr', 'auth whoami', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} }],
    ['token', 'create token default', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {} }],
    ['token-bound', 'create token sa1 --audience=a1 --audience=a2 --duration=1h --bound-object-kind=Pod …',
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: {},
        spec: {
          audiences: ['a1', 'a2'],
          expirationSeconds: 3600,
          boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: '1234-abcd' },
        },
      }],
  ];
  it.each(cases)('%s (kubectl %s)', (name, _cmd, want) => {
    expect(kubeProtobuf.decode(pb(name)).object).toStrictEqual(want);
  });
});

function decodeError(body: Buffer): ProtobufDecodeError {
  try {
    kubeProtobuf.decode(body);
  } catch (e) {
    expect(e).toBeInstanceOf(ProtobufDecodeError);
    return e as ProtobufDecodeError;
  }
  throw new Error('expected a ProtobufDecodeError');
}

describe('errors', () => {
  it('rejects a kind without a schema, with the GVK (real kubectl create deployment bytes)', () => {
    const e = decodeError(pb('deployment'));
    expect(e.reason).toBe('UnsupportedKind');
    expect(e.message).toMatch(/^unsupported protobuf kind apps\/v1, Kind=Deployment/);
  });

  it('rejects bodies without the magic', () => {
    for (const body of [Buffer.alloc(0), Buffer.from('k8s'), Buffer.from('{"kind":"ConfigMap"}'), Buffer.from('k8s\x01abc')]) {
      const e = decodeError(body);
      expect(e.reason).toBe('InvalidEnvelope');
      expect(e.message).toMatch(/^invalid protobuf envelope: .*magic/);
    }
  });

  it('rejects an envelope without type information, or with compression or a foreign content type', () => {
    expect(decodeError(envelope('', 'ConfigMap', Buffer.alloc(0))).message).toMatch(/typeMeta/);
    expect(decodeError(envelope('v1', '', Buffer.alloc(0))).message).toMatch(/typeMeta/);
    expect(decodeError(envelope('v1', 'ConfigMap', Buffer.alloc(0), { contentEncoding: 'gzip' })).message).toMatch(
      /contentEncoding gzip/,
    );
    expect(decodeError(envelope('v1', 'ConfigMap', Buffer.alloc(0), { contentType: 'application/json' })).reason).toBe(
      'InvalidEnvelope',
    );
  });

  it('accepts the protobuf contentType spelled out', () => {
    const body = envelope('v1', 'Namespace', encodeMessage('core.v1.Namespace', { metadata: gogoMeta({ name: 'n' }) }), {
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    expect(kubeProtobuf.decode(body).object).toStrictEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
  });

  it('reports truncated objects as InvalidObject', () => {
    const raw = encodeMessage('core.v1.ConfigMap', { metadata: gogoMeta({ name: 'c' }), data: { a: 'b' } });
    const e = decodeError(envelope('v1', 'ConfigMap', raw.subarray(0, raw.length - 3)));
    expect(e.reason).toBe('InvalidObject');
    expect(e.message).toMatch(/^invalid protobuf v1, Kind=ConfigMap object: /);
  });

  it('keeps hostile type names short and printable in messages', () => {
    const e = decodeError(envelope('v1', `Evil\n${'x'.repeat(5000)}`, Buffer.alloc(0)));
    expect(e.message.length).toBeLessThan(300);
    expect(e.message).not.toContain('\n');
  });

  it('skips unknown fields (newer kubectl, managedFields)', () => {
    const raw = Buffer.concat([
      encodeMessage('core.v1.ConfigMap', { metadata: gogoMeta({ name: 'c' }), data: { a: 'b' } }),
      Buffer.from([0xfa, 0x06, 0x02, 0x68, 0x69]), // field 111, length-delimited "hi"
    ]);
    expect(kubeProtobuf.decode(envelope('v1', 'ConfigMap', raw)).object).toStrictEqual({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' },
    });
  });

  it('lists the supported kinds', () => {
    const kinds = kubeProtobuf.supportedKinds();
    expect(kinds).toContain('v1, Kind=ConfigMap');
    expect(kinds).toContain('rbac.authorization.k8s.io/v1, Kind=ClusterRoleBinding');
    expect(kinds).toContain('authorization.k8s.io/v1, Kind=SelfSubjectAccessReview');
    expect(kinds).toContain('meta.k8s.io/v1, Kind=DeleteOptions');
    expect(kinds).toContain('events.k8s.io/v1, Kind=Event');
    expect(kinds).toContain('apiextensions.k8s.io/v1, Kind=CustomResourceDefinition');
    expect(kinds).toContain('autoscaling/v1, Kind=Scale');
    expect(kinds).toHaveLength(24);
  });

  it('treats an empty raw as an empty object', () => {
    expect(kubeProtobuf.decode(Buffer.concat([MAGIC, encodeMessage('runtime.Unknown', { typeMeta: { apiVersion: 'v1', kind: 'Secret' } })])).object)
      .toStrictEqual({ apiVersion: 'v1', kind: 'Secret', metadata: {} });
    expect(encodeKube('v1', 'Secret', 'core.v1.Secret', {})).toBeInstanceOf(Buffer);
  });
});
