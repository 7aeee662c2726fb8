/**
 * The typed-decode half of the unknown-fields walk (decodeBuiltin) against the real built-in schemas: the messages
 * are sigs.k8s.io/json's (encoding/json's UnmarshalTypeError: innermost struct, dotted field path from the root,
 * Go's type spelling) and metav1's custom unmarshalers'.
 */
import { describe, expect, it } from 'vitest';
import { decodeBuiltin } from './unknown-fields.js';
import { goTimeParseError } from './go-decode.js';
import { jsonNumberLiterals } from './json-number-literals.js';
import { sharedSchemas } from './openapi-schemas/index.js';
import { rbacSchemas } from '../builtin/rbac/schemas.js';
import { coreSchemas } from '../builtin/core/schemas.js';
import { coordinationSchemas } from '../builtin/coordination/schemas.js';

const schemas = { ...sharedSchemas, ...rbacSchemas, ...coreSchemas, ...coordinationSchemas } as Record<string, Record<string, unknown>>;

function decode(kind: string, body: Record<string, unknown>): string | undefined {
  const name = Object.keys(schemas).find((n) => n.endsWith(`.${kind}`) && (n.includes('.rbac.') || n.includes('.core.') || n.includes('.coordination.')))!;
  return decodeBuiltin(body, schemas[name], schemas, kind).decodeError;
}

const role = (extra: Record<string, unknown>) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, ...extra });

