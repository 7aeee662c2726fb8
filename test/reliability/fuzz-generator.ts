/**
 * Hostile requests from a seeded PRNG, for test/reliability/fuzz.test.ts. Every case names its category and, where
 * the answer is known by construction, the statuses allowed: a request aimed at the seeded objects is always
 * malformed (`mustFail`), so the data fingerprint taken before and after the run must not move; anything that could
 * be valid goes to the scratch namespace.
 */
import { rng } from '../helpers/seeded-random.js';

export { rng };

export type Random = () => number;

export const SEED_NAMESPACE = 'fuzz-seed';
export const SCRATCH_NAMESPACE = 'fuzz-scratch';
export const SEED_CONFIGMAPS = 12;
export const SEED_WIDGETS = 4;
export const WIDGET_GROUP = 'fuzz.example.com';
/** kube's request body limit (3 MiB) and etcd's default request limit (1.5 MiB), which kcpt keeps per object. */
export const REQUEST_LIMIT = 3 * 1024 * 1024;
export const OBJECT_LIMIT = 1.5 * 1024 * 1024;

export interface FuzzCase {
  category: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Statuses the answer must be one of (when the right answer is known by construction). */
  expect?: number[];
  /** Aimed at a seeded object or collection: any 2xx is a defect (the fingerprint would move). */
  mustFail?: boolean;
  /** A streaming request (watch): opened, read briefly, dropped. */
  stream?: boolean;
}

const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const int = (r: Random, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

const root = '/clusters/root';
const seedCms = `${root}/api/v1/namespaces/${SEED_NAMESPACE}/configmaps`;
const scratchCms = `${root}/api/v1/namespaces/${SCRATCH_NAMESPACE}/configmaps`;
const seedWidgets = `${root}/apis/${WIDGET_GROUP}/v1/namespaces/${SEED_NAMESPACE}/widgets`;
const scratchWidgets = `${root}/apis/${WIDGET_GROUP}/v1/namespaces/${SCRATCH_NAMESPACE}/widgets`;
const seedCm = (r: Random) => `${seedCms}/seed-${int(r, 0, SEED_CONFIGMAPS - 1)}`;
const seedWidget = (r: Random) => `${seedWidgets}/w-${int(r, 0, SEED_WIDGETS - 1)}`;
const json = { 'content-type': 'application/json' };

const validConfigMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

function randomText(r: Random, length: number): string {
  const alphabet = 'abcXYZ019{}[]":,\\/.-_~%&?#=\u0000\u00e9\u2603\u00ff \n\t';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(r() * alphabet.length)];
  return out;
}

/** Percent-encodes what may not appear raw in a request target, leaving `%` (bad escapes are the point) and `/`. */
function urlSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, (c) => encodeURIComponent(c));
}

function randomBytes(r: Random, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(r() * 256);
  return out;
}

/** A JSON value of some nesting depth, built as text (no recursion, so 100k levels are fine). */
function deepJson(depth: number, kind: 'object' | 'array'): string {
  return kind === 'object' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

function brokenJson(r: Random): FuzzCase {
  const text = JSON.stringify(validConfigMap('broken'));
  const variants = [
    () => text.slice(0, int(r, 0, text.length - 1)),
    () => randomText(r, int(r, 1, 200)),
    () => text.replace('"ConfigMap"', pick(r, ['ConfigMap', '"ConfigMap', '1e999', 'NaN', 'undefined'])),
    () => `${text}${pick(r, ['}', ',', ' x', '\u0000'])}`,
    () => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: pick(r, ['x', 1, [], null, true]) }),
    () => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed', labels: pick(r, [1, 'x', [1], { a: 1 }, { a: { b: 'c' } }]) } }),
    () => JSON.stringify({ apiVersion: pick(r, [1, null, '', 'v9', 'apps/v1']), kind: 'ConfigMap', metadata: { name: 'v' } }),
    () => pick(r, ['null', '1', '"s"', 'true', '[]', '{}', '']),
  ];
  const body = pick(r, variants)();
  const target = r() < 0.5 ? seedCms : scratchCms;
  // Whatever the damage, none of these is a ConfigMap a server could accept; the seeded collection stays as it is.
  // (Not `labels: {a: null}`: Go decodes a null map value as "", so kube accepts it.)
  return { category: 'broken-json', method: 'POST', path: target, headers: json, body, mustFail: true };
}

