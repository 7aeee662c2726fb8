/**
 * A null given for each field (and each slice or map element) of every built-in kind kcpt decodes as kube does, and
 * what kube stores for it: testdata/go-null-roundtrip.json holds Go's own answers, from decoding each body with
 * apimachinery's JSON serializer into the k8s.io/api v0.31 (kcp sdk v0.27) type and encoding it again
 * (testdata/go-null-roundtrip/main.go). One row per field of each Go struct, at its shallowest path.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../builtin/index.js';
import { schemasOf } from '../registry/schemas.js';
import { sharedSchemas } from './openapi-schemas/index.js';
import { decodeBuiltin } from './unknown-fields.js';

type Row = [path: string, value?: unknown];
const answers = JSON.parse(readFileSync(new URL('./testdata/go-null-roundtrip.json', import.meta.url), 'utf8')) as Record<string, Row[]>;

const CRD = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition';
const kinds = new Map<string, { schemas: Record<string, Record<string, unknown>>; name: string }>();
for (const rt of builtinResourceTypes()) {
  const apiVersion = rt.group ? `${rt.group}/${rt.version}` : rt.version;
  kinds.set(`${apiVersion}/${rt.kind}`, { schemas: schemasOf(rt) as Record<string, Record<string, unknown>>, name: rt.openapiSchemaName! });
}
kinds.set('apiextensions.k8s.io/v1/CustomResourceDefinition', { schemas: sharedSchemas as Record<string, Record<string, unknown>>, name: CRD });

/** The body the Go generator sent: the path's fields nested, a list holding one element, a map one key `k`. */
function bodyFor(kind: string, path: string): Record<string, unknown> {
  const slash = kind.lastIndexOf('/');
  const root: Record<string, unknown> = { apiVersion: kind.slice(0, slash), kind: kind.slice(slash + 1) };
  const steps = path.split('.');
  let holder: Record<string, unknown> | unknown[] = root;
  let key: string | number = '';
  for (const [i, step] of steps.entries()) {
    const next = steps[i + 1];
    key = step === '[]' ? 0 : step === '{}' ? 'k' : step;
    const child = next === undefined ? null : next === '[]' ? [] : {};
    (holder as Record<string | number, unknown>)[key] = child;
    if (child !== null) holder = child as Record<string, unknown> | unknown[];
  }
  return root;
}

function valueAt(obj: unknown, path: string): { found: boolean; value?: unknown } {
  let cur = obj;
  for (const step of path.split('.')) {
    const key = step === '[]' ? 0 : step === '{}' ? 'k' : step;
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return { found: false };
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return { found: true, value: cur };
}

describe('a null field of a built-in kind comes back as kube’s Go round trip leaves it', () => {
  it.each(Object.keys(answers))('%s', (kind) => {
    const served = kinds.get(kind);
    expect(served, kind).toBeDefined();
    const { schemas, name } = served!;
    const differences: string[] = [];
    for (const [path, ...expected] of answers[kind]!) {
      const body = bodyFor(kind, path);
      const decoded = decodeBuiltin(body, schemas[name]!, schemas, name.slice(name.lastIndexOf('.') + 1));
      const got = valueAt(body, path);
      const want = expected.length ? { found: true, value: expected[0] } : { found: false };
      if (decoded.decodeError || JSON.stringify(got) !== JSON.stringify(want)) {
        differences.push(`${path}: ${decoded.decodeError ?? JSON.stringify(got)} (Go: ${JSON.stringify(want)})`);
      }
    }
    expect(differences).toEqual([]);
  });
});
