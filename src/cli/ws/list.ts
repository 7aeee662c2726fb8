/**
 * `kcpt ws list`: every workspace the user may enter, from the workspace index virtual workspace
 * (`/services/workspaces/all/clusters/*`), sorted by path, as a kubectl-style table or -o json|yaml.
 */
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import type { Session } from '../common/session.js';
import { listReachable, typeString, type Workspace } from './workspace-api.js';

export interface ListedWorkspace {
  path: string;
  type: string;
  phase: string;
  url: string;
}

export function toListed(ws: Workspace): ListedWorkspace {
  return {
    path: ws.metadata.annotations?.['kcp.io/path'] ?? ws.metadata.name,
    type: typeString(ws.spec?.type) ?? '',
    phase: ws.status?.phase ?? '',
    url: ws.spec?.URL ?? '',
  };
}

export async function listWorkspaces(session: Session, io: Io, opts: { output?: OutputFormat }): Promise<void> {
  const items = (await listReachable(session.client)).map(toListed).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (opts.output) {
    await printData(io, opts.output, items);
    return;
  }
  if (items.length === 0) {
    io.err('No workspaces found.\n');
    return;
  }
  io.out(formatTable(['PATH', 'TYPE', 'PHASE'], items.map((w) => [w.path, w.type, w.phase])));
}

/** kubectl's table layout: columns padded to the widest cell plus three spaces. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 3)))
      .join('')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}
