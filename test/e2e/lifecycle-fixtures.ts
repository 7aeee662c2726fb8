/**
 * The world of the lifecycle virtual workspace suites: an organization of the file's own (a unique name in root)
 * with two initializer WorkspaceTypes and a terminator one, and the workspaces made of them in it, so the suites
 * share a server with every other file.
 */
import { uniqueName } from '../helpers/kubectl.js';
import { create, eventually, getJson, ownOrganization, root, workspaceByApi, workspaceType, type Json, type TenancyE2E, type TypeRef } from './tenancy-fixtures.js';

/** A JSON patch removing the first entry of `status.<field>` (what an initializer or terminator sends). */
export const removeFirst = (field: string) => JSON.stringify([{ op: 'remove', path: `/status/${field}/0` }]);

export function lifecycleWorld(e2e: TenancyE2E) {
  const org = ownOrganization(e2e, 'lifecycle');
  const orgPath = org.path;
  const k = e2e.at(orgPath);
  const types = { initA: uniqueName('init-a'), initB: uniqueName('init-b'), term: uniqueName('term') };
  const ofOrg = (name: string): TypeRef => ({ name, path: orgPath });
  return {
    orgPath,
    /** kubectl as kcp-admin in the organization. */
    k,
    ...types,
    /** A WorkspaceType of the organization. */
    ofOrg,
    /** The organization and its three types. */
    async setUp() {
      await org.create();
      const universal = { extend: { with: [root('universal')] } };
      await create(k, workspaceType(types.initA, { ...universal, initializer: true }));
      await create(k, workspaceType(types.initB, { ...universal, initializer: true }));
      await create(k, workspaceType(types.term, { ...universal, terminator: true }));
    },
    /** The URL a type publishes for one lifecycle virtual workspace. */
    async publishedUrl(type: string, vw: 'initializingworkspaces' | 'terminatingworkspaces'): Promise<string> {
      return eventually(`${vw} URL of ${type}`, async () => {
        const wst = await getJson(k, ['workspacetype', type]);
        return (wst.status?.virtualWorkspaces as { url: string }[] | undefined)?.find((v) => v.url.includes(`/${vw}/`))?.url;
      });
    },
    /** A workspace created in the organization that must reach `phase` (Initializing for types with an initializer). */
    async workspaceIn(phase: string, type: string): Promise<Json> {
      return workspaceByApi(e2e, orgPath, uniqueName('ws'), ofOrg(type), phase);
    },
  };
}
