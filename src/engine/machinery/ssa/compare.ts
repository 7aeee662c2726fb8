/**
 * Compare two versions of an object field by field (structured-merge-diff's Compare). A leaf is added, removed or
 * modified; a container node that exists on one side only is added or removed as a node too, which is where the
 * `.` entries of an Update manager's fieldsV1 come from (a map created by the write is owned as a whole).
 */
import { jsonEqual } from '../canonical-json.js';
import { FieldSet, type Path } from './fieldset.js';
import { walkPair } from './pair-walk.js';
import type { TypeInfo } from './type-info.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareValues(lhs: unknown, rhs: unknown, t: TypeInfo): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const presence = (l: unknown, r: unknown, path: Path): boolean => {
    if (path.length === 0) return true;
    if (l === undefined) c.added.add(path);
    else if (r === undefined) c.removed.add(path);
    else return false;
    return true;
  };
  walkPair(lhs, rhs, t, {
    leaf(l, r, path) {
      if (!presence(l, r, path) && !jsonEqual(l, r)) c.modified.add(path);
      return r ?? l;
    },
    node(l, r, path) {
      presence(l, r, path);
    },
  });
  return c;
}
