/**
 * The fields an applied configuration sets (structured-merge-diff's ToFieldSet): every leaf, every list item (as
 * a node, with its fields), and every entry of a granular map (as opposed to a struct's declared fields, which are
 * only containers). Also reports fields the schema does not declare, which an apply must refuse.
 */
import { FieldSet, pathString, type Path } from './fieldset.js';
import { listItemElement } from './list-items.js';
import { fieldType, isAtomicMap, isDeclaredField, itemType, listTypeOf, type TypeInfo } from './type-info.js';

export interface FieldSetResult {
  set: FieldSet;
  /** `.spec.foo: field not declared in schema`, upstream's wording. */
  undeclared: string[];
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function toFieldSet(value: unknown, t: TypeInfo): FieldSetResult {
  const result: FieldSetResult = { set: new FieldSet(), undeclared: [] };
  visit(value, t, [], result);
  return result;
}

function insert(result: FieldSetResult, path: Path): void {
  if (path.length > 0) result.set.add(path);
}

function visit(value: unknown, t: TypeInfo, path: Path, result: FieldSetResult): void {
  if (Array.isArray(value)) {
    if (t === undefined || t.kind !== 'list' || listTypeOf(t) === 'atomic') return insert(result, path);
    value.forEach((item, i) => {
      const itemPath = [...path, listItemElement(item, t, i)];
      visit(item, itemType(t), itemPath, result);
      insert(result, itemPath);
    });
    return;
  }
  if (isObj(value)) {
    if (t !== undefined && (t.kind === 'scalar' || t.kind === 'list' || isAtomicMap(t))) return insert(result, path);
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, `f:${key}`];
      const declared = isDeclaredField(t, key);
      if (t !== undefined && t.kind === 'struct' && !declared && !t.elem && !t.open) {
        result.undeclared.push(`${pathString(childPath)}: field not declared in schema`);
        continue;
      }
      visit(child, fieldType(t, key), childPath, result);
      if (child === null || (isObj(child) && Object.keys(child).length === 0) || !declared) insert(result, childPath);
    }
    return;
  }
  insert(result, path);
}