function yamlBomb(r: Random): FuzzCase {
  const width = int(r, 2, 12);
  const levels = int(r, 2, 9);
  let doc = 'a0: &a0 ["lol","lol"]\n';
  for (let i = 1; i < levels; i++) doc += `a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(',')}]\n`;
  // The anchors expand into the labels: small bombs parse, and are then refused as labels that are not a map.
  const body = `${doc}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  labels: *a${levels - 1}\n`;
  return {
    category: 'yaml-bomb',
    method: pick(r, ['POST', 'PUT']),
    path: r() < 0.5 ? seedCms : `${seedCm(r)}`,
    headers: { 'content-type': pick(r, ['application/yaml', 'application/yaml; charset=utf-8', 'APPLICATION/YAML']) },
    body,
    mustFail: true,
  };
}

function hugeBody(r: Random): FuzzCase {
  const size = REQUEST_LIMIT + int(r, 1, 512 * 1024);
  const padding = 'x'.repeat(size);
  const body = r() < 0.5 ? padding : JSON.stringify({ ...validConfigMap('huge'), data: { big: padding } });
  return {
    category: 'huge-body',
    method: pick(r, ['POST', 'PUT', 'PATCH']),
    path: pick(r, [seedCms, seedCm(r), seedWidget(r)]),
    headers: { 'content-type': pick(r, ['application/json', 'application/merge-patch+json', 'application/yaml']) },
    body,
    expect: [413],
    mustFail: true,
  };
}

/** An object under the request limit but over the per-object limit: a custom resource, which has no size rule of its own. */
function bigObject(r: Random): FuzzCase {
  const size = OBJECT_LIMIT + int(r, 1024, REQUEST_LIMIT - OBJECT_LIMIT - 64 * 1024);
  const chunk = 'y'.repeat(1000);
  // Each item costs its 1,000 bytes plus quotes and a comma: the stored object is over `size`, hence over the limit.
  const items = Array.from({ length: Math.ceil(size / 1000) }, () => chunk);
  const name = `big-${int(r, 0, 1e9)}`;
  const widget = { apiVersion: `${WIDGET_GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { items } };
  const asUpdate = r() < 0.5;
  if (asUpdate) {
    const target = seedWidget(r);
    const targetName = target.slice(target.lastIndexOf('/') + 1);
    return r() < 0.5
      ? { category: 'big-object', method: 'PATCH', path: target, headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { items } }), expect: [413], mustFail: true }
      : // kube wants a resourceVersion on a custom resource's PUT (422 without one); with it, the size decides.
        { category: 'big-object', method: 'PUT', path: target, headers: json, body: JSON.stringify({ ...widget, metadata: { name: targetName } }), expect: [413, 422], mustFail: true };
  }
  return { category: 'big-object', method: 'POST', path: seedWidgets, headers: json, body: JSON.stringify(widget), expect: [413], mustFail: true };
}

function deepNesting(r: Random): FuzzCase {
  // kcpt refuses bodies nested deeper than 1,000 levels (kube: 10,000); anything shallower may be a valid custom resource.
  const depth = pick(r, [64, 999, 1001, 9000, 12_000, 100_000]);
  const inner = deepJson(depth, r() < 0.5 ? 'object' : 'array');
  const variants = [
    () => ({ path: seedWidgets, method: 'POST', body: `{"apiVersion":"${WIDGET_GROUP}/v1","kind":"Widget","metadata":{"name":"deep-${depth}"},"spec":${inner}}`, headers: json }),
    () => ({ path: seedWidget(r), method: 'PATCH', body: `{"spec":${inner},"metadata":{"resourceVersion":"1"}}`, headers: { 'content-type': 'application/merge-patch+json' } }),
    () => ({ path: seedCms, method: 'POST', body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${inner}}`, headers: json }),
    () => ({ path: seedCm(r), method: 'PATCH', body: `[{"op":"add","path":"/data/x","value":${inner}}]`, headers: { 'content-type': 'application/json-patch+json' } }),
    () => ({ path: seedCms, method: 'POST', body: `${'- '.repeat(Math.min(depth, 20_000))}x`, headers: { 'content-type': 'application/yaml' } }),
  ];
  const v = pick(r, variants)();
  // A deep custom resource spec could be valid (the schema preserves unknown fields): only the depth must fail it,
  // so below kube's limit it goes to scratch instead.
  if (depth < 1000 && v.path === seedWidgets) return { category: 'deep-nesting', ...v, path: scratchWidgets };
  return { category: 'deep-nesting', ...v, mustFail: true };
}

