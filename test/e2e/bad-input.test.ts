/**
 * Bad input gets a Kubernetes Status with the right code and a message a person can act on — never a 500, a
 * hang, or a half-written object.
 */
import { describe, expect, it } from 'vitest';
import { apiRequest } from '../helpers/http.js';
import { useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer({ storage: 'memory://' });
const collection = '/clusters/root/api/v1/namespaces/default/configmaps';

async function expectStatus(path: string, init: Parameters<typeof apiRequest>[2], code: number, reason: string, message: RegExp) {
  const res = await apiRequest(e2e.server, path, init);
  expect(res.status).toBe(code);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  const status = res.json();
  expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  expect(status.message).toMatch(message);
}

async function configmapCount(): Promise<number> {
  const res = await apiRequest(e2e.server, collection);
  return res.json().items.length;
}

describe('bad request bodies', () => {
  it('are refused with 4xx and leave nothing behind', async () => {
    const before = await configmapCount();
    const json = { 'content-type': 'application/json' };
    await expectStatus(collection, { method: 'POST', headers: json, body: 'x'.repeat(4 * 1024 * 1024) }, 413, 'RequestEntityTooLarge', /limit is 3145728/);
    // The same limit whichever way the body's type is found: with parameters, upper-cased, a patch type, any other.
    for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/merge-patch+json', 'text/html']) {
      await expectStatus(collection, { method: 'POST', headers: { 'content-type': type }, body: 'x'.repeat(4 * 1024 * 1024) }, 413, 'RequestEntityTooLarge', /limit is 3145728/);
    }
    await expectStatus(collection, { method: 'POST', headers: { 'content-type': 'Application/Json; charset=utf-8' }, body: '{"apiVersion":' }, 400, 'BadRequest', /not valid JSON/);
    await expectStatus(collection, { method: 'POST', headers: json, body: '{"apiVersion":' }, 400, 'BadRequest', /not valid JSON/);
    await expectStatus(collection, { method: 'POST', headers: json, body: '[1,2]' }, 400, 'BadRequest', /must be a JSON or YAML object/);
    const bomb = 'a: &a ["x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n';
    await expectStatus(collection, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: bomb }, 400, 'BadRequest', /not valid YAML: document contains excessive aliasing/);
    await expectStatus(collection, { method: 'POST', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: Buffer.from('k8s\0\x0a\xff\xff\xff') }, 400, 'BadRequest', /protobuf/);
    await expectStatus(collection, { method: 'POST', headers: { 'content-type': 'text/html' }, body: '<p>' }, 415, 'UnsupportedMediaType', /accepted media types include/);
    await expectStatus(
      collection,
      { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }) },
      422,
      'Invalid',
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    await expectStatus(
      collection,
      { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }) },
      400,
      'BadRequest',
      /kind in the data \(Secret\) does not match the expected kind \(ConfigMap\)/,
    );
    expect(await configmapCount()).toBe(before);
  });
});

