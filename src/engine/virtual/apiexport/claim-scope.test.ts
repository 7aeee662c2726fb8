/**
 * The claim scope as every handler path meets it: requests are run through the resource handler with the services a
 * claimed request of the APIExport virtual workspace gets (scopedServices over claimScope, the claimed type with its
 * admission), in a memory store. Consumer c1 accepted the provider's configmaps claim for objects labelled
 * share=yes; `private` is not labelled, `shared` is.
 */
import type { FastifyReply } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { bindingIndexPrefix } from '../../apis/binding-index.js';
import { resourceTypesForSchema } from '../../apis/schema-types.js';
import { configMaps, namespaces, serviceAccounts } from '../../builtin/core/resources.js';
import { scopedServices } from '../../endpoints/api-router.js';
import { parseRequestInfo } from '../../endpoints/request-info.js';
import type { ResourceServices } from '../../endpoints/request.js';
import { handleResourceRequest } from '../../endpoints/resource-handler.js';
import { toStatusError } from '../../endpoints/responses.js';
import { StaticCatalog } from '../../registry/catalog.js';
import { GenericStore } from '../../registry/generic-store.js';
import { scopePredicate } from '../../registry/scoped-store.js';
import type { KubeObject, ResourceType } from '../../registry/types.js';
import { createMemoryStore, type MemoryStore } from '../../storage/memory-store.js';
import { claimedType, claimScope, NOT_SELECTED, refuseDeleteOutside } from './claim-scope.js';
import { ExportBindings } from './export-bindings.js';
import { ExportViews, type ExportView } from './export-view.js';
import { WriteAuthority } from '../../admission/write-authority.js';

const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const claim = { group: '', resource: 'configmaps', verbs: ALL_VERBS };

interface Answer {
  status: number;
  body: any;
}

let store: MemoryStore;
let view: ExportView;
let base: ResourceServices;

