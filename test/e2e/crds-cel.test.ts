/**
 * x-kubernetes-validations (CEL) through the real kubectl, as kube-apiserver enforces them: rules are compiled and
 * their cost bounded when the CRD is written (refused with kube's texts), and evaluated on every write of a custom
 * resource: create, update, patch, apply and the status subresource, transition rules only on update.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { lines, useE2EServer } from '../helpers/suite.js';
import { applyCRD, crdObject, refusedLines, specWith, withFile, type Json } from './crds-fixtures.js';

const e2e = useE2EServer();

const group = 'enforced.example.com';
const schema: Json = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      // What kubebuilder writes for +kubebuilder:validation:XValidation markers.
      'x-kubernetes-validations': [
        { rule: 'self.min <= self.max', message: 'min must not exceed max' },
        { rule: "self.tags.all(t, t.matches('^[a-z]+$'))", messageExpression: "'tags must be lowercase: ' + self.tags.join(', ')", fieldPath: '.tags' },
      ],
      properties: {
        min: { type: 'integer' },
        max: { type: 'integer' },
        tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 } },
        owner: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'owner is immutable' }] },
        // A set: == ignores order, as kube's (so the rule refuses a changed zone, not a reordered list).
        zones: {
          type: 'array',
          maxItems: 8,
          'x-kubernetes-list-type': 'set',
          items: { type: 'string', maxLength: 16 },
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'zones are immutable' }],
        },
      },
    },
    status: {
      type: 'object',
      properties: { phase: { type: 'string', maxLength: 16, 'x-kubernetes-validations': [{ rule: "self in ['Pending', 'Running']", reason: 'FieldValueForbidden', message: 'unknown phase' }] } },
    },
  },
};

describe('x-kubernetes-validations are enforced on custom resources', () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);
  const ns = uniqueName('cel');
  const res = `guardeds.${group}`;
  const obj = (name: string, spec: Json): Json => ({ apiVersion: `${group}/v1`, kind: 'Guarded', metadata: { name }, spec });
  const fails = async (args: string[], o?: Json) => {
    const r = o ? await withFile(k, [...args, '-n', ns], o, { reject: false }) : await k([...args, '-n', ns], { reject: false });
    expect(r.exitCode, r.stdout).not.toBe(0);
    return lines(r.stderr);
  };

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
    const crd = crdObject({ group, plural: 'guardeds', kind: 'Guarded', schema, version: { subresources: { status: {} } } });
    const applied = await withFile(k, ['apply'], crd);
    // Every rule here is evaluated: no warning.
    expect(applied.stderr).toBe('');
    await k(['wait', '--for=condition=Established', `crd/${res}`, '--timeout=30s']);
  }, 90_000);

  it('create: a violating object is refused with the rule message at the rule path; a valid one is stored', async () => {
    expect(await fails(['create'], obj('r1', { min: 3, max: 1, tags: ['a'] }))).toEqual([
      'The Guarded "r1" is invalid: spec: Invalid value: "object": min must not exceed max',
    ]);
    expect(await fails(['apply'], obj('r1', { min: 1, max: 2, tags: ['ok', 'NotOk'] }))).toEqual([
      'The Guarded "r1" is invalid: spec.tags: Invalid value: "object": tags must be lowercase: ok, NotOk',
    ]);
    // A value of the wrong type blocks the rules, as kube's hasBlockingErr.
    expect(await fails(['create'], obj('r2', { min: 'one', max: 1, tags: [] }))).toEqual([
      'The Guarded "r2" is invalid:',
      '* spec.min: Invalid value: "string": spec.min in body must be of type integer: "string"',
      '* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
    const created = await withFile(k, ['apply', '-n', ns], obj('r1', { min: 1, max: 2, tags: ['ok'], owner: 'alice' }));
    expect(created.stdout).toBe(`guarded.${group}/r1 created`);
  });

  it('update and patch: a transition rule (self == oldSelf) keeps a field immutable; unchanged values pass', async () => {
    expect(await fails(['patch', res, 'r1', '--type', 'merge', '-p', '{"spec":{"owner":"mallory"}}'])).toEqual([
      'The Guarded "r1" is invalid: spec.owner: Invalid value: "string": owner is immutable',
    ]);
    const patched = await k(['patch', res, 'r1', '-n', ns, '--type', 'merge', '-p', '{"spec":{"max":5}}']);
    expect(patched.stdout).toBe(`guarded.${group}/r1 patched`);
    expect(await fails(['patch', res, 'r1', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/min","value":9}]'])).toEqual([
      'The Guarded "r1" is invalid: spec: Invalid value: "object": min must not exceed max',
    ]);
    // A full update (replace) and a server-side apply go through the same rules.
    const current = JSON.parse((await k(['get', res, 'r1', '-n', ns, '-o', 'json'])).stdout) as Json;
    const replaced = { ...current, spec: { ...(current.spec as Json), owner: 'eve' } };
    expect(await fails(['replace'], replaced)).toEqual(['The Guarded "r1" is invalid: spec.owner: Invalid value: "string": owner is immutable']);
    const ssa = await withFile(k, ['apply', '--server-side', '--field-manager=ci', '--force-conflicts', '-n', ns], obj('r1', { min: 7, max: 2 }), { reject: false });
    expect(ssa.exitCode).not.toBe(0);
    expect(lines(ssa.stderr).join('\n')).toContain('spec: Invalid value: "object": min must not exceed max');
  });

  it('a transition rule on a set list (self == oldSelf) accepts a reorder and refuses a change', async () => {
    await withFile(k, ['create', '-n', ns], obj('z1', { min: 1, max: 2, tags: [], zones: ['eu-1', 'us-2', 'ap-3'] }));
    const reordered = await k(['patch', res, 'z1', '-n', ns, '--type', 'merge', '-p', '{"spec":{"zones":["ap-3","eu-1","us-2"]}}']);
    expect(reordered.stdout).toBe(`guarded.${group}/z1 patched`);
    const stored = JSON.parse((await k(['get', res, 'z1', '-n', ns, '-o', 'json'])).stdout) as { spec: Json };
    expect(stored.spec.zones).toEqual(['ap-3', 'eu-1', 'us-2']);
    expect(await fails(['patch', res, 'z1', '--type', 'merge', '-p', '{"spec":{"zones":["ap-3","eu-1","us-9"]}}'])).toEqual([
      'The Guarded "z1" is invalid: spec.zones: Invalid value: "array": zones are immutable',
    ]);
  });

  it('the status subresource: rules of the status schema, with the rule reason as the cause type', async () => {
    expect(await fails(['patch', res, 'r1', '--subresource=status', '--type', 'merge', '-p', '{"status":{"phase":"Exploded"}}'])).toEqual([
      'The Guarded "r1" is invalid: status.phase: Forbidden: unknown phase',
    ]);
    const ok = await k(['patch', res, 'r1', '-n', ns, '--subresource=status', '--type', 'merge', '-p', '{"status":{"phase":"Running"}}']);
    expect(ok.stdout).toBe(`guarded.${group}/r1 patched`);
  });
});

describe('x-kubernetes-validations are compiled and their cost bounded when the CRD is written', () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);
  const refused = (crd: Json) => refusedLines(k, ['create'], crd);

  it('a rule whose estimated cost exceeds the budget (a quadratic rule over unbounded lists)', async () => {
    const crd = crdObject({
      group, plural: 'costlies', kind: 'Costly',
      schema: specWith({
        type: 'object',
        properties: { names: { type: 'array', items: { type: 'string' } } },
        'x-kubernetes-validations': [{ rule: 'self.names.all(a, self.names.exists_one(b, a == b))', message: 'names must be unique' }],
      }),
    });
    const tip = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    expect(await refused(crd)).toEqual([
      'The CustomResourceDefinition "costlies.enforced.example.com" is invalid:',
      `* spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${tip}`,
      '* spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      `* spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${tip}`,
    ]);
  });

  it('a rule that does not compile', async () => {
    const crd = crdObject({
      group, plural: 'broken', kind: 'Broken',
      schema: specWith({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.b > 0' }] }),
    });
    const out = await refused(crd);
    expect(out[0]).toMatch(
      /^The CustomResourceDefinition "broken\.enforced\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.b > 0", .*\}: compilation failed: ERROR: <input>:1:\d+: /,
    );
  });
});
