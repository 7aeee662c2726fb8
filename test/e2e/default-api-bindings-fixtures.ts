/**
 * The world of the default-api-bindings suites: an organization of the file's own (a unique name in root) holding a
 * provider workspace with APIExports, and WorkspaceTypes with `defaultAPIBindings` whose workspaces are made beside
 * it. Every name a test makes is unique, so the suites share a server with every other file.
 */
import { createHash } from 'node:crypto';
import { uniqueName } from '../helpers/kubectl.js';
import { apiExport, resourceSchema } from './apis-fixtures.js';
import { create, ownOrganization, root, workspaceByApi, workspaceType, type Json, type TenancyE2E, type TypeRef } from './tenancy-fixtures.js';

/** kcp's default binding name, computed independently of the server's code. */
export function bindingName(cluster: string, exportPath: string, exportName: string): string {
  const digits = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let n = BigInt(`0x${createHash('sha224').update(`${cluster}|${exportPath}|${exportName}`).digest('hex')}`);
  let text = '';
  while (n > 0n) {
    text = digits[Number(n % 62n)] + text;
    n /= 62n;
  }
  return `${exportName}-${text.slice(0, 5).toLowerCase()}`;
}

export function defaultBindingsWorld(e2e: TenancyE2E) {
  const org = ownOrganization(e2e, 'default-bindings');
  const orgPath = org.path;
  const providerPath = `${orgPath}:provider`;
  const k = e2e.at(orgPath);
  const provider = e2e.at(providerPath);
  const universal = { extend: { with: [root('universal')] } };
  const ofOrg = (name: string): TypeRef => ({ name, path: orgPath });

  /** An export of `<plural>.<group>` (kind `kind`) in the provider workspace. */
  async function exportAPI(name: string, group: string, plural: string, kind: string, extraSpec: Json = {}) {
    await create(provider, resourceSchema({ group, plural, kind }));
    await create(provider, apiExport({ name, group, plural, extraSpec }));
  }

  return {
    orgPath,
    providerPath,
    /** kubectl as kcp-admin in the organization (types and consumer workspaces are made there). */
    k,
    provider,
    exportAPI,
    /** `root:<org>:<name>` */
    pathOf: (name: string) => `${orgPath}:${name}`,
    /** The organization, its provider workspace and the `widgets` export. */
    async setUp() {
      await org.create();
      await workspaceByApi(e2e, orgPath, 'provider');
      await exportAPI('widgets', 'example.com', 'widgets', 'Widget');
    },
    /** A WorkspaceType of the organization extending universal, with `spec`. */
    async defineType(prefix: string, spec: Json): Promise<string> {
      const name = uniqueName(prefix);
      await create(k, workspaceType(name, { ...universal, ...spec }));
      return name;
    },
    /** Creates a workspace of the organization's `type` in it, waits for `phase`, returns [workspace, its cluster name]. */
    async workspaceOf(type: string, phase = 'Ready'): Promise<[string, string]> {
      const name = uniqueName('ws');
      const ws = await workspaceByApi(e2e, orgPath, name, ofOrg(type), phase);
      return [name, ws.spec.cluster as string];
    },
  };
}