function wrongContentType(r: Random): FuzzCase {
  const type = pick(r, ['text/plain', 'application/xml', 'text/html', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'image/png', 'application/json-seq', ';;;', 'application/', '*/*', 'application/cbor']);
  const method = pick(r, ['POST', 'PUT', 'PATCH']);
  const path = method === 'POST' ? seedCms : seedCm(r);
  return { category: 'content-type', method, path, headers: { 'content-type': type }, body: JSON.stringify(validConfigMap('ct')), expect: [400, 415], mustFail: true };
}

function brokenProtobuf(r: Random): FuzzCase {
  const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
  const variants = [
    () => randomBytes(r, int(r, 0, 64)),
    () => Buffer.concat([magic, randomBytes(r, int(r, 0, 128))]),
    // An Unknown envelope whose length prefixes point past the end.
    () => Buffer.concat([magic, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), randomBytes(r, 8)]),
    () => Buffer.concat([magic, Buffer.from([0x12, int(r, 0, 255), 0x08, 0x96, 0x01]), randomBytes(r, int(r, 0, 32))]),
    () => magic,
  ];
  return {
    category: 'protobuf',
    method: pick(r, ['POST', 'PUT']),
    path: r() < 0.7 ? seedCms : seedCm(r),
    headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    body: pick(r, variants)(),
    mustFail: true,
  };
}

const badNames = ['UPPER', 'under_score', '.', '..', '-lead', 'trail-', 'a'.repeat(254), 'sp ace', 'tab\t', 'émoji', 'a..b', 'x%00y', '%2e%2e', 'a/b', '*'];

function invalidName(r: Random): FuzzCase {
  const name = pick(r, badNames);
  if (r() < 0.5) {
    return { category: 'invalid-name', method: 'POST', path: seedCms, headers: json, body: JSON.stringify(validConfigMap(name)), expect: [400, 422], mustFail: true };
  }
  // Dots are escaped too: a client would normalize a bare `.`/`..` segment away (`configmaps/.` is the collection).
  const path = `${seedCms}/${encodeURIComponent(name).replace(/\./g, '%2E')}`;
  return { category: 'invalid-name', method: pick(r, ['GET', 'DELETE', 'PUT']), path, headers: json, body: JSON.stringify(validConfigMap(name)), mustFail: true };
}

function hostilePath(r: Random): FuzzCase {
  const paths = [
    `${root}/api/v1/namespaces/..%2f${SEED_NAMESPACE}/configmaps`,
    `${root}/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/..%2fseed-0`,
    `${root}/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/%2e%2e`,
    `${root}/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/seed-0%2f..%2fseed-1`,
    `/clusters/root%2f..%2fsystem:admin/api/v1/namespaces`,
    `/clusters/%2e%2e/api/v1/namespaces`,
    `/clusters/root/../root/api/v1/namespaces`,
    `/clusters//api/v1/namespaces`,
    `/clusters/root:does-not-exist:x/api/v1/namespaces`,
    `/clusters/${'a'.repeat(300)}/api/v1/namespaces`,
    `/clusters/root/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/seed-0/status/extra/more`,
    `/clusters/root/api/v1/nonexistentresources`,
    `/clusters/root/apis/nope.example.com/v1/things`,
    `/clusters/root/apis/${WIDGET_GROUP}/v9/widgets`,
    `/clusters/root/api/v2/pods`,
    `/clusters/root/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/%00`,
    `/clusters/root/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/%ff%fe`,
    `/clusters/root/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/%`,
    `/services/../../etc/passwd`,
    `/%2e%2e/%2e%2e/etc/passwd`,
    `/clusters/*/api/v1/namespaces/${SEED_NAMESPACE}/configmaps/seed-0`,
    `/clusters/root/api/v1/namespaces/${SEED_NAMESPACE}//configmaps`,
    `/clusters/root/api/v1/${'x/'.repeat(int(r, 10, 400))}`,
    `/${urlSafe(randomText(r, 30).replace(/[#?]/g, 'q'))}`,
    `/apis/${encodeURIComponent(randomText(r, 12))}/v1`,
    `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/..%2f..%2f`,
    `/services/apiexport/root/nope/clusters/*/api/v1/configmaps`,
    `/openapi/v3/apis/${encodeURIComponent(randomText(r, 10))}`,
  ];
  const method = pick(r, ['GET', 'GET', 'DELETE', 'PUT', 'POST', 'PATCH']);
  const withBody = method !== 'GET' && method !== 'DELETE';
  return {
    category: 'path',
    method,
    path: pick(r, paths),
    headers: withBody ? { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } : undefined,
    body: withBody ? JSON.stringify(validConfigMap('seed-0')) : undefined,
    // A hostile path never reaches a seeded object; only /clusters/root paths that resolve could (and none here does).
    mustFail: method !== 'GET',
  };
}

