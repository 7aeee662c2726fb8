/**
 * `--batteries-included`, as kcp reads it: optional defaults that help trying kcpt out. Either a full list
 * (`admin,user`) or a delta against the defaults (`+metrics-viewer,-workspace-types`), never both; `user` needs
 * `admin` (it is a context in admin.kubeconfig).
 */
export const ALL_BATTERIES = ['admin', 'metrics-viewer', 'user', 'workspace-types'] as const;
export const DEFAULT_BATTERIES = ['admin', 'workspace-types'] as const;

export class BatteriesError extends Error {}

/** Parses the flag's comma-separated items into the enabled set; throws BatteriesError with kcp's messages. */
export function parseBatteries(items: readonly string[]): Set<string> {
  const errors: string[] = [];
  const differential = items.length > 0 && isDelta(items[0]!);
  if (items.some((b) => isDelta(b) !== differential)) {
    errors.push('--batteries-included must all be prefixed with + or - or none');
  }
  for (const item of items) {
    const name = isDelta(item) ? item.slice(1) : item;
    if (!(ALL_BATTERIES as readonly string[]).includes(name)) errors.push(`unknown battery: ${name}`);
  }
  if (errors.length > 0) throw new BatteriesError(errors.join(', '));

  const enabled = new Set<string>(differential ? DEFAULT_BATTERIES : []);
  for (const item of items) {
    if (!differential) enabled.add(item);
    else if (item.startsWith('+')) enabled.add(item.slice(1));
    else enabled.delete(item.slice(1));
  }
  if (enabled.has('user') && !enabled.has('admin')) throw new BatteriesError('battery user enabled which requires admin as well');
  return enabled;
}

function isDelta(item: string): boolean {
  return item.startsWith('+') || item.startsWith('-');
}
