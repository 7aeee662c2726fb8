/** The 409 Conflict Status that kube answers when a server-side apply hits field-manager conflicts. */
import { StatusError, type StatusCause } from '../status.js';
import type { Conflict } from './apply.js';

function managerDesc(c: Conflict): string {
  let s = JSON.stringify(c.manager);
  if (c.subresource) s += ` with subresource ${JSON.stringify(c.subresource)}`;
  return c.operation === 'Update' ? `${s} using ${c.apiVersion}` : s;
}

export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${managerDesc(c)}: ${c.path}`;
  }
  const groups = new Map<string, Conflict[]>();
  for (const c of conflicts) {
    const d = managerDesc(c);
    if (!groups.has(d)) groups.set(d, []);
    groups.get(d)!.push(c);
  }
  const blocks = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([d, cs]) => `conflicts with ${d}:\n${cs.map((c) => `- ${c.path}`).join('\n')}`);
  return `Apply failed with ${conflicts.length} conflicts: ${blocks.join('\n')}`;
}

export function conflictStatus(conflicts: Conflict[], details: { name?: string; group?: string; kind?: string } = {}): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${managerDesc(c)}`,
    field: c.path,
  }));
  return new StatusError(409, 'Conflict', conflictMessage(conflicts), { ...details, causes });
}