describe('decodeBuiltin: Go type errors', () => {
  it('accepts a well-typed object, and null anywhere (a no-op in Go)', () => {
    expect(decode('Role', role({ rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }))).toBeUndefined();
    expect(decode('Role', role({ rules: null }))).toBeUndefined();
    expect(decode('Role', role({ rules: [{ verbs: null }, null] }))).toBeUndefined();
    expect(decode('ConfigMap', { metadata: { name: 'c', labels: null, creationTimestamp: null }, data: { a: null } })).toBeUndefined();
  });

  it('a null element of a slice or map of scalars becomes the zero value Go decodes and encodes it as', () => {
    const cm = { metadata: { name: 'c', labels: { a: null, b: 'x' }, finalizers: [null] }, data: { a: null } };
    expect(decode('ConfigMap', cm)).toBeUndefined();
    expect(cm).toEqual({ metadata: { name: 'c', labels: { a: '', b: 'x' }, finalizers: [''] }, data: { a: '' } });
    // A null struct element is the struct's zero value (PolicyRule's verbs have no omitempty: null), a null
    // omitempty field disappears (go-decode-nulls.test.ts checks every field against Go).
    const r = role({ rules: [{ verbs: ['get', null], apiGroups: null }, null] });
    expect(decode('Role', r)).toBeUndefined();
    expect((r as Record<string, unknown>).rules).toEqual([{ verbs: ['get', ''] }, { verbs: null }]);
  });

  it('a slice given a string: the field of the kind struct, typed []v1.PolicyRule', () => {
    expect(decode('Role', role({ rules: 'garbage' }))).toBe(
      'json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule',
    );
  });

  it('inside a slice element: the innermost struct, the field path without indices', () => {
    expect(decode('Role', role({ rules: [{ verbs: ['get'] }, { verbs: 'get' }] }))).toBe(
      'json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string',
    );
    expect(decode('Role', role({ rules: [{ verbs: [1] }] }))).toBe(
      'json: cannot unmarshal number into Go struct field PolicyRule.rules.verbs of type string',
    );
    expect(decode('Role', role({ rules: ['x'] }))).toBe('json: cannot unmarshal string into Go struct field Role.rules of type v1.PolicyRule');
  });

  it('each JSON value kind has its Go name: bool, object, array, number', () => {
    expect(decode('RoleBinding', { subjects: true })).toBe('json: cannot unmarshal bool into Go struct field RoleBinding.subjects of type []v1.Subject');
    expect(decode('RoleBinding', { subjects: 'mallory' })).toBe('json: cannot unmarshal string into Go struct field RoleBinding.subjects of type []v1.Subject');
    expect(decode('RoleBinding', { roleRef: [] })).toBe('json: cannot unmarshal array into Go struct field RoleBinding.roleRef of type v1.RoleRef');
    expect(decode('RoleBinding', { roleRef: { name: {} } })).toBe('json: cannot unmarshal object into Go struct field RoleRef.roleRef.name of type string');
    expect(decode('ServiceAccount', { automountServiceAccountToken: 'yes' })).toBe(
      'json: cannot unmarshal string into Go struct field ServiceAccount.automountServiceAccountToken of type bool',
    );
    expect(decode('ServiceAccount', { secrets: 'x' })).toBe('json: cannot unmarshal string into Go struct field ServiceAccount.secrets of type []v1.ObjectReference');
  });

  it('map values keep the field of the struct holding the map', () => {
    expect(decode('ConfigMap', { data: 'garbage' })).toBe('json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string');
    expect(decode('ConfigMap', { data: { a: 'x', b: 5 } })).toBe('json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
    expect(decode('ConfigMap', { metadata: { labels: { a: true } } })).toBe(
      'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string',
    );
  });

  it('named Go types the schema cannot tell: types.UID', () => {
    expect(decode('ConfigMap', { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 5 }] } })).toBe(
      'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID',
    );
    expect(decode('ConfigMap', { metadata: { uid: false } })).toBe('json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.uid of type types.UID');
  });

  it('numbers into ints: the literal for a fraction or an out-of-range value, plain "number" elsewhere', () => {
    expect(decode('Lease', { spec: { leaseDurationSeconds: 1.5 } })).toBe(
      'json: cannot unmarshal number 1.5 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
    );
    expect(decode('Lease', { spec: { leaseDurationSeconds: 3000000000 } })).toBe(
      'json: cannot unmarshal number 3000000000 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
    );
    expect(decode('Lease', { spec: { leaseDurationSeconds: -2147483648 } })).toBeUndefined();
    expect(decode('ConfigMap', { metadata: { generation: 2 ** 62 } })).toBeUndefined();
    expect(decode('ConfigMap', { metadata: { generation: '2' } })).toBe('json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64');
    expect(decode('Lease', { spec: { holderIdentity: 7 } })).toBe('json: cannot unmarshal number into Go struct field LeaseSpec.spec.holderIdentity of type string');
  });

  it('a JSON body\'s number text decides for an int: 1.0, 1e3, 0.0 are no ints to Go (its own answers, k8s.io/api v0.31.6)', () => {
    /** Decodes `text` as kube does a JSON body: by the literals JSON.parse cannot give back. */
    const decodeText = (kind: string, text: string) => {
      const body = JSON.parse(text) as Record<string, unknown>;
      const name = Object.keys(schemas).find((n) => n.endsWith(`.${kind}`) && (n.includes('.core.') || n.includes('.coordination.')))!;
      return decodeBuiltin(body, schemas[name], schemas, kind, { literals: () => jsonNumberLiterals(text, body) }).decodeError;
    };
    const lease = (n: string) => `{"metadata":{"name":"l","generation":${n}},"spec":{"leaseDurationSeconds":${n}}}`;
    for (const n of ['1.0', '1e3', '1E3', '0.0', '1.5e1', '10e-1', '15.000', '-1.0', '1e10', '-0.0', '1.0e0']) {
      expect(decodeText('Lease', lease(n)), n).toBe(`json: cannot unmarshal number ${n} into Go struct field ObjectMeta.metadata.generation of type int64`);
    }
    expect(decodeText('Lease', lease('-0'))).toBeUndefined();
    expect(decodeText('Lease', lease('2147483648'))).toBe('json: cannot unmarshal number 2147483648 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32');
    expect(decodeText('Lease', '{"spec":{"leaseDurationSeconds":15.0}}')).toBe('json: cannot unmarshal number 15.0 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32');
    // Exact beyond 2^53, as ParseInt reads it.
    expect(decodeText('Lease', '{"metadata":{"generation":9223372036854775807}}')).toBeUndefined();
    expect(decodeText('Lease', '{"metadata":{"generation":9223372036854775808}}')).toBe('json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64');
    expect(decodeText('Event', '{"count":1.0,"series":{"count":1e3}}')).toBe('json: cannot unmarshal number 1.0 into Go struct field Event.count of type int32');
    // A string that reads like a number is no number.
    expect(decodeText('Lease', '{"spec":{"holderIdentity":"1.0","leaseDurationSeconds":15}}')).toBeUndefined();
  });

  it('the first type error in document order wins, and the rest of the body is still walked for nothing else', () => {
    expect(decode('Role', role({ rules: [{ verbs: 'a', resources: 5 }] }))).toContain('PolicyRule.rules.verbs of type []string');
    expect(decode('Role', { metadata: { labels: 'x' }, rules: 'y' })).toContain('ObjectMeta.metadata.labels');
    expect(decode('Role', { rules: 'y', metadata: { labels: 'x' } })).toContain('Role.rules');
  });

  it('metav1.Time: a non-string is its inner string decode error with the field context; it ends decoding and wins', () => {
    expect(decode('ConfigMap', { metadata: { creationTimestamp: 5 } })).toBe(
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string',
    );
    // A remembered type error before it is overtaken by the unmarshaler's error, which stops decoding.
    expect(decode('ConfigMap', { data: 'x', metadata: { creationTimestamp: {} } })).toBe(
      'json: cannot unmarshal object into Go struct field ObjectMeta.metadata.creationTimestamp of type string',
    );
    expect(decode('ConfigMap', { metadata: { creationTimestamp: 'garbage' } })).toBe(
      'parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
    );
    expect(decode('ConfigMap', { metadata: { creationTimestamp: '2024-01-02T03:04:05Z' } })).toBeUndefined();
  });

  it('metav1.MicroTime parses with six fraction digits', () => {
    expect(decode('Lease', { spec: { renewTime: '2024-01-02T03:04:05.123456Z' } })).toBeUndefined();
    expect(decode('Lease', { spec: { renewTime: '2024-01-02T03:04:05Z' } })).toBe(
      'parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
  });

  it('[]byte (Secret data) takes base64: a bad string is the base64 error, without field context', () => {
    expect(decode('Secret', { data: { a: 'aGk=' } })).toBeUndefined();
    expect(decode('Secret', { data: { a: 'a$' } })).toBe('illegal base64 data at input byte 1');
    expect(decode('Secret', { data: { a: 5 } })).toBe('json: cannot unmarshal number into Go struct field Secret.data of type []uint8');
    expect(decode('Secret', { type: 5 })).toBe('json: cannot unmarshal number into Go struct field Secret.type of type v1.SecretType');
  });
});