// Past the selector budget (100 requirements, 100 values a set): refused before a list or watch scans with them.
const tooManyKeys = Array.from({ length: 101 }, (_, i) => `k${i}`).join(',');
const tooManyValues = `a in (${Array.from({ length: 101 }, (_, i) => `v${i}`).join(',')})`;
const tooManyFields = Array.from({ length: 101 }, (_, i) => `metadata.name!=n${i}`).join(',');

function badSelector(r: Random): FuzzCase {
  if (r() < 0.2) {
    // Random text may happen to be a valid selector: read-only, and no verdict beyond the global ones.
    const which = r() < 0.5 ? 'labelSelector' : 'fieldSelector';
    return { category: 'selector', method: 'GET', path: `${seedCms}?${which}=${encodeURIComponent(randomText(r, 12))}` };
  }
  const label = pick(r, ['a in (', 'a notin', '!', '=x', 'a==b==c', 'a,', ',', 'A_B-=1', 'a=b,c in (', `a=${'b'.repeat(70)}`, '(', 'a in (b) )', 'x<', tooManyKeys, tooManyValues]);
  const field = pick(r, ['spec.nope=x', 'metadata.name', '=', 'metadata.name=a,b', 'status.phase!=', 'metadata.namespace in (a)', tooManyFields]);
  const which = r() < 0.5 ? `labelSelector=${encodeURIComponent(label)}` : `fieldSelector=${encodeURIComponent(field)}`;
  const base = pick(r, [seedCms, scratchCms, `${root}/api/v1/configmaps`, seedWidgets, `/clusters/*/api/v1/configmaps`]);
  // DELETE on a collection with a selector is deletecollection: an unparsable selector must stop it cold.
  const method = pick(r, ['GET', 'DELETE']);
  // kcp-admin may not list across every workspace: a wildcard list is refused (403) before its selector is read.
  const path = method === 'DELETE' ? seedCms : base;
  return { category: 'selector', method, path: `${path}?${which}`, expect: path.startsWith('/clusters/*') ? [400, 403] : [400], mustFail: true };
}

function badContinue(r: Random): FuzzCase {
  const tokens = [
    randomText(r, int(r, 1, 40)),
    Buffer.from(randomText(r, 30)).toString('base64'),
    Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: -5, start: 'x' })).toString('base64'),
    Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '../../../' })).toString('base64'),
    Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1e20, start: 'seed-1' })).toString('base64'),
    Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '\u0000' })).toString('base64url'),
    Buffer.from(JSON.stringify({ v: 'v0', rv: 1, start: 'a' })).toString('base64'),
    Buffer.from(JSON.stringify([1, 2])).toString('base64'),
    '=',
  ];
  const base = pick(r, [seedCms, `${root}/api/v1/configmaps`, seedWidgets, `/clusters/*/api/v1/configmaps`]);
  return { category: 'continue', method: 'GET', path: `${base}?limit=${int(r, 1, 5)}&continue=${encodeURIComponent(pick(r, tokens))}`, expect: base.startsWith('/clusters/*') ? [400, 403, 410] : [400, 410] };
}

