/**
 * Which APIExports and APIBindings still need their controller, as rows written in the object's own commit:
 * `/kcpt/apis/pending/<exports|bindings>/<cluster>/<name>` while an export has no identity yet, or a binding is not
 * Bound or is being deleted, and `/kcpt/apis/pending/rollouts/<cluster>/<name>` from the write that changes an
 * export's resources until the binding controller has moved every binding of it (it deletes that row itself). A
 * restart resumes exactly that work from one prefix scan of the rows, instead of reading every export and binding
 * of every workspace.
 */
import type { IndexWriter } from '../registry/index-writer.js';
import type { KubeObject } from '../registry/types.js';
import type { Store, WriteOp } from '../storage/store.js';
import { jsonEqual } from '../machinery/canonical-json.js';
import { BINDINGS, BINDINGS_PREFIX, EXPORTS, EXPORTS_PREFIX } from './names.js';
import type { APIBinding, APIExport } from './types.js';

export const PENDING_PREFIX = '/kcpt/apis/pending/';
export const ROLLOUTS = 'rollouts';

/** The row of an export whose bindings still have to follow a change of its resources. */
export function rolloutRow(cluster: string, name: string): string {
  return `${PENDING_PREFIX}${ROLLOUTS}/${cluster}/${name}`;
}

const kinds = [
  { prefix: EXPORTS_PREFIX, kind: EXPORTS, pending: (o: KubeObject) => !(o as APIExport).status?.identityHash && !o.metadata?.deletionTimestamp },
  {
    prefix: BINDINGS_PREFIX,
    kind: BINDINGS,
    pending: (o: KubeObject) => (o as APIBinding).status?.phase !== 'Bound' || !!o.metadata?.deletionTimestamp,
  },
];

export function pendingWriter(store?: Pick<Store, 'get'>): IndexWriter {
  return (key, before, after) => {
    const kind = kinds.find((k) => key.startsWith(k.prefix));
    if (!kind) return [];
    const row = `${PENDING_PREFIX}${kind.kind}/${key.slice(kind.prefix.length)}`;
    const was = before !== undefined && kind.pending(before);
    const is = after !== undefined && kind.pending(after);
    const ops: WriteOp[] = [];
    if (is && !was) ops.push({ type: 'create', key: row, value: '' });
    if (was && !is) ops.push({ type: 'delete', key: row });
    if (kind.kind === EXPORTS && before && store) {
      const rollout = rolloutRow(...(key.slice(kind.prefix.length).split('/') as [string, string]));
      const open = store.get(rollout) !== undefined;
      const moved = after && !jsonEqual((before as APIExport).spec?.resources ?? [], (after as APIExport).spec?.resources ?? []);
      if (moved && !open) ops.push({ type: 'create', key: rollout, value: '' });
      if (!after && open) ops.push({ type: 'delete', key: rollout });
    }
    return ops;
  };
}

/** `cluster|name` keys of the pending objects of one kind. */
export function pendingKeys(list: (prefix: string) => { key: string }[], kind: typeof EXPORTS | typeof BINDINGS | typeof ROLLOUTS): string[] {
  const prefix = `${PENDING_PREFIX}${kind}/`;
  return list(prefix).map((kv) => {
    const rest = kv.key.slice(prefix.length);
    const slash = rest.indexOf('/');
    return `${rest.slice(0, slash)}|${rest.slice(slash + 1)}`;
  });
}
