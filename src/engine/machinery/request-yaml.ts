/**
 * YAML request bodies (create/update, server-side apply, DeleteOptions), read with js-yaml in one pass: the `yaml`
 * library composed a 2 MB body in 1.5–12 s of one event-loop turn, js-yaml in a fraction of a second (figures in
 * docs/benchmarks.md). Its depth and alias bounds are checked during that one pass, before the work they bound.
 */
import * as jsyaml from 'js-yaml';

/**
 * How deep a YAML body may nest. js-yaml composes recursively (its stack overflowed at ~1,640 levels of flow
 * sequences from a shallow stack), and V8 aborts the whole process rather than throw when a regular expression is
 * first compiled with the stack nearly used up: one `- - - … x` body of ~1,000 levels once took the server down.
 * Refused at the first level past the bound, so the recursion never gets near the stack's end.
 */
export const MAX_YAML_NESTING_DEPTH = 500;

/**
 * The most aliases may add to a document in all, counted as nodes plus the characters of strings: 3 MiB, the
 * request body limit, so a decoded YAML body is never bigger than a JSON body kcpt accepts. js-yaml shares an
 * anchored value between its aliases rather than copying it, but every later walk (validation, canonical JSON,
 * storage) expands it: a 200-byte "billion laughs" document would be 10^9 nodes there. (kube's ratio rule below
 * counts nodes only: a 1 MiB string aliased 999 times passes it.)
 */
export const MAX_YAML_ALIAS_EXPANSION = 3 * 1024 * 1024;

/**
 * The share of a document's nodes that may come from aliases, as kube's YAML reader (go-yaml v2's decoder, under
 * sigs.k8s.io/yaml) allows it: anything up to 1,000 nodes or 100 aliased ones, then 99 % up to 400,000 nodes,
 * falling to 10 % at 4,000,000.
 */
function allowedAliasRatio(nodes: number): number {
  if (nodes <= 400_000) return 0.99;
  if (nodes >= 4_000_000) return 0.1;
  return 0.99 - (0.89 * (nodes - 400_000)) / 3_600_000;
}

/** A body that is not acceptable YAML; `message` says why and where, for the caller's Status. */
export class YamlBodyError extends Error {
  constructor(
    message: string,
    /** The error is a repeated mapping key (the only one a caller may choose to read past). */
    readonly duplicateKey = false,
  ) {
    super(message);
  }
}

export interface ReadYamlOptions {
  /** `last-wins` reads `a: 1\na: 2` as {a: 2} (a create's body, a lenient apply); `refuse` makes it an error. */
  duplicateKeys: 'last-wins' | 'refuse';
}

/**
 * One YAML document as JSON-shaped values (null when the text holds none). Scalars resolve as YAML 1.2's core
 * schema, as kcpt read them with the `yaml` library: `yes`/`on` and timestamps stay strings, `0x1f` and `0o17` are
 * integers, `1e3` a number, `~` null. A second document is an error, as before.
 */
export function readRequestYaml(text: string, options: ReadYamlOptions): unknown {
  const aliases = new AliasBound();
  let value: unknown;
  try {
    value = jsyaml.load(text, {
      schema: requestSchema,
      json: options.duplicateKeys === 'last-wins',
      // js-yaml counts nodes, the scalar inside the innermost collection too, and reads a scalar in block context
      // twice (as a possible key): + 2 keeps 500 collections of any shape, as the yaml library's bound did.
      maxDepth: MAX_YAML_NESTING_DEPTH + 2,
      listener: (event: jsyaml.EventType, state: jsyaml.State) => aliases.onEvent(event, state),
    } as jsyaml.LoadOptions);
  } catch (err) {
    if (err instanceof jsyaml.YAMLException) throw fromYamlException(err);
    throw err;
  }
  if (value === undefined) return null;
  // One object in two places would be changed in both by whatever edits one (pruning, defaulting): copied apart.
  return aliases.sharedCollections ? unshared(value) : value;
}