function badPatch(r: Random): FuzzCase {
  const target = r() < 0.7 ? seedCm(r) : seedWidget(r);
  const type = pick(r, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
  const jsonPatches = [
    '[{"op":"bogus","path":"/data/x","value":"y"}]',
    '[{"op":"add","path":"data/x","value":"y"}]',
    '[{"op":"test","path":"/metadata/name","value":"not-this"},{"op":"add","path":"/data/z","value":"1"}]',
    '[{"op":"remove","path":"/data/does-not-exist"}]',
    '[{"op":"replace","path":"/metadata/name","value":"renamed"}]',
    '[{"op":"move","from":"/data/nothing","path":"/data/x"}]',
    '[{"op":"add","path":"/metadata/__proto__/polluted","value":1},{"op":"test","path":"/kind","value":"Nope"}]',
    '[{"op":"copy","from":"/metadata","path":"/metadata/labels/x"}]',
    `[${Array.from({ length: 10_001 }, () => '{"op":"test","path":"/kind","value":"ConfigMap"}').join(',')}]`,
    '{"op":"add"}',
    '[1,2,3]',
    '[{"op":"add","path":"/spec/x","value":{"$ref":"#"}},{"op":"test","path":"/kind","value":"X"}]',
  ];
  const mergePatches = [
    '[1]', '"string"', '42', 'null', '{"metadata":{"name":"renamed"}}', '{"metadata":{"namespace":"elsewhere"}}', '{"kind":"Secret"}',
    '{"apiVersion":"v9"}', '{"metadata":{"resourceVersion":"1"},"data":{"x":"y"}}', '{"metadata":{"labels":{"bad key!":"v"}}}',
    '{"metadata":{"uid":"not-the-uid"},"data":{"x":"y"}}', '{"data":', '{"metadata":{"labels":{"a":{"b":1}}}}',
  ];
  const strategic = [
    '{"metadata":{"$patch":"bogus"}}', '{"$patch":"delete"}', '{"metadata":{"finalizers":{"$patch":"replace"}}}',
    '{"metadata":{"$setElementOrder/finalizers":[1]},"data":{"x":1}}', '{"$retainKeys":"x"}', '{"metadata":{"name":"renamed"}}',
    '{"metadata":{"ownerReferences":[{"$patch":"delete"}]},"kind":"Nope"}',
  ];
  const apply = [
    'apiVersion: v1\nmetadata: {name: seed-0}\n', 'kind: ConfigMap\n', '{', '- a\n- b\n', 'apiVersion: v1\nkind: Secret\nmetadata: {name: seed-0}\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other-name}\n', '[1]', '',
  ];
  let body: string;
  let query = '';
  switch (type) {
    case 'application/json-patch+json':
      body = pick(r, jsonPatches);
      break;
    case 'application/merge-patch+json':
      body = pick(r, mergePatches);
      break;
    case 'application/strategic-merge-patch+json':
      body = pick(r, strategic);
      break;
    default:
      body = pick(r, apply);
      // Apply needs a field manager; without one, or a too long one, it is a 400/422 on any body.
      query = r() < 0.3 ? '' : `?fieldManager=${r() < 0.5 ? 'fuzz' : 'm'.repeat(200)}&force=${pick(r, ['true', 'maybe', ''])}`;
  }
  // A widget served from a CRD takes no strategic merge patch (415), and none of the other bodies is a valid change.
  return { category: 'patch', method: 'PATCH', path: `${target}${query}`, headers: { 'content-type': type }, body, mustFail: true };
}

function badResourceVersion(r: Random): FuzzCase {
  // A revision from the future costs kube's 3 s wait before its 504: rare, so the run stays short.
  const rv = r() < 0.05 ? pick(r, ['9007199254740993', '999999999']) : pick(r, ['-1', 'abc', '99999999999999999999', '1e10', '0x10', ' 1', '1.5', '']);
  const match = pick(r, ['', 'Exact', 'NotOlderThan', 'Bogus']);
  const q = `resourceVersion=${encodeURIComponent(rv)}${match ? `&resourceVersionMatch=${match}` : ''}`;
  const variants: Array<() => FuzzCase> = [
    () => ({ category: 'resource-version', method: 'GET', path: `${seedCms}?${q}`, mustFail: rv !== '' && rv !== '999999999' ? true : undefined }),
    () => ({ category: 'resource-version', method: 'GET', path: `${seedCm(r)}?${q}` }),
    () => {
      const path = seedCm(r);
      const name = path.slice(path.lastIndexOf('/') + 1);
      // A PUT with a resourceVersion that is not the current one (or not a number) never lands.
      return { category: 'resource-version', method: 'PUT', path, headers: json, body: JSON.stringify({ ...validConfigMap(name), metadata: { name, resourceVersion: rv || 'x' } }), mustFail: true };
    },
    () => ({ category: 'resource-version', method: 'DELETE', path: seedCm(r), headers: json, body: JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: rv || 'x' } }), mustFail: true }),
  ];
  return pick(r, variants)();
}