describe('bad query parameters and paths', () => {
  it('answer 400 with the reason', async () => {
    await expectStatus(`${collection}?labelSelector=${encodeURIComponent('a in (')}`, {}, 400, 'BadRequest', /unable to parse requirement/);
    await expectStatus(`${collection}?fieldSelector=spec.nope%3Dx`, {}, 400, 'BadRequest', /spec\.nope/);
    await expectStatus(`${collection}?continue=garbage`, {}, 400, 'BadRequest', /continue key is not valid/);
    await expectStatus(`${collection}?resourceVersion=abc`, {}, 400, 'BadRequest', /invalid resource version/);
    await expectStatus(`${collection}?limit=abc`, {}, 400, 'BadRequest', /^strconv.ParseInt: parsing "abc": invalid syntax$/);
    await expectStatus('/clusters/root/api/v1/namespaces/..%2f../configmaps', {}, 400, 'BadRequest', /invalid path segment/);
    await expectStatus('/clusters/Not_A_Cluster/api/v1/namespaces', {}, 400, 'BadRequest', /invalid cluster/);
  });

  it('a watch, list or get from a revision far in the future ends with 504 Too large resource version, retry after 1 s', async () => {
    await apiRequest(e2e.server, collection, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'future-get' } }),
    });
    // A get at a revision already reached answers the object; one that is not a revision is refused, as lists do.
    expect((await apiRequest(e2e.server, `${collection}/future-get?resourceVersion=1`)).status).toBe(200);
    await expectStatus(`${collection}/future-get?resourceVersion=abc`, {}, 400, 'BadRequest', /^invalid resource version: "abc"$/);
    const cause = { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' };
    for (const request of [`${collection}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`, `${collection}/future-get?resourceVersion=999999999`]) {
      // kube's NewTooLargeResourceVersionError from the watch cache: client-go waits Retry-After and asks again.
      await expectStatus(request, {}, 504, 'Timeout', /^Timeout: Too large resource version: 999999999, current: \d+$/);
      const res = await apiRequest(e2e.server, request);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json().details).toEqual({ causes: [cause], retryAfterSeconds: 1 });
    }
    // A watch gets no retry: an informer holding revisions of an earlier (memory) store relists at once.
    const watch = `${collection}?watch=true&resourceVersion=999999999`;
    await expectStatus(watch, {}, 504, 'Timeout', /^Timeout: Too large resource version: 999999999, current: \d+$/);
    const res = await apiRequest(e2e.server, watch);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.json().details).toEqual({ causes: [cause] });
  });

  it('a patch type the server does not know is 415', async () => {
    await apiRequest(e2e.server, collection, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patch-me' } }),
    });
    await expectStatus(`${collection}/patch-me`, { method: 'PATCH', headers: { 'content-type': 'application/xml' }, body: '<x/>' }, 415, 'UnsupportedMediaType', /accepted media types include/);
    await expectStatus(`${collection}/patch-me`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":' }, 400, 'BadRequest', /.+/);
  });
});

