import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import {
  applyPatch,
  customResourcePatchTypes,
  parsePatchBody,
  patchMediaType,
  patchTypesFor,
  supportedPatchTypes,
  type PatchContext,
} from './applyPatch.js';
import { patchSchemaFor } from '../../builtin/test-support.js';

const builtin = (kind: string, group = ''): PatchContext => ({ isCustomResource: false, patchSchema: patchSchemaFor(group, kind) });
const cr: PatchContext = { isCustomResource: true };
const cm = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', finalizers: ['a'] }, data: { a: '1' } });
const svc = () => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }, { port: 443 }] } });

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error('expected a failure');
}

describe('applyPatch', () => {
  it.each([
    ['application/json-patch+json', '[{"op":"add","path":"/data/b","value":"2"}]', { a: '1', b: '2' }],
    ['application/merge-patch+json', '{"data":{"a":null,"b":"2"}}', { b: '2' }],
    ['application/strategic-merge-patch+json', '{"data":{"b":"2"}}', { a: '1', b: '2' }],
    ['application/merge-patch+json; charset=utf-8', '{"data":{"c":"3"}}', { a: '1', c: '3' }],
    ['Application/Strategic-Merge-Patch+JSON', '{"data":{"c":"3"}}', { a: '1', c: '3' }],
  ])('%s', (type, body, data) => {
    expect(applyPatch(type, cm(), body, builtin('ConfigMap')).data).toEqual(data);
    expect(applyPatch(type, cm(), Buffer.from(body), builtin('ConfigMap')).data).toEqual(data);
    expect(applyPatch(type, cm(), new TextEncoder().encode(body), builtin('ConfigMap')).data).toEqual(data);
  });

  it('strategic merge picks the kind schema (Service ports merge, finalizers union)', () => {
    const out = applyPatch('application/strategic-merge-patch+json', svc(), '{"spec":{"ports":[{"port":80,"name":"http"}]}}', builtin('Service')) as any;
    expect(out.spec.ports).toEqual([{ port: 80, name: 'http' }, { port: 443 }]);
    const merged = applyPatch('application/merge-patch+json', svc(), '{"spec":{"ports":[{"port":80,"name":"http"}]}}', builtin('Service')) as any;
    expect(merged.spec.ports).toEqual([{ port: 80, name: 'http' }]);
    const unknown = applyPatch('application/strategic-merge-patch+json', cm(), '{"metadata":{"finalizers":["b"]}}', builtin('Widget', 'example.com')) as any;
    expect(unknown.metadata.finalizers).toEqual(['b', 'a']);
  });

  it('custom resources take JSON and merge patches', () => {
    expect(applyPatch('application/merge-patch+json', { spec: { a: 1 } }, '{"spec":{"b":2}}', cr)).toEqual({ spec: { a: 1, b: 2 } });
    expect(applyPatch('application/json-patch+json', { spec: { a: 1 } }, '[{"op":"remove","path":"/spec/a"}]', cr)).toEqual({ spec: {} });
  });

  it('custom resources refuse strategic merge patch with kube\'s 415', () => {
    const err = failure(() => applyPatch('application/strategic-merge-patch+json', { spec: {} }, '{}', cr));
    expect(err.code).toBe(415);
    expect(err.reason).toBe('UnsupportedMediaType');
    expect(err.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it.each([undefined, '', 'application/json', 'application/yaml', 'text/plain'])('refuses Content-Type %j with 415', (type) => {
    const err = failure(() => applyPatch(type, cm(), '{}', builtin('ConfigMap')));
    expect(err.code).toBe(415);
    expect(err.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('server-side apply is not its business', () => {
    expect(failure(() => applyPatch('application/apply-patch+yaml', cm(), '{}', builtin('ConfigMap'))).code).toBe(500);
  });

  it.each([
    ['an empty body', '', 'error decoding patch: the request body is empty; send the patch as JSON'],
    ['whitespace', '  \n', 'the request body is empty'],
    ['invalid JSON', '{"data":', 'error decoding patch: the body is not valid JSON: '],
    ['YAML', 'data:\n  a: b\n', 'the body is not valid JSON'],
  ])('%s is 400', (_name, body, message) => {
    for (const type of ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const err = failure(() => applyPatch(type, cm(), body, builtin('ConfigMap')));
      expect(err.code).toBe(400);
      expect(err.message).toContain(message);
    }
  });

  it('a deeply nested body is 400, not a crash', () => {
    const body = `{"spec":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const err = failure(() => applyPatch(type, cm(), body, builtin('ConfigMap')));
      expect(err.code).toBe(400);
    }
  });

  it('a body of the wrong JSON shape is 400', () => {
    expect(failure(() => applyPatch('application/json-patch+json', cm(), '{}', builtin('ConfigMap'))).code).toBe(400);
    expect(failure(() => applyPatch('application/merge-patch+json', cm(), '[]', builtin('ConfigMap'))).code).toBe(400);
    expect(failure(() => applyPatch('application/strategic-merge-patch+json', cm(), '"x"', builtin('ConfigMap'))).code).toBe(400);
  });
});

describe('patch types', () => {
  it('lists them in kube\'s order', () => {
    expect(supportedPatchTypes).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(customResourcePatchTypes).toEqual(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    expect(patchTypesFor(true)).toBe(customResourcePatchTypes);
    expect(patchTypesFor(false)).toBe(supportedPatchTypes);
    expect(Object.isFrozen(supportedPatchTypes)).toBe(true);
  });

  it('patchMediaType drops parameters', () => {
    expect(patchMediaType(' application/merge-patch+json ; charset=utf-8')).toBe('application/merge-patch+json');
    expect(patchMediaType(undefined)).toBe('');
  });

  it('parsePatchBody reads a Buffer slice, not the whole pool', () => {
    const pool = Buffer.from('xxxx{"a":1}yyyy');
    expect(parsePatchBody(pool.subarray(4, 11))).toEqual({ a: 1 });
  });
});