function badQuery(r: Random): FuzzCase {
  const params = [
    'limit=abc', 'limit=1e100', 'limit=-5', 'watch=maybe', 'timeoutSeconds=-1', 'timeoutSeconds=abc', 'timeoutSeconds=1e99',
    'dryRun=Bogus', 'fieldManager=' + 'f'.repeat(300), 'propagationPolicy=Sideways', 'gracePeriodSeconds=-5', 'gracePeriodSeconds=x',
    'pretty=maybe', 'sendInitialEvents=true', 'allowWatchBookmarks=1&watch=nope', 'fieldValidation=Shout', 'orphanDependents=perhaps',
    `labelSelector=${'a'.repeat(5000)}`,
  ];
  const p = pick(r, params);
  const method = pick(r, ['GET', 'DELETE', 'POST']);
  // kube ignores parameters an operation does not take, so only what a DELETE must refuse is aimed at seeded objects.
  // (orphanDependents=perhaps is true to kube, so that DELETE succeeds.)
  const refusedByDelete = ['dryRun=Bogus', 'propagationPolicy=Sideways', 'gracePeriodSeconds=x'].includes(p);
  const scratchName = `q-${int(r, 0, 1e9)}`;
  const path = method === 'GET' ? seedCms : method === 'DELETE' ? (refusedByDelete ? seedCm(r) : `${scratchCms}/${scratchName}`) : scratchCms;
  const body = method === 'POST' ? JSON.stringify(validConfigMap(scratchName)) : undefined;
  const mustFail = method === 'DELETE' && refusedByDelete ? true : undefined;
  // kube reads a boolean as false only from 0 or false (any case): watch=maybe is a watch, which stays open.
  const stream = method === 'GET' && ['watch=maybe', 'allowWatchBookmarks=1&watch=nope'].includes(p) ? true : undefined;
  return { category: 'query', method, path: `${path}?${p}`, headers: body ? json : undefined, body, mustFail, stream };
}

function badHeaders(r: Random): FuzzCase {
  const variants: Array<() => FuzzCase> = [
    () => ({ category: 'headers', method: 'GET', path: seedCms, headers: { accept: pick(r, ['text/html', 'application/xml', 'image/*', 'application/json;as=Nope;g=x;v=y', 'application/json;as=Table;v=v9;g=meta.k8s.io']) } }),
    () => ({ category: 'headers', method: 'GET', path: seedWidgets, headers: { accept: 'application/vnd.kubernetes.protobuf' } }),
    () => ({ category: 'headers', method: pick(r, ['GET', 'DELETE']), path: seedCm(r), headers: { authorization: pick(r, ['Bearer nope', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'Bearer ' + 'x'.repeat(4000), 'Negotiate abc']) }, expect: [401], mustFail: true }),
    () => ({ category: 'headers', method: 'POST', path: seedCms, headers: { 'content-type': 'application/json', 'content-encoding': pick(r, ['gzip', 'br', 'bogus']) }, body: randomBytes(r, 40), mustFail: true }),
    () => ({ category: 'headers', method: 'GET', path: seedCms, headers: { 'impersonate-user': pick(r, ['', 'system:admin', 'nobody']), 'impersonate-group': 'system:masters' } }),
  ];
  return pick(r, variants)();
}