function serve(selector: Record<string, unknown>, rts: ResourceType[] = [configMaps]): void {
  store = createMemoryStore();
  const generic = new GenericStore(store, namespaces, { authority: new WriteAuthority() });
  // The server's token signer stands in as a function that mints: the scoped services must not offer it.
  base = { store, generic, tokenRequests: async () => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', status: { token: 'minted' } }) };
  store.commit([
    {
      type: 'create',
      key: '/registry/apis.kcp.io/apiexports/prov/widgets',
      value: JSON.stringify({ metadata: { name: 'widgets' }, spec: { permissionClaims: [claim, { group: '', resource: 'serviceaccounts', verbs: ALL_VERBS }] } }),
    },
    {
      type: 'create',
      key: `${bindingIndexPrefix('prov', 'widgets')}c1/widgets`,
      value: JSON.stringify({
        resources: [],
        acceptedClaims: [
          { ...claim, state: 'Accepted', selector },
          { group: '', resource: 'serviceaccounts', verbs: ALL_VERBS, state: 'Accepted', selector },
        ],
      }),
    },
  ]);
  view = new ExportViews({ store, bindings: new ExportBindings(store), catalogFor: () => new StaticCatalog(rts, 'x'), typesForSchema: resourceTypesForSchema }).get('prov', 'widgets')!;
  for (const cluster of ['c1', 'c2']) generic.create({ rt: namespaces, cluster, namespace: '' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  const admin = { rt: configMaps, cluster: 'c1', namespace: 'ns' };
  generic.create(admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', labels: { share: 'yes' } }, data: { k: 'visible' } });
  generic.create(admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'private' }, data: { password: 'bob-secret' } });
  generic.create({ ...admin, cluster: 'c2' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'elsewhere', labels: { share: 'yes' } }, data: { k: 'c2' } });
  generic.create({ rt: serviceAccounts, cluster: 'c1', namespace: 'ns' }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
}

/** A request as the provider, at /clusters/c1 of the virtual workspace, as the router serves it. */
async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const [pathname, q = ''] = path.split('?');
  const query = new URLSearchParams(q);
  const info = parseRequestInfo(method, `/clusters/c1${pathname}`, query);
  const rt = info.resource === 'serviceaccounts' ? serviceAccounts : configMaps;
  const inForce = view.claimFor('c1', `${info.resource}//`, info.verb);
  const scope = claimScope(view, rt, `${info.resource}//`, info.verb, 'c1');
  const catalog = new StaticCatalog([inForce ? claimedType(rt, inForce) : rt], 'vw');
  let answer: Answer = { status: 0, body: undefined };
  const reply = {
    code(status: number) {
      answer.status = status;
      return reply;
    },
    header: () => reply,
    serializer: () => reply,
    send(text: string | Buffer) {
      answer.body = JSON.parse(text.toString());
      return reply;
    },
  } as unknown as FastifyReply;
  try {
    if (info.verb === 'delete' && info.name) refuseDeleteOutside(store, scope, rt, 'c1', info.namespace, info.name);
    const raw = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const user = { username: 'alice', groups: ['system:authenticated'] };
    await handleResourceRequest(scopedServices(base, scope), { method, info, query, contentType, body: raw, user, cluster: 'c1', catalog, filter: scopePredicate(scope) }, reply);
  } catch (err) {
    const status = toStatusError(err);
    answer = { status: status.code, body: status.toStatus() };
  }
  return answer;
}

const stored = (cluster: string, name: string) => store.get(`/registry/core/configmaps/${cluster}/ns/${name}`);
const labelsOf = (cluster: string, name: string) => (JSON.parse(stored(cluster, name)!.value) as KubeObject).metadata?.labels;
const cms = '/api/v1/namespaces/ns/configmaps';

describe('a claim narrowed by matchLabels', () => {
  beforeEach(() => serve({ matchLabels: { share: 'yes' } }));

  it('GET and LIST see only the selected object', async () => {
    expect((await call('GET', `${cms}/shared`)).status).toBe(200);
    expect(await call('GET', `${cms}/private`)).toMatchObject({ status: 404, body: { message: 'configmaps "private" not found' } });
    expect(((await call('GET', cms)).body.items as KubeObject[]).map((i) => i.metadata!.name)).toEqual(['shared']);
    expect(((await call('GET', '/api/v1/configmaps')).body.items as KubeObject[]).map((i) => i.metadata!.name)).toEqual(['shared']);
    expect(JSON.stringify((await call('GET', `${cms}?limit=1`)).body)).not.toContain('remainingItemCount');
  });

  it('delete-collection, dry run or not, reads and deletes only the selected object', async () => {
    const dry = await call('DELETE', `${cms}?dryRun=All`);
    expect(dry.status).toBe(200);
    expect((dry.body.items as KubeObject[]).map((i) => i.metadata!.name)).toEqual(['shared']);
    expect(JSON.stringify(dry.body)).not.toContain('bob-secret');
    const real = await call('DELETE', cms);
    expect((real.body.items as KubeObject[]).map((i) => i.metadata!.name)).toEqual(['shared']);
    expect(stored('c1', 'private')).toBeDefined();
    expect(stored('c1', 'shared')).toBeUndefined();
    expect(stored('c2', 'elsewhere')).toBeDefined();
  });

  it('create puts the selector’s labels on, refuses another value and never stores outside the selector', async () => {
    const created = await call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' }, data: { a: 'b' } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.labels).toEqual({ share: 'yes' });
    for (const dryRun of ['', '?dryRun=All']) {
      const planted = await call('POST', `${cms}${dryRun}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'planted', labels: { share: 'no' } } });
      expect(planted).toMatchObject({ status: 403, body: { reason: 'Forbidden', message: 'configmaps "planted" is forbidden: protected label share must have value yes' } });
    }
    expect(stored('c1', 'planted')).toBeUndefined();
    // An existing name outside the selector: kcp's answer, as for any create of a name taken.
    expect((await call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'private' } })).status).toBe(409);
    expect(labelsOf('c1', 'private')).toBeUndefined();
  });

  it('PUT, every patch type and apply cannot reach an object outside the selector', async () => {
    const put = await call('PUT', `${cms}/private`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'private', labels: { share: 'yes' } }, data: { password: 'stolen' } });
    expect(put).toMatchObject({ status: 404, body: { message: 'configmaps "private" not found' } });
    const patches: Array<[string, string]> = [
      ['application/merge-patch+json', '{"metadata":{"labels":{"share":"yes"}}}'],
      ['application/strategic-merge-patch+json', '{"metadata":{"labels":{"share":"yes"}}}'],
      ['application/json-patch+json', '[{"op":"add","path":"/metadata/labels","value":{"share":"yes"}}]'],
    ];
    for (const [type, patch] of patches) expect((await call('PATCH', `${cms}/private`, patch, type)).status, type).toBe(404);
    const apply = await call('PATCH', `${cms}/private?fieldManager=alice`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: private\ndata:\n  password: stolen\n', 'application/apply-patch+yaml');
    expect(apply).toMatchObject({ status: 409, body: { reason: 'AlreadyExists' } });
    expect(JSON.parse(stored('c1', 'private')!.value).data).toEqual({ password: 'bob-secret' });
    expect(labelsOf('c1', 'private')).toBeUndefined();
  });

  it('an update or patch may not move a selected object out; a dropped required label comes back', async () => {
    const moved = await call('PATCH', `${cms}/shared`, '{"metadata":{"labels":{"share":"no"}}}', 'application/merge-patch+json');
    expect(moved).toMatchObject({ status: 403, body: { message: 'configmaps "shared" is forbidden: protected label share must have value yes' } });
    const dropped = await call('PATCH', `${cms}/shared`, '{"metadata":{"labels":{"share":null}}}', 'application/merge-patch+json');
    expect(dropped.status).toBe(200);
    expect(labelsOf('c1', 'shared')).toEqual({ share: 'yes' });
    const applied = await call('PATCH', `${cms}/shared?fieldManager=alice&force=true`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  labels:\n    share: "no"\n', 'application/apply-patch+yaml');
    expect(applied.status).toBe(403);
    expect(labelsOf('c1', 'shared')).toEqual({ share: 'yes' });
  });

  it('DELETE of an object outside the selector is refused as kcp refuses it; a missing one is 404', async () => {
    expect(await call('DELETE', `${cms}/private`)).toMatchObject({ status: 403, body: { message: `configmaps "private" is forbidden: ${NOT_SELECTED}` } });
    expect((await call('DELETE', `${cms}/private?dryRun=All`)).status).toBe(403);
    expect((await call('DELETE', `${cms}/nothing`)).status).toBe(404);
    expect(stored('c1', 'private')).toBeDefined();
    expect((await call('DELETE', `${cms}/shared`)).status).toBe(200);
  });

  it('never mints a token for a service account, the one write that does not go through the store', async () => {
    const token = await call('POST', '/api/v1/namespaces/ns/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    expect(token.status).toBe(404);
  });
});

describe('a claim narrowed by matchExpressions', () => {
  beforeEach(() => serve({ matchExpressions: [{ key: 'share', operator: 'In', values: ['yes', 'also'] }] }));

  it('adds no label (kcp cannot tell which) and refuses an object outside the selector', async () => {
    const outside = await call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } });
    expect(outside).toMatchObject({ status: 403, body: { message: `configmaps "new" is forbidden: ${NOT_SELECTED}` } });
    expect((await call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new', labels: { share: 'also' } } })).status).toBe(201);
    const moved = await call('PATCH', `${cms}/shared`, '{"metadata":{"labels":{"share":"other"}}}', 'application/merge-patch+json');
    expect(moved).toMatchObject({ status: 403, body: { message: `configmaps "shared" is forbidden: ${NOT_SELECTED}` } });
  });
});
