import { describe, expect, it } from 'vitest';
import { encodeKube } from '../builtin/protobuf-test-support.js';
import { MAX_NESTING_DEPTH } from '../machinery/nesting-depth.js';
import { decodeObjectBody, deleteOptionsBody, parseJson } from './body.js';
import { parseDeleteOptions } from './query.js';

const protobuf = 'application/vnd.kubernetes.protobuf';

describe('deleteOptionsBody', () => {
  // client-go's typed clients (kubernetes.Clientset) send every Delete's options in protobuf by default.
  it('reads a protobuf DeleteOptions as client-go sends it', async () => {
    const body = encodeKube('v1', 'DeleteOptions', 'meta.v1.DeleteOptions', {
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1' },
      dryRun: ['All'],
    });
    const { contentType, body: json } = await deleteOptionsBody(protobuf, body);
    expect(parseDeleteOptions(new URLSearchParams(), contentType, json)).toStrictEqual({
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1' },
      dryRun: true,
    });
  });

  it('passes JSON through and refuses a protobuf body of another kind', async () => {
    const json = Buffer.from('{"gracePeriodSeconds":0}');
    expect(await deleteOptionsBody('application/json', json)).toStrictEqual({ contentType: 'application/json', body: json });
    const configMap = encodeKube('v1', 'ConfigMap', 'core.v1.ConfigMap', { data: { a: 'b' } });
    await expect(deleteOptionsBody(protobuf, configMap)).rejects.toThrow('the request body must be a DeleteOptions object, not ConfigMap');
  });
});

describe('parseJson', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const refusal = (text: string) => {
    try {
      parseJson(text);
      return 'accepted';
    } catch (err) {
      return `${(err as { code?: number }).code} ${(err as Error).message}`;
    }
  };

  // The shortest text past the limit is exactly two brackets per level: the walk a short body skips cannot miss it.
  it('refuses the shortest body nested one level too deep, and takes one at the limit', () => {
    expect(nested(MAX_NESTING_DEPTH + 1)).toHaveLength(2 * (MAX_NESTING_DEPTH + 1));
    expect(refusal(nested(MAX_NESTING_DEPTH + 1))).toBe(`400 the request body is not valid JSON: exceeded max depth of ${MAX_NESTING_DEPTH} nested objects or arrays`);
    expect(refusal(` ${nested(MAX_NESTING_DEPTH + 1)} `)).toMatch(/^400 .*exceeded max depth/);
    expect(refusal(`{"a":${'{"b":'.repeat(MAX_NESTING_DEPTH)}1${'}'.repeat(MAX_NESTING_DEPTH + 1)}`)).toMatch(/^400 .*exceeded max depth/);
    expect(refusal(nested(MAX_NESTING_DEPTH))).toBe('accepted');
    expect(parseJson('{"a":[1,{"b":null}]}')).toStrictEqual({ a: [1, { b: null }] });
    expect(refusal('{"a":')).toMatch(/^400 the request body is not valid JSON: /);
  });
});

describe('decodeObjectBody media types', () => {
  const yaml = Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n');
  const outcome = (type: string) =>
    decodeObjectBody(type, yaml).then(
      (obj) => String(obj.kind),
      (err: { code?: number; message: string }) => `${err.code} ${err.message}`,
    );

  // kube-apiserver reads YAML only as application/yaml (any case, with parameters); a client written against kcpt
  // must not come to depend on a spelling kube refuses.
  it('reads YAML as application/yaml and refuses the spellings kube refuses with 415', async () => {
    expect(await outcome('application/yaml')).toBe('ConfigMap');
    expect(await outcome('Application/YAML; charset=utf-8')).toBe('ConfigMap');
    for (const type of ['text/yaml', 'application/x-yaml']) {
      expect(await outcome(type)).toMatch(/^415 .*accepted media types include: application\/json, application\/yaml, application\/vnd.kubernetes.protobuf/);
    }
  });
});
