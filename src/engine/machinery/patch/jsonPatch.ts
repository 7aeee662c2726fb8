/**
 * JSON Patch (RFC 6902, `application/json-patch+json`), applied by fast-json-patch.
 *
 * We add what a server needs around the library: shape errors become 400 before anything is applied, the
 * operation count is capped like kube (413), and a validator hook resolves pointers through *own* properties only
 * (the library looks members up with `obj[key]`, so `/data/constructor` would find Object.prototype.constructor)
 * and reports failures with the wording of evanphx/json-patch, the library kube-apiserver uses. What `copy`
 * operations add is measured before each copy and capped like kube (MAX_JSON_PATCH_COPY_BYTES, 422).
 *
 * One kube quirk is kept on purpose: `replace` of a missing object member adds it (evanphx v4 does not check the
 * member exists, so real clusters accept it and clients rely on that).
 */
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import {
  copiesTooLarge,
  MAX_JSON_PATCH_COPY_BYTES,
  MAX_JSON_PATCH_OPERATIONS,
  patchDecodeError,
  patchNotApplicable,
  tooManyOperations,
  withStatusErrors,
} from './errors.js';
import { chargeListSteps, withListWorkBudget } from './list-work.js';
import { cloneJson, hasOwn, isJsonObject, jsonEqual, jsonTypeOf, type JsonObject } from './json.js';

const OPERATIONS = ['add', 'remove', 'replace', 'move', 'copy', 'test'];

