/**
 * `kcpt ws list`: every workspace the user may enter, from the workspace index virtual workspace
 * (`/services/workspaces/all/clusters/*`), sorted by path, as a kubectl-style table (`-o wide` adds the URL), or as
 * objects: a List of the Workspaces (each with its path in the `kcp.io/path` annotation), `-o name`, `-o jsonpath=…`.
 */
import type { Io } from '../common/io.js';
import { printObjects, type OutputFormat } from '../common/output.js';
import { formatTable } from '../common/table.js';
import type { Session } from '../common/session.js';
import { listReachable, typeString, type Workspace } from '../../client/workspace-api.js';

const pathOf = (ws: Workspace) => ws.metadata.annotations?.['kcp.io/path'] ?? ws.metadata.name;

export async function listWorkspaces(session: Session, io: Io, opts: { output?: OutputFormat }): Promise<void> {
  const items = (await listReachable(session.client))
    .map((ws) => ({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', ...ws }))
    .sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : pathOf(a) > pathOf(b) ? 1 : 0));
  const table = (wide: boolean) =>
    formatTable(
      ['PATH', 'TYPE', 'PHASE', ...(wide ? ['URL'] : [])],
      items.map((ws) => [pathOf(ws), typeString(ws.spec?.type) ?? '', ws.status?.phase ?? '', ...(wide ? [ws.spec?.URL ?? ''] : [])]),
    );
  if (items.length === 0 && (!opts.output || opts.output.kind === 'wide')) {
    io.err('No workspaces found.\n');
    return;
  }
  if (opts.output) return printObjects(io, opts.output, items, { renderTable: table });
  io.out(table(false));
}