function badMethod(r: Random): FuzzCase {
  // Methods kube routes nowhere are a 405 Status on every path; the others get whatever the path answers them.
  const method = pick(r, ['PUT', 'PATCH', 'DELETE', 'POST', 'OPTIONS', 'PROPFIND', 'TRACE', 'MKCOL']);
  const path = pick(r, [`${root}/api`, `${root}/apis`, `${root}/version`, `/version`, `/healthz`, `/openapi/v2`, `${root}/api/v1`, `/metrics`]);
  const unrouted = method === 'PROPFIND' || method === 'TRACE' || method === 'MKCOL';
  return { category: 'method', method, path, headers: json, body: '{}', ...(unrouted ? { expect: [405], mustFail: true } : {}) };
}

function watchAbuse(r: Random): FuzzCase {
  const variants: Array<() => FuzzCase> = [
    () => ({ category: 'watch', method: 'GET', path: `${seedCms}?watch=true&timeoutSeconds=${pick(r, ['abc', '1e99', '1.5'])}`, expect: [400] }),
    // A negative timeout is a number: kube opens the watch and its timer ends it at once.
    () => ({ category: 'watch', method: 'GET', path: `${seedCms}?watch=true&timeoutSeconds=-${int(r, 1, 5)}`, expect: [200] }),
    // Far behind the compacted history: 410 Gone, or kube's 200 with an ERROR event carrying it.
    () => ({ category: 'watch', method: 'GET', path: `${seedCms}?watch=true&resourceVersion=1`, stream: true }),
    () => ({ category: 'watch', method: 'GET', path: `${seedCms}?watch=true&resourceVersion=${pick(r, ['-3', 'x', '1e3'])}`, expect: [400] }),
    () =>
      r() < 0.1
        ? { category: 'watch', method: 'GET', path: `${seedCms}?watch=true&resourceVersion=99999999999`, expect: [504] }
        : { category: 'watch', method: 'GET', path: `${seedCms}?watch=true&resourceVersionMatch=Exact&resourceVersion=1`, expect: [400, 422] },
    // A valid watch, opened and dropped before it ends (the server must let go of it).
    () => ({ category: 'watch', method: 'GET', path: `${pick(r, [seedCms, seedWidgets, `/clusters/*/api/v1/configmaps`, `${root}/api/v1/namespaces`])}?watch=true&timeoutSeconds=${int(r, 1, 30)}${r() < 0.5 ? '&allowWatchBookmarks=true' : ''}`, stream: true }),
    () => ({ category: 'watch', method: 'GET', path: `${seedCms}?watch=true&sendInitialEvents=true&resourceVersionMatch=${pick(r, ['Exact', 'NotOlderThan', 'Bogus'])}`, stream: true }),
  ];
  return pick(r, variants)();
}

function workspaceAbuse(r: Random): FuzzCase {
  const ws = `${root}/apis/tenancy.kcp.io/v1alpha1/workspaces`;
  const bodies = [
    { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: pick(r, badNames) } },
    // An empty name with an empty path is kcp's "no type" (the parent's default child type), so it is not drawn here.
    { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'typed' }, spec: { type: pick(r, [
      { name: pick(r, ['no-such-type', 'UPPER']), path: pick(r, ['root', 'root:nope', '..', '']) },
      { name: '', path: pick(r, ['root', 'root:nope', '..']) },
    ]) } },
    { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'u' }, spec: { URL: 'https://evil', cluster: 'x' } },
    { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'w' }, spec: 'x' },
  ];
  return { category: 'workspace', method: 'POST', path: ws, headers: json, body: JSON.stringify(pick(r, bodies)), mustFail: true, expect: [400, 403, 422] };
}

const generators: Array<[number, (r: Random) => FuzzCase]> = [
  [10, brokenJson],
  [4, yamlBomb],
  [0.15, hugeBody],
  [0.3, bigObject],
  [3, deepNesting],
  [5, wrongContentType],
  [6, brokenProtobuf],
  [7, invalidName],
  [10, hostilePath],
  [8, badSelector],
  [6, badContinue],
  [12, badPatch],
  [8, badResourceVersion],
  [8, badQuery],
  [5, badHeaders],
  [3, badMethod],
  [3, watchAbuse],
  [3, workspaceAbuse],
];
const totalWeight = generators.reduce((sum, [w]) => sum + w, 0);

export function nextCase(r: Random): FuzzCase {
  let at = r() * totalWeight;
  for (const [weight, generate] of generators) {
    at -= weight;
    if (at <= 0) return generate(r);
  }
  return generators[generators.length - 1]![1](r);
}