/** Applies an RFC 6902 patch to a copy of `obj`; `obj` and `ops` are never modified. */
export function applyJsonPatch(obj: JsonObject, ops: unknown): JsonObject {
  return withStatusErrors(() => {
    if (!Array.isArray(ops)) {
      throw patchDecodeError(`a JSON patch must be a JSON array of operations, got ${jsonTypeOf(ops)}`);
    }
    if (ops.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(ops.length);
    ops.forEach(checkOperationShape);

    // Operation values are inserted by reference and may be modified by later operations: work on copies.
    let doc: unknown = cloneJson(obj);
    let copied = 0;
    const operations = cloneJson(ops) as Operation[];
    withListWorkBudget(() => {
      operations.forEach((op, index) => {
        // `test` changes nothing, and the library's comparison calls `hasOwnProperty` on the client's value (a key
        // of that name breaks it), so we evaluate it ourselves.
        if (op.op === 'test') return runTest(doc, op.path, op.value);
        if (op.op === 'copy') {
          copied += copySize(doc, op.from);
          if (copied > MAX_JSON_PATCH_COPY_BYTES) throw copiesTooLarge(copied);
        }
        chargeShifts(doc, op, index);
        try {
          doc = fastJsonPatch.applyOperation(doc, op, checkApplicable, true, true, index).newDocument;
        } catch (err) {
          throw translateLibraryError(err, op);
        }
      });
    }, 'json');
    if (!isJsonObject(doc)) throw patchNotApplicable(`the patched document is ${jsonTypeOf(doc)}, not a JSON object`);
    return doc;
  });
}

function checkOperationShape(op: unknown, index: number): void {
  const where = `operation ${index}`;
  if (!isJsonObject(op)) throw patchDecodeError(`${where} is ${jsonTypeOf(op)}, not a JSON object`);
  const name = hasOwn(op, 'op') ? op.op : undefined;
  if (typeof name !== 'string' || !OPERATIONS.includes(name)) {
    const got = name === undefined ? 'it is missing' : `got ${JSON.stringify(name)}`;
    throw patchDecodeError(`${where}: "op" must be one of ${OPERATIONS.join(', ')}; ${got}`);
  }
  checkPointer(op, 'path', where);
  if (name === 'move' || name === 'copy') checkPointer(op, 'from', where);
  if ((name === 'add' || name === 'replace' || name === 'test') && !hasOwn(op, 'value')) {
    throw patchDecodeError(`${where}: "${name}" needs a "value"`);
  }
}

function checkPointer(op: JsonObject, member: 'path' | 'from', where: string): void {
  const pointer = hasOwn(op, member) ? op[member] : undefined;
  if (typeof pointer !== 'string') {
    throw patchDecodeError(`${where}: "${member}" must be a JSON pointer string`);
  }
  if (pointer !== '' && !pointer.startsWith('/')) {
    throw patchDecodeError(`${where}: "${member}" ${JSON.stringify(pointer)} must be empty or start with "/"`);
  }
  if (/~(?![01])/.test(pointer)) {
    throw patchDecodeError(`${where}: "${member}" ${JSON.stringify(pointer)} has a "~" not followed by 0 or 1`);
  }
  if (segments(pointer).includes('__proto__')) {
    throw patchDecodeError(`${where}: "${member}" ${JSON.stringify(pointer)} may not contain "__proto__"`);
  }
}

function segments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

interface Location {
  /** The container the last segment is looked up in; undefined when the pointer's parent does not exist. */
  parent?: unknown[] | JsonObject;
  key: string;
  exists: boolean;
}

/** Resolves a pointer through own properties and valid array indexes only. */
function locate(doc: unknown, pointer: string): Location {
  const segs = segments(pointer);
  let current: unknown = doc;
  for (const seg of segs.slice(0, -1)) {
    if (Array.isArray(current) && ARRAY_INDEX.test(seg) && Number(seg) < current.length) current = current[Number(seg)];
    else if (isJsonObject(current) && hasOwn(current, seg)) current = current[seg];
    else return { key: seg, exists: false };
  }
  const key = segs[segs.length - 1] ?? '';
  if (Array.isArray(current)) {
    return { parent: current, key, exists: ARRAY_INDEX.test(key) && Number(key) < current.length };
  }
  if (isJsonObject(current)) return { parent: current, key, exists: hasOwn(current, key) };
  return { key, exists: false };
}

// The failure texts are evanphx/json-patch's (kube-apiserver's library), so they read like a real cluster's.
function missingPath(op: string, path: string) {
  const where =
    op === 'replace' ? `path: ${path}` : op === 'add' || op === 'remove' ? `path: "${path}"` : `destination path: ${path}`;
  return patchNotApplicable(`${op} operation does not apply: doc is missing ${where}: missing value`);
}
const missingKey = (path: string, key: string) =>
  patchNotApplicable(`error in remove for path: '${path}': Unable to remove nonexistent key: ${key}: missing value`);
const invalidIndex = (op: string, path: string, key: string) =>
  patchNotApplicable(
    `error in ${op} for path: '${path}': Unable to access invalid index: ${key}: invalid index referenced`,
  );

/** An insertion point: `-` or an index up to the length of the list (a member name for objects). */
function canInsert(target: Location): boolean {
  if (!Array.isArray(target.parent)) return true;
  return target.key === '-' || (ARRAY_INDEX.test(target.key) && Number(target.key) <= target.parent.length);
}

/** fast-json-patch validator hook: runs before each operation touches the document. */
function checkApplicable(operation: Operation, _index: number, doc: unknown): void {
  const { op, path } = operation;
  if (path === '') {
    if (op === 'move' || op === 'copy') checkSource(operation, doc);
    return;
  }
  const target = locate(doc, path);
  const inList = Array.isArray(target.parent);
  switch (op) {
    case 'add':
      if (!target.parent) throw missingPath(op, path);
      if (!canInsert(target)) throw invalidIndex(op, path, target.key);
      return;
    case 'remove':
      if (!target.parent) throw missingPath(op, path);
      if (!target.exists) throw inList ? invalidIndex(op, path, target.key) : missingKey(path, target.key);
      return;
    case 'replace':
      // A missing object member is fine: kube's library then adds it.
      if (!target.parent) throw missingPath(op, path);
      if (inList && !target.exists) throw invalidIndex(op, path, target.key);
      return;
    case 'move':
    case 'copy':
      checkSource(operation, doc);
      if (op === 'move' && path.startsWith(`${operation.from}/`)) {
        throw patchNotApplicable(`move operation does not apply: "${operation.from}" cannot be moved into its own child`);
      }
      if (!target.parent) throw missingPath(op, path);
      if (!canInsert(target)) throw invalidIndex(op, path, target.key);
      return;
    default:
      return;
  }
}

function checkSource(operation: Operation, doc: unknown): void {
  const from = (operation as { from: string }).from;
  if (from !== '' && !locate(doc, from).exists) {
    throw patchNotApplicable(`${operation.op} operation does not apply: doc is missing from path: "${from}": missing value`);
  }
}

/**
 * The JSON size of what a `copy` would duplicate (0 when the source is missing: the operation then fails as it
 * would have). The document is bounded (the object, the patch body and at most the copy limit), so is this.
 */
function copySize(doc: unknown, from: string): number {
  let value: unknown = doc;
  if (from !== '') {
    const { parent, key, exists } = locate(doc, from);
    if (!exists || !parent) return 0;
    value = Array.isArray(parent) ? parent[Number(key)] : parent[key];
  }
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * Charges the list items an operation shifts (a list's tail moves by one for each insertion or removal at an
 * index) before it runs: ten thousand removals at the head of a 650,000-item list are 6.5e9 moves, seconds of the
 * event loop, from a 360 KB patch. A path that does not resolve charges nothing (the operation then fails).
 */
function chargeShifts(doc: unknown, op: Operation, index: number): void {
  let shifted = 0;
  if (op.op === 'add' || op.op === 'copy' || op.op === 'move') shifted += tailLength(doc, op.path, true);
  if (op.op === 'remove' || op.op === 'move') shifted += tailLength(doc, op.op === 'move' ? op.from : op.path, false);
  if (shifted > 0) chargeListSteps(shifted, `operation ${index} shifts ${shifted}`);
}

/** How many items follow the pointer's index in its list (0 outside lists, at `-`, or where nothing resolves). */
function tailLength(doc: unknown, pointer: string, inserting: boolean): number {
  if (pointer === '') return 0;
  const { parent, key } = locate(doc, pointer);
  if (!Array.isArray(parent) || !ARRAY_INDEX.test(key)) return 0;
  const at = Number(key);
  return Math.max(0, parent.length - at - (inserting ? 0 : 1));
}

function runTest(doc: unknown, path: string, expected: unknown): void {
  let actual: unknown = doc;
  if (path !== '') {
    const { parent, key, exists } = locate(doc, path);
    if (!exists || !parent) throw testFailed(path);
    actual = Array.isArray(parent) ? parent[Number(key)] : parent[key];
  }
  if (!jsonEqual(actual, expected)) throw testFailed(path);
}

const testFailed = (path: string) => patchNotApplicable(`testing value ${path} failed: test failed`);

function translateLibraryError(err: unknown, op: Operation): unknown {
  if (err instanceof fastJsonPatch.JsonPatchError) {
    return patchNotApplicable(`${op.op} operation does not apply to "${op.path}": ${err.message.split('\n')[0]}`);
  }
  // fast-json-patch refuses `constructor/prototype` paths with a TypeError (prototype pollution guard).
  if (err instanceof TypeError && err.message.startsWith('JSON-Patch:')) {
    return patchDecodeError(`path ${JSON.stringify(op.path)} is not allowed: it would modify an object prototype`);
  }
  return err;
}