function fromYamlException(err: jsyaml.YAMLException): YamlBodyError {
  const reason = err.reason ?? err.message;
  if (reason.startsWith('nesting exceeded maxDepth')) return new YamlBodyError(`exceeded max depth of ${MAX_YAML_NESTING_DEPTH} nested collections`);
  const where = err.mark ? ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}` : '';
  if (reason === 'duplicated mapping key') return new YamlBodyError(`Map keys must be unique${where}`, true);
  if (reason === 'expected a single document in the stream, but found more') {
    return new YamlBodyError(`it holds more than one document (separated by ---)${where}; send one object per request`);
  }
  return new YamlBodyError(`${reason}${where}`);
}

/**
 * Counts, while js-yaml composes, what the document would be if every alias were copied out: each node's expanded
 * size is recorded when it closes, an alias adds the size of what it names, and the parse stops as soon as the
 * aliases break kube's ratio or MAX_YAML_ALIAS_EXPANSION. Plain integers: nothing is expanded to count.
 */
class AliasBound {
  /** Whether an alias named a collection (the value then holds one object in several places). */
  sharedCollections = false;
  /** The running totals at each open node, innermost last (two arrays of numbers: no allocation per node). */
  private readonly startNodes: number[] = [];
  private readonly startSizes: number[] = [];
  /** Expanded nodes closed so far, and the part of them aliases added. */
  private nodes = 0;
  private aliasedNodes = 0;
  /** Expanded size (nodes plus characters of strings) closed so far, and the part aliases added. */
  private size = 0;
  private aliasedSize = 0;
  /** Expanded nodes and size of anchored collections, for the aliases that name them. */
  private readonly anchored = new WeakMap<object, [nodes: number, size: number]>();
  /** Whether the last event opened a node (so a node closing now has no children). */
  private justOpened = false;
  /** The value of the node that closed last. */
  private lastClosed: unknown = undefined;

  onEvent(event: jsyaml.EventType, state: jsyaml.State): void {
    if (event === 'open') {
      this.startNodes.push(this.nodes);
      this.startSizes.push(this.size);
      this.justOpened = true;
      return;
    }
    const startNodes = this.startNodes.pop() ?? 0;
    const startSize = this.startSizes.pop() ?? 0;
    const childless = this.justOpened;
    this.justOpened = false;
    // Fields js-yaml's State has but its types leave out.
    const { kind, tag, anchor, result } = state as jsyaml.State & { tag: string | null; anchor: string | null };
    const passedThrough = !childless && result === this.lastClosed;
    this.lastClosed = result;
    if (childless && kind === null && tag === null && result !== null && result !== undefined) {
      // An alias: the one node with a value that closes with no children, no kind and no tag.
      this.alias(result);
      return;
    }
    // In block context js-yaml reads a scalar, flow collection or alias once more inside a node of its own (as a
    // possible mapping key) and hands the value up: that outer node is the same value, not counted again.
    if (!passedThrough) {
      this.nodes += 1;
      this.size += sizeOf(result);
    }
    if (anchor !== null && result !== null && typeof result === 'object') {
      this.anchored.set(result, [this.nodes - startNodes, this.size - startSize]);
    }
  }

  private alias(target: unknown): void {
    let nodes = 1;
    let size = sizeOf(target);
    if (typeof target === 'object') {
      this.sharedCollections = true;
      [nodes, size] = this.anchored.get(target as object) ?? expandedSize(target);
    }
    this.nodes += nodes;
    this.aliasedNodes += nodes;
    this.size += size;
    this.aliasedSize += size;
    if (this.aliasedSize > MAX_YAML_ALIAS_EXPANSION) {
      throw new YamlBodyError(
        `its aliases (*name) expand it by more than ${MAX_YAML_ALIAS_EXPANSION} nodes and characters, more than a body may hold; write the repeated parts out`,
      );
    }
    // The nodes still open are counted too, as kube's decoder has counted them on the way in.
    const all = this.nodes + this.startNodes.length;
    if (this.aliasedNodes > 100 && all > 1000 && this.aliasedNodes / all > allowedAliasRatio(all)) {
      throw new YamlBodyError(
        `document contains excessive aliasing: ${this.aliasedNodes} of its ${all} nodes come from aliases (*name); write the repeated parts out`,
      );
    }
  }
}

/** A node's own size: 1, and a string's length (a collection's children are counted as they close). */
function sizeOf(value: unknown): number {
  return typeof value === 'string' ? 1 + value.length : 1;
}

/**
 * A composed value's expanded nodes and size (for an alias whose anchor was not seen closing), walked without
 * recursion and stopped once past the bound.
 */
function expandedSize(value: unknown): [nodes: number, size: number] {
  let nodes = 0;
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= MAX_YAML_ALIAS_EXPANSION) {
    const node = stack.pop();
    nodes += 1;
    size += sizeOf(node);
    if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (!Array.isArray(node)) {
          nodes += 1;
          size += sizeOf(key);
        }
        stack.push(child);
      }
    }
  }
  return [nodes, size];
}

/** A deep copy in which no object appears twice, made without recursion (the bounds above keep it small). */
function unshared(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const fresh = (node: object): unknown[] | Record<string, unknown> => (Array.isArray(node) ? [] : {});
  const root = fresh(value);
  const stack: Array<[from: object, to: unknown[] | Record<string, unknown>]> = [[value, root]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    for (const [key, child] of Object.entries(from)) {
      let copy = child;
      if (child !== null && typeof child === 'object') {
        copy = fresh(child);
        stack.push([child, copy as unknown[] | Record<string, unknown>]);
      }
      // A `__proto__` key stays a key, as js-yaml made it.
      if (key === '__proto__') Object.defineProperty(to, key, { value: copy, enumerable: true, writable: true, configurable: true });
      else (to as Record<string, unknown>)[key] = copy;
    }
  }
  return root;
}

// Scalars as YAML 1.2's core schema resolves them, with the yaml library's patterns (js-yaml's own int also reads
// `0b101` and `-0x1f`, and its float not `+.5`).
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
/** YAML 1.1's other booleans, taken only under an explicit `!!bool` (as kube's YAML 1.1 reader takes them). */
const BOOL_1_1 = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;
const INT = /^[-+]?[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const OCT = /^0o[0-7]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const INF_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const TAG = 'tag:yaml.org,2002:';

/** Whether a plain scalar could be a number: most are words, and this spares them the patterns below. */
function numberLike(data: string): boolean {
  const c = data.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e; // 0-9 + - .
}

const nullType = new jsyaml.Type(`${TAG}null`, {
  kind: 'scalar',
  resolve: (data: string | null) => data === null || (data.length <= 4 && NULL.test(data)),
  construct: () => null,
});

const boolType = new jsyaml.Type(`${TAG}bool`, {
  kind: 'scalar',
  // A second argument (the tag) means the tag was written out.
  resolve: ((data: string | null, explicit?: string) =>
    data !== null && data.length <= 5 && (BOOL.test(data) || (explicit !== undefined && BOOL_1_1.test(data)))) as (data: unknown) => boolean,
  construct: (data: string) => BOOL.test(data) ? data[0] === 't' || data[0] === 'T' : /^(?:y|yes|on)$/i.test(data),
});

function intOf(data: string): number {
  if (HEX.test(data)) return parseInt(data.slice(2), 16);
  if (OCT.test(data)) return parseInt(data.slice(2), 8);
  return parseInt(data, 10);
}

const intType = new jsyaml.Type(`${TAG}int`, {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && numberLike(data) && (INT.test(data) || HEX.test(data) || OCT.test(data)),
  construct: intOf,
});

function floatOf(data: string): number {
  if (INF_NAN.test(data)) return data.endsWith('nan') || data.endsWith('NaN') || data.endsWith('NAN') ? NaN : data[0] === '-' ? -Infinity : Infinity;
  if (HEX.test(data) || OCT.test(data)) return intOf(data);
  return parseFloat(data);
}

const floatType = new jsyaml.Type(`${TAG}float`, {
  kind: 'scalar',
  // Under an explicit `!!float`, an integer's text is a float too (`!!float 3` is 3, as in kube).
  resolve: ((data: string | null, explicit?: string) =>
    data !== null &&
    numberLike(data) &&
    (FLOAT.test(data) || FLOAT_EXP.test(data) || INF_NAN.test(data) || (explicit !== undefined && (INT.test(data) || HEX.test(data) || OCT.test(data))))) as (
    data: unknown,
  ) => boolean,
  construct: floatOf,
});

/** `!!binary` data stays the base64 text it is (what a ConfigMap's binaryData holds in JSON), without its line breaks. */
const binaryType = new jsyaml.Type(`${TAG}binary`, {
  kind: 'scalar',
  resolve: (data: string | null) => {
    const text = (data ?? '').replace(/\s+/g, '');
    return text.length % 4 === 0 && BASE64.test(text);
  },
  construct: (data: string | null) => (data ?? '').replace(/\s+/g, ''),
});

const jsTimestamp = (jsyaml as unknown as { types: { timestamp: { resolve(data: string): boolean; construct(data: string): Date } } }).types.timestamp;

/** `!!timestamp` written out: its instant as an RFC 3339 string. Untagged, a timestamp stays the string it is. */
const timestampType = new jsyaml.Type(`${TAG}timestamp`, {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && jsTimestamp.resolve(data),
  construct: (data: string) => jsTimestamp.construct(data).toISOString(),
});

/**
 * Any other tag (`!local`, `!!set`, `!<tag:example.com,2000:x>`) is read as if it were not there, its scalar text
 * kept as written: as the yaml library did for tags it did not know, and as kube's reader does for tags it cannot
 * resolve. `multi` with an empty prefix matches every tag the schema has no type for.
 */
const otherTags = [
  new jsyaml.Type('', { kind: 'scalar', multi: true, construct: (data: string | null) => data ?? '' }),
  new jsyaml.Type('', { kind: 'sequence', multi: true, construct: (data: unknown[] | null) => data ?? [] }),
  new jsyaml.Type('', { kind: 'mapping', multi: true, construct: (data: object | null) => data ?? {} }),
];

const requestSchema = jsyaml.FAILSAFE_SCHEMA.extend({
  implicit: [nullType, boolType, intType, floatType],
  explicit: [binaryType, timestampType, ...otherTags],
});
