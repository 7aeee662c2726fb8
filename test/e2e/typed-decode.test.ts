/**
 * Bodies of built-in kinds are decoded as kube-apiserver decodes them into Go structs: a value of the wrong JSON
 * type is kube's 400 `<Kind> in version "v1" cannot be handled as a <Kind>: json: cannot unmarshal …`, whatever
 * fieldValidation says, and nothing is stored. Driven by the real kubectl (--validate=false, so its own OpenAPI
 * check does not stop the body before the server sees it).
 */
import { describe, expect, it } from 'vitest';
import { apiRequest } from '../helpers/http.js';
import { uniqueName } from '../helpers/kubectl.js';
import { expectError, useE2EServer } from '../helpers/suite.js';

const e2e = useE2EServer({ storage: 'memory://' });
const k = (args: string[], input?: string) => e2e.k('root')(args, { input, reject: false });

const post = (path: string, body: string, type = 'application/json') =>
  apiRequest(e2e.server, path, { method: 'POST', headers: { 'content-type': type }, body });

const rbac = 'rbac.authorization.k8s.io/v1';
const cannot = (kind: string, version: string) => `${kind} in version "${version}" cannot be handled as a ${kind}: `;

describe('wrongly typed bodies of built-in kinds (kubectl)', () => {
  const ns = uniqueName('typed');

  it('create -f - refuses each with kube\'s decode error and stores nothing', async () => {
    expect((await k(['create', 'namespace', ns])).exitCode).toBe(0);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [
        { apiVersion: rbac, kind: 'Role', metadata: { name: 'r1', namespace: ns }, rules: 'garbage' },
        'roles',
        cannot('Role', 'v1') + 'json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule',
      ],
      [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1', namespace: ns }, secrets: 'x' },
        'serviceaccounts',
        cannot('ServiceAccount', 'v1') + 'json: cannot unmarshal string into Go struct field ServiceAccount.secrets of type []v1.ObjectReference',
      ],
      [
        { apiVersion: rbac, kind: 'RoleBinding', metadata: { name: 'rb1', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' }, subjects: 'mallory' },
        'rolebindings',
        cannot('RoleBinding', 'v1') + 'json: cannot unmarshal string into Go struct field RoleBinding.subjects of type []v1.Subject',
      ],
      [
        { apiVersion: rbac, kind: 'Role', metadata: { name: 'r2', namespace: ns }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: 'get' }] },
        'roles',
        cannot('Role', 'v1') + 'json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string',
      ],
    ];
    for (const [body, resource, message] of cases) {
      const name = (body.metadata as { name: string }).name;
      const result = await k(['create', '-f', '-', '--validate=false'], JSON.stringify(body));
      expectError(result, `Error from server (BadRequest): error when creating "STDIN": ${message}`);
      // Strict field validation does not change the answer: a type error is not an unknown field.
      const strict = await k(['create', '-f', '-', '--validate=Strict'], JSON.stringify(body));
      expect(strict.exitCode).not.toBe(0);
      expectError(await k(['get', resource, name, '-n', ns]), `Error from server (NotFound): ${resource === 'roles' || resource === 'rolebindings' ? `${resource}.rbac.authorization.k8s.io` : resource} "${name}" not found`);
    }
  });

  it('an ownerReference uid that is a number: kubectl refuses it itself with the same Go error; a raw POST gets the server\'s 400', async () => {
    const message = 'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID';
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', namespace: ns, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 5 }] } });
    // kubectl's own decode of the manifest is Go's: the message the server gives is the same text.
    expectError(await k(['create', '-f', '-', '--validate=false'], body), `error: unable to decode "STDIN": ${message}`);
    const res = await post(`/clusters/root/api/v1/namespaces/${ns}/configmaps`, body);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message: `${cannot('ConfigMap', 'v1')}${message}` });
    expectError(await k(['get', 'configmap', 'owned', '-n', ns]), 'Error from server (NotFound): configmaps "owned" not found');
  });

  it('a raw POST of a wrongly typed Role, in JSON or YAML, gets the same 400 whatever fieldValidation says', async () => {
    const path = `/clusters/root/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
    const message = `${cannot('Role', 'v1')}json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule`;
    const body = JSON.stringify({ apiVersion: rbac, kind: 'Role', metadata: { name: 'raw', namespace: ns }, rules: 'garbage' });
    for (const query of ['', '?fieldValidation=Ignore', '?fieldValidation=Strict']) {
      const res = await post(path + query, body);
      expect(res.status).toBe(400);
      expect(res.json().message).toBe(message);
    }
    const yaml = `apiVersion: ${rbac}\nkind: Role\nmetadata: {name: raw, namespace: ${ns}}\nrules: garbage\n`;
    const res = await post(path, yaml, 'application/yaml');
    expect(res.status).toBe(400);
    expect(res.json().message).toBe(message);
  });

  it('a review is decoded like any create body', async () => {
    const res = await post(
      '/clusters/root/apis/authorization.k8s.io/v1/subjectaccessreviews',
      JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'u', resourceAttributes: 'pods' } }),
    );
    expect(res.status).toBe(400);
    expect(res.json().message).toBe(
      `${cannot('SubjectAccessReview', 'v1')}json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.resourceAttributes of type v1.ResourceAttributes`,
    );
  });

  it('replace -f - of an existing object with a wrongly typed body is refused and the object is unchanged', async () => {
    const good = { apiVersion: rbac, kind: 'Role', metadata: { name: 'kept', namespace: ns }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    expect((await k(['create', '-f', '-'], JSON.stringify(good))).exitCode).toBe(0);
    const result = await k(['replace', '-f', '-', '--validate=false'], JSON.stringify({ ...good, rules: 'garbage' }));
    expectError(
      result,
      `Error from server (BadRequest): error when replacing "STDIN": ${cannot('Role', 'v1')}json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule`,
    );
    const stored = JSON.parse((await k(['get', 'role', 'kept', '-n', ns, '-o', 'json'])).stdout);
    expect(stored.rules).toEqual(good.rules);
  });

  it('a merge patch that leaves a wrongly typed object is the patch handler\'s 422 and changes nothing', async () => {
    const result = await k(['patch', 'role', 'kept', '-n', ns, '--type=merge', '-p', '{"rules":"garbage"}']);
    expectError(result, /^The Role "kept" is invalid: patch: Invalid value: .*json: cannot unmarshal string into Go struct field Role.rules of type \[\]v1.PolicyRule$/);
    const stored = JSON.parse((await k(['get', 'role', 'kept', '-n', ns, '-o', 'json'])).stdout);
    expect(stored.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
  });

  it('apply --server-side of a wrongly typed Role is refused and stores nothing', async () => {
    const body = JSON.stringify({ apiVersion: rbac, kind: 'Role', metadata: { name: 'ssa', namespace: ns }, rules: 'garbage' });
    const result = await k(['apply', '--server-side', '-f', '-', '--validate=false'], body);
    // structured-merge-diff's typed conversion of the configuration refuses it before anything is merged.
    expectError(
      result,
      `Error from server (BadRequest): failed to create typed patch object (${ns}/ssa; rbac.authorization.k8s.io/v1, Kind=Role): .rules: expected list, got &{garbage}`,
    );
    expectError(await k(['get', 'role', 'ssa', '-n', ns]), 'Error from server (NotFound): roles.rbac.authorization.k8s.io "ssa" not found');
    const sa = JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'ssa', namespace: ns }, secrets: 'x' });
    expectError(
      await k(['apply', '--server-side', '-f', '-', '--validate=false'], sa),
      `Error from server (BadRequest): failed to create typed patch object (${ns}/ssa; /v1, Kind=ServiceAccount): .secrets: expected list, got &{x}`,
    );
    const rb = JSON.stringify({ apiVersion: rbac, kind: 'RoleBinding', metadata: { name: 'ssa', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: 'mallory' });
    expectError(
      await k(['apply', '--server-side', '-f', '-', '--validate=false'], rb),
      `Error from server (BadRequest): failed to create typed patch object (${ns}/ssa; rbac.authorization.k8s.io/v1, Kind=RoleBinding): .subjects: expected list, got &{mallory}`,
    );
  });
  it('a null value in a map or list of strings is stored as "", as Go decodes and encodes it (what a template with an unset value renders)', async () => {
    const cm = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: nulls`,
      `  namespace: ${ns}`,
      '  labels: {tier: null}',
      'data:',
      '  greeting: null',
      '  other: set',
    ].join('\n');
    expect((await k(['create', '-f', '-'], cm)).stdout).toBe('configmap/nulls created');
    const got = JSON.parse((await k(['get', 'configmap', 'nulls', '-n', ns, '-o', 'json'])).stdout);
    expect(got.data).toEqual({ greeting: '', other: 'set' });
    expect(got.metadata.labels).toEqual({ tier: '' });
    // The same through server-side apply (kube converts the merged object into the Go type).
    expect((await k(['apply', '--server-side', '-f', '-'], cm.replace('name: nulls', 'name: nulls-applied'))).stdout).toBe('configmap/nulls-applied serverside-applied');
    expect(JSON.parse((await k(['get', 'configmap', 'nulls-applied', '-n', ns, '-o', 'json'])).stdout).data).toEqual({ greeting: '', other: 'set' });
  });

  it('a null field is stored as kube\'s Go round trip leaves it: omitempty fields disappear, a Time stays null, a non-omitempty list stays null', async () => {
    // What a template renders for keys whose values are unset: YAML `key:` with nothing after it is null.
    const cm = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: null-fields', `  namespace: ${ns}`, '  labels:', '  annotations:', 'data:', 'immutable:'].join('\n');
    expect((await k(['create', '-f', '-'], cm)).stdout).toBe('configmap/null-fields created');
    const got = JSON.parse((await k(['get', 'configmap', 'null-fields', '-n', ns, '-o', 'json'])).stdout);
    expect(Object.keys(got).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(got.metadata).not.toHaveProperty('labels');
    expect(got.metadata.annotations).toEqual({ 'kcp.io/cluster': 'root' });

    // A JSON patch that adds a null field, and a replace that sends one: the same.
    const path = `/clusters/root/api/v1/namespaces/${ns}/configmaps/null-fields`;
    const patched = await apiRequest(e2e.server, path, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: 'add', path: '/binaryData', value: null }, { op: 'add', path: '/metadata/finalizers', value: null }]),
    });
    expect(patched.status).toBe(200);
    expect(patched.json()).not.toHaveProperty('binaryData');
    expect(patched.json().metadata).not.toHaveProperty('finalizers');

    // ClusterRole.rules has no omitempty in Go: kube stores null there; an event's firstTimestamp is a Time: null.
    const role = await post('/clusters/root/apis/rbac.authorization.k8s.io/v1/clusterroles', JSON.stringify({ apiVersion: rbac, kind: 'ClusterRole', metadata: { name: uniqueName('null-rules'), labels: null }, rules: null, aggregationRule: null }));
    expect(role.status).toBe(201);
    expect(role.json()).toMatchObject({ rules: null });
    expect(role.json()).not.toHaveProperty('aggregationRule');
    expect(role.json().metadata).not.toHaveProperty('labels');
  });
});