describe('defects the fuzzer found (test/reliability/fuzz.test.ts)', () => {
  const cm = `${collection}/fuzz-found`;
  const json = { 'content-type': 'application/json' };

  it('a patch or create with metadata of the wrong shape is 422 or 400, never a 500 or a stored oddity', async () => {
    await apiRequest(e2e.server, collection, { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fuzz-found' }, data: { keep: 'me' } }) });
    const smp = { 'content-type': 'application/strategic-merge-patch+json' };
    await expectStatus(
      cm,
      { method: 'PATCH', headers: smp, body: '{"metadata":{"finalizers":{"$patch":"replace"}}}' },
      422,
      'Invalid',
      /patch: Invalid value: .*json: cannot unmarshal object into Go struct field ObjectMeta.metadata.finalizers of type \[\]string/,
    );
    await expectStatus(cm, { method: 'PATCH', headers: smp, body: '{"$patch":"delete"}' }, 400, 'BadRequest', /the name of the object \(\) does not match the name on the URL \(fuzz-found\)/);
    await expectStatus(
      collection,
      { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed', labels: { a: 1 } } }) },
      400,
      'BadRequest',
      /^ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string$/,
    );
    await expectStatus(
      collection,
      { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed' }, data: [['x']] }) },
      400,
      'BadRequest',
      /^ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map\[string\]string$/,
    );
    expect((await apiRequest(e2e.server, cm)).json().data).toEqual({ keep: 'me' });
  });

  it('a body nested deeper than 1,000 levels is a 400, not a stack overflow', async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    await expectStatus(collection, { method: 'POST', headers: json, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${deep(5000)}}` }, 400, 'BadRequest', /exceeded max depth of 1000/);
    await expectStatus(cm, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: `{"data":${deep(5000)}}` }, 400, 'BadRequest', /exceeded max depth of 1000/);
  });

  it('a YAML body nested ~1,000 levels is a 400 and the server lives on (it once aborted the process)', async () => {
    const target = `${collection}/yaml-deep`;
    await apiRequest(e2e.server, collection, { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'yaml-deep' } }) });
    // Each shape twice: V8 compiles a regular expression again on its second use, which is where it aborted.
    const yaml = { 'content-type': 'application/yaml' };
    for (const body of [`${'- '.repeat(999)}x`, `${'- '.repeat(999)}x`, `data: ${'['.repeat(999)}${']'.repeat(999)}`, `data: ${'['.repeat(999)}${']'.repeat(999)}`]) {
      await expectStatus(collection, { method: 'POST', headers: yaml, body }, 400, 'BadRequest', /not valid YAML: exceeded max depth of 500 nested collections/);
    }
    const apply = { 'content-type': 'application/apply-patch+yaml' };
    for (let i = 0; i < 2; i++) {
      await expectStatus(`${collection}/deep-apply?fieldManager=fuzz`, { method: 'PATCH', headers: apply, body: `${'- '.repeat(999)}x` }, 400, 'BadRequest', /error decoding YAML: exceeded max depth of 500/);
      // node's client frames a DELETE's body only when told its length.
      await expectStatus(target, { method: 'DELETE', headers: { ...yaml, 'content-length': String(2 * 999 + 1) }, body: `${'- '.repeat(999)}x` }, 400, 'BadRequest', /DeleteOptions .* not valid: exceeded max depth of 500/);
    }
    // Nesting under the bound still parses: the 400 is the typed decode's (data is no map), not the YAML reader's.
    for (let i = 0; i < 2; i++) {
      await expectStatus(collection, { method: 'POST', headers: yaml, body: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nested}\ndata: ${'['.repeat(400)}${']'.repeat(400)}` }, 400, 'BadRequest', /cannot unmarshal array into Go struct field ConfigMap.data of type map\[string\]string/);
    }
    expect((await apiRequest(e2e.server, '/readyz')).status).toBe(200);
    expect((await apiRequest(e2e.server, target)).status).toBe(200);
  });

  it('resourceVersions beyond what a revision can be are 400 or 504, not 500', async () => {
    const token = (rv: string) => Buffer.from(`{"v":"meta.k8s.io/v1","rv":${rv},"start":"a"}`).toString('base64url');
    await expectStatus(`${collection}?limit=1&continue=${token('1e20')}`, {}, 400, 'BadRequest', /incorrect encoded start resourceVersion/);
    await expectStatus(`${collection}?limit=1&continue=${token('-5')}`, {}, 400, 'BadRequest', /incorrect encoded start resourceVersion/);
    await expectStatus(`${collection}?resourceVersion=9007199254740993&resourceVersionMatch=Exact`, {}, 504, 'Timeout', /Too large resource version/);
  });

  it('a Workspace whose spec is not an object is 422', async () => {
    await expectStatus(
      '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces',
      { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'w' }, spec: 'x' }) },
      422,
      'Invalid',
      /spec/,
    );
  });

  it('a path that is not valid percent-encoding, or a dot segment spelt %2e, is a 400 Status', async () => {
    await expectStatus(`${collection}/%ff%fe`, {}, 400, 'BadRequest', /invalid path/);
    await expectStatus(`${collection}/%`, {}, 400, 'BadRequest', /invalid path/);
    await expectStatus(`${collection}/%2e%2e`, { method: 'DELETE' }, 400, 'BadRequest', /invalid path segment/);
    await expectStatus('/clusters/root/api/v1/namespaces/default//configmaps', { method: 'DELETE' }, 400, 'BadRequest', /invalid path segment/);
  });
});