describe('decodeBuiltin: resource.Quantity and intstr.IntOrString (custom unmarshalers, fatal)', () => {
  const quota = (hard: unknown) => ({ spec: { hard: { cpu: hard } } });
  it('Quantity takes a string or a number; anything else is ParseQuantity\'s error', () => {
    expect(decode('ResourceQuota', quota('500m'))).toBeUndefined();
    expect(decode('ResourceQuota', quota(2))).toBeUndefined();
    const formatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    expect(decode('ResourceQuota', quota('lots'))).toBe(formatError);
    expect(decode('ResourceQuota', quota(true))).toBe(formatError);
    expect(decode('ResourceQuota', quota({}))).toBe(formatError);
  });

  it('IntOrString: a string or an int32; else the int32 decode error with the field context', () => {
    const port = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    const own = { ...schemas, 'x.v1.Port': { type: 'object', properties: { target: port } }, 'x.v1.Svc': { type: 'object', properties: { port: { allOf: [{ $ref: '#/components/schemas/x.v1.Port' }] } } } };
    const run = (target: unknown) => decodeBuiltin({ port: { target } }, own['x.v1.Svc'], own, 'Svc').decodeError;
    expect(run('http')).toBeUndefined();
    expect(run(8080)).toBeUndefined();
    expect(run(1.5)).toBe('json: cannot unmarshal number 1.5 into Go struct field Port.port.target of type int32');
    expect(run([])).toBe('json: cannot unmarshal array into Go struct field Port.port.target of type int32');
  });
});

describe('goTimeParseError (time.Parse with RFC 3339)', () => {
  const rfc = '2006-01-02T15:04:05Z07:00';
  it.each([
    ['2024-01-02T03:04:05Z', undefined],
    ['2024-01-02T03:04:05.999+02:00', undefined],
    ['2024-1-02T03:04:05Z', 'parsing time "2024-1-02T03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-02T03:04:05Z" as "01"'],
    ['2024-13-02T03:04:05Z', 'parsing time "2024-13-02T03:04:05Z": month out of range'],
    ['2024-02-30T03:04:05Z', 'parsing time "2024-02-30T03:04:05Z": day out of range'],
    ['2024-01-02 03:04:05Z', 'parsing time "2024-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T"'],
    ['2024-01-02T03:04:05', 'parsing time "2024-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'],
    ['2024-01-02T03:04:05Zjunk', 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'],
    ['2024-01-02T25:04:05Z', 'parsing time "2024-01-02T25:04:05Z": hour out of range'],
    ['', 'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"'],
    ['é', 'parsing time "\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xa9" as "2006"'],
  ])('%s', (value, expected) => {
    expect(goTimeParseError(value, rfc)).toBe(expected);
  });
});
