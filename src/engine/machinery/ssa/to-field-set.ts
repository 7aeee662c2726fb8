/**
 * The fields an applied configuration sets (structured-merge-diff's ToFieldSet): every leaf, every list item (as
 * a node, with its fields), and every entry of a granular map (as opposed to a struct's declared fields, which are
 * only containers). Also reports what structured-merge-diff's typed conversion refuses, which an apply must
 * refuse: fields the schema does not declare, a list or map given a value of another shape, and an item a set or
 * map list repeats.
 */
import { goFormat } from '../patch/json.js';
import { FieldSet, pathString, type Path } from './fieldset.js';
import { listItemElement } from './list-items.js';
import { fieldType, isAtomicMap, isDeclaredField, itemType, listTypeOf, type TypeInfo } from './type-info.js';

export interface FieldSetResult {
  set: FieldSet;
  /** `.spec.foo: field not declared in schema`, `.rules: expected list, got &{garbage}`: upstream's wording. */
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
  const mismatch = typeMismatch(value, t);
  if (mismatch) {
    result.undeclared.push(`${pathString(path)}: ${mismatch}`);
    return;
  }
  if (Array.isArray(value)) {
    if (t === undefined || t.kind !== 'list' || listTypeOf(t) === 'atomic') return insert(result, path);
    // An applied configuration may not repeat an item of a set or map list (kube converts it without
    // typed.AllowDuplicates; stored objects may hold duplicates, an apply may not add them).
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const element = listItemElement(item, t, i);
      if (seen.has(element)) result.undeclared.push(`${pathString(path)}: duplicate entries for key ${pathString([element])}`);
      seen.add(element);
      const itemPath = [...path, element];
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

/**
 * What structured-merge-diff's typed conversion says of a value its type node cannot hold (null fits all):
 * listValue/mapValue print the value with `%v` (`&{garbage}`), validateScalar with `%#v` or `%T`.
 */
function typeMismatch(value: unknown, t: TypeInfo): string | undefined {
  if (t === undefined || value === null || value === undefined) return undefined;
  if (t.kind === 'list') return Array.isArray(value) ? undefined : `expected list, got &{${goFormat(value)}}`;
  // A map without an element type is a free-form (preserve-unknown-fields) node: anything goes.
  if (t.kind === 'struct' || (t.kind === 'map' && t.elem)) return isObj(value) ? undefined : `expected map, got &{${goFormat(value)}}`;
  if (t.kind !== 'scalar') return undefined;
  switch (t.scalar) {
    case 'string':
      return typeof value === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goSyntax(value)}}`;
    case 'numeric':
      return typeof value === 'number' ? undefined : `expected numeric (int or float), got ${goDynamicType(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected boolean, got &{${goFormat(value)}}`;
    default:
      return undefined;
  }
}

/** fmt's %#v of decoded JSON: Go syntax (`"x"`, `[]interface {}{"a", 1}`, `map[string]interface {}{"k":"v"}`). */
function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  if (isObj(value)) {
    const keys = Object.keys(value).sort();
    return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSyntax(value[k])}`).join(', ')}}`;
  }
  return String(value);
}

/** fmt's %T of decoded JSON. */
function goDynamicType(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
}