describe('YAML bodies (read by src/engine/machinery/request-yaml.ts)', () => {
  const yaml = { 'content-type': 'application/yaml' };
  const apply = { 'content-type': 'application/apply-patch+yaml' };
  const json = { 'content-type': 'application/json' };
  const laughs = () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: laughs}', 'l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 10; i++) lines.push(`l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(', ')}]`);
    return lines.join('\n');
  };
  const excessive = /document contains excessive aliasing: \d+ of its \d+ nodes come from aliases \(\*name\); write the repeated parts out$/;
  const tooLarge = /its aliases \(\*name\) expand it by more than 3145728 nodes and characters/;

  it('a billion laughs, or a 1 MiB string aliased three times, is a 400 on create, apply and delete; the server answers the next request', async () => {
    await expectStatus(collection, { method: 'POST', headers: yaml, body: laughs() }, 400, 'BadRequest', new RegExp(`^the request body is not valid YAML: ${excessive.source}`));
    const big = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strings}\nx: &s ${'x'.repeat(1024 * 1024)}\ndata: {a: *s, b: *s, c: *s}\n`;
    await expectStatus(collection, { method: 'POST', headers: yaml, body: big }, 400, 'BadRequest', tooLarge);
    await expectStatus(`${collection}/laughs?fieldManager=t`, { method: 'PATCH', headers: apply, body: laughs() }, 400, 'BadRequest', new RegExp(`^error decoding YAML: ${excessive.source}`));
    await apiRequest(e2e.server, collection, { method: 'POST', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'laugh-target' } }) });
    const body = `${laughs().split('\n').slice(3).join('\n')}\npropagationPolicy: Foreground\n`;
    await expectStatus(`${collection}/laugh-target`, { method: 'DELETE', headers: { ...yaml, 'content-length': String(Buffer.byteLength(body)) }, body }, 400, 'BadRequest', new RegExp(`^the DeleteOptions in the request body are not valid: ${excessive.source}`));
    expect((await apiRequest(e2e.server, `${collection}/laugh-target`)).status).toBe(200);
    expect((await apiRequest(e2e.server, '/readyz')).status).toBe(200);
  });

  it('ordinary anchors and aliases are read into the object', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchored\n  labels: &l {app: web, tier: front}\n  annotations: *l\ndata: {a: &v shared, b: *v}\n';
    const created = await apiRequest(e2e.server, collection, { method: 'POST', headers: yaml, body });
    expect(created.status).toBe(201);
    expect(created.json().metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(created.json().metadata.annotations).toMatchObject({ app: 'web', tier: 'front' });
    expect(created.json().data).toEqual({ a: 'shared', b: 'shared' });
  });

  it('scalars read as before: yes, on and timestamps stay strings, quoted text is text, !!binary is its base64', async () => {
    const body = [
      'apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: scalars}', 'data:',
      '  yes: yes', '  on: on', '  when: 2001-12-14t21:59:43.10-05:00', '  day: 2002-12-14', '  hex: "0x1f"', '  tilde: "~"', '  plain: hello world',
      'binaryData:', '  blob: !!binary |', '    aGVs', '    bG8=',
    ].join('\n');
    const created = await apiRequest(e2e.server, collection, { method: 'POST', headers: yaml, body });
    expect(created.status).toBe(201);
    expect(created.json().data).toEqual({ yes: 'yes', on: 'on', when: '2001-12-14t21:59:43.10-05:00', day: '2002-12-14', hex: '0x1f', tilde: '~', plain: 'hello world' });
    expect(created.json().binaryData).toEqual({ blob: Buffer.from('hello').toString('base64') });
    // Unquoted, 0x1f is the number 31 and ~ is null, as YAML 1.2 reads them: not strings, so a ConfigMap refuses them.
    await expectStatus(collection, { method: 'POST', headers: yaml, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hex}\ndata: {hex: 0x1f}' }, 400, 'BadRequest', /cannot unmarshal number into Go struct field ConfigMap.data of type string/);
  });

  it('duplicate keys: the last wins on create; an apply refuses them under Strict and warns under Warn; DeleteOptions refuse them', async () => {
    const body = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  b: "2"\n  a: "3"\n`;
    const created = await apiRequest(e2e.server, collection, { method: 'POST', headers: yaml, body: body('dup-create') });
    expect([created.status, created.json().data]).toEqual([201, { a: '3', b: '2' }]);
    await expectStatus(`${collection}/dup-apply?fieldManager=t&fieldValidation=Strict`, { method: 'PATCH', headers: apply, body: body('dup-apply') }, 400, 'BadRequest', /^error strict decoding YAML: Map keys must be unique at line 8, column 3$/);
    const warned = await apiRequest(e2e.server, `${collection}/dup-apply?fieldManager=t&fieldValidation=Warn`, { method: 'PATCH', headers: apply, body: body('dup-apply') });
    expect([warned.status, warned.json().data]).toEqual([201, { a: '3', b: '2' }]);
    expect(String(warned.headers.warning)).toMatch(/error strict decoding YAML: Map keys must be unique at line 8, column 3/);
    const del = 'propagationPolicy: Background\npropagationPolicy: Orphan\n';
    await expectStatus(`${collection}/dup-create`, { method: 'DELETE', headers: { ...yaml, 'content-length': String(del.length) }, body: del }, 400, 'BadRequest', /^the DeleteOptions in the request body are not valid: Map keys must be unique at line 2, column 1$/);
  });

  it('repeated keys in a JSON body or patch: Go merges a repeated object of a body; Warn names each repeat with the unknown fields in the body\'s order, Strict refuses, Ignore is silent', async () => {
    const json = { 'content-type': 'application/json' };
    const body = (name: string) =>
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":{"x":"1"},"labels":{"y":"2"}},"data":{"k":"1"},"bogus":1,"data":{"j":"2","j":"3"}}`;
    const problems = ['duplicate field "metadata.labels"', 'unknown field "bogus"', 'duplicate field "data"', 'duplicate field "data.j"'];
    const warned = await apiRequest(e2e.server, collection, { method: 'POST', headers: json, body: body('dup-json') });
    expect(warned.status).toBe(201);
    expect(warned.json().metadata.labels).toEqual({ x: '1', y: '2' });
    expect(warned.json().data).toEqual({ k: '1', j: '3' });
    expect(String(warned.headers.warning)).toBe(problems.map((p) => `299 - ${JSON.stringify(p)}`).join(', '));
    await expectStatus(`${collection}?fieldValidation=Strict`, { method: 'POST', headers: json, body: body('dup-strict') }, 400, 'BadRequest', new RegExp(`^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ${problems.join(', ')}$`));
    expect((await apiRequest(e2e.server, `${collection}/dup-strict`)).status).toBe(404);
    const ignored = await apiRequest(e2e.server, `${collection}?fieldValidation=Ignore`, { method: 'POST', headers: json, body: body('dup-ignore') });
    expect([ignored.status, ignored.headers.warning, ignored.json().data]).toEqual([201, undefined, { k: '1', j: '3' }]);
    // A replace is decoded the same way.
    const replaced = await apiRequest(e2e.server, `${collection}/dup-json?fieldValidation=Strict`, { method: 'PUT', headers: json, body: body('dup-json') });
    expect(replaced.status).toBe(400);

    // A patch body is decoded strictly too, before the patched object: its repeats (the last wins), a JSON patch's
    // unknown operation fields, then the patched object's unknown fields.
    const merge = { 'content-type': 'application/merge-patch+json' };
    const mergeBody = '{"data":{"a":"1","a":"2"},"data":{"b":"3"},"extra":true}';
    const mergeWarned = await apiRequest(e2e.server, `${collection}/dup-json`, { method: 'PATCH', headers: merge, body: mergeBody });
    expect(mergeWarned.status).toBe(200);
    expect(mergeWarned.json().data).toEqual({ k: '1', j: '3', b: '3' });
    expect(String(mergeWarned.headers.warning)).toBe(['duplicate field "data.a"', 'duplicate field "data"', 'unknown field "extra"'].map((p) => `299 - ${JSON.stringify(p)}`).join(', '));
    const strictPatch = await apiRequest(e2e.server, `${collection}/dup-json?fieldValidation=Strict`, { method: 'PATCH', headers: merge, body: mergeBody });
    expect(strictPatch.status).toBe(422);
    expect(strictPatch.json().message).toContain('strict decoding error: duplicate field "data.a", duplicate field "data", unknown field "extra"');
    const jsonPatch = await apiRequest(e2e.server, `${collection}/dup-json`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json-patch+json' },
      body: '[{"op":"add","path":"/data/c","value":"4","extra":2,"op":"add"}]',
    });
    expect(jsonPatch.status).toBe(200);
    expect(String(jsonPatch.headers.warning)).toBe(['json patch unknown field "[0].extra"', 'json patch duplicate field "[0].op"'].map((p) => `299 - ${JSON.stringify(p)}`).join(', '));
  });

  it('a second document, or broken YAML, is a 400 that says where', async () => {
    await expectStatus(collection, { method: 'POST', headers: yaml, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\n' }, 400, 'BadRequest', /^the request body is not valid YAML: it holds more than one document \(separated by ---\); send one object per request$/);
    await expectStatus(collection, { method: 'POST', headers: yaml, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n' }, 400, 'BadRequest', /^the request body is not valid YAML: .* at line \d+, column \d+$/);
    await expectStatus(`${collection}/broken?fieldManager=t`, { method: 'PATCH', headers: apply, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  labels: a: b\n' }, 400, 'BadRequest', /^error decoding YAML: bad indentation of a mapping entry at line 5, column 12$/);
    expect((await apiRequest(e2e.server, `${collection}/one`)).status).toBe(404);
  });
});
