/**
 * x-kubernetes-validations at CRD write time, as kube's CRD validation does them: each rule is checked (its shape,
 * reason, fieldPath), compiled against the CEL type of the schema node it sits on (`self`, and `oldSelf` for
 * transition rules), and its worst-case cost estimated; a rule that does not compile, a rule whose estimated cost
 * times the most times it can run exceeds kube's per-expression limit, and a schema whose rules together exceed the
 * per-CRD limit are refused with kube's field errors. The compiled rules are what CR writes evaluate (validate.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import { goValidationRuleDump } from '../go-dump.js';
import { isPlainObject, type JSONSchemaProps } from '../types.js';
import { baseEnvironment, bindKubeImplementations, UNSUPPORTED_FUNCTIONS } from './library.js';
import { celEqual, MAX_REQUEST_SIZE_BYTES, nodesLeadingTo, SchemaTypes, unescapeFieldName, type CelNode } from './decl-types.js';
import { bindListTypeOperators } from './list-types.js';
import {
  costErrorMessage,
  estimateCost,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type Ast,
} from './cost.js';

export const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

type Program = ((ctx: Record<string, unknown>) => unknown) & { ast: Ast; check(): { valid: boolean; type?: string; error?: unknown } };

export interface CompiledRule {
  source: ValidationRule;
  program: Program;
  messageProgram?: Program;
  /** The cost of one evaluation when it does not depend on the values' sizes (most rules): charged as is. */
  fixedCost?: number;
  messageFixedCost?: number;
  /** The schema nodes whose sizes the cost bound reads (rule and messageExpression), when it is not fixed. */
  sizeDeps?: CelNode[];
  /** The nodes whose values' nested sizes it reads at run time (what equality of objects, maps and lists walks). */
  deepDeps?: CelNode[];
  /** Bounds already computed, by those sizes (objects written repeatedly tend to have the same ones). */
  costCache?: Map<string, number>;
  usesOldSelf: boolean;
  optionalOldSelf: boolean;
}

/** A schema node with the rules on it and the nodes below it that have rules. */
export interface RuleNode {
  node: CelNode;
  rules: CompiledRule[];
  /** Property name → node (objects). */
  properties?: Map<string, RuleNode>;
  /** List items or map values. */
  elem?: RuleNode;
  /** The nodes observedSizes walks for this node's size-dependent rules. */
  sizeRelevant?: Set<CelNode>;
  /** The nodes whose nested sizes those rules read (their deepDeps). */
  deepNodes?: Set<CelNode>;
  /** The list's x-kubernetes-list-type / map keys, for correlating old items. */
  listType?: string;
  listMapKeys?: string[];
}

export interface CompiledRules {
  root?: RuleNode;
  /** The schema nodes that carry rules (whose values validation converts for CEL). */
  ruleNodes?: ReadonlySet<CelNode>;
  errors: FieldError[];
  /** Rules stored but not evaluated (a kube function kcpt lacks), as `path: rule`. */
  skipped: string[];
}

interface Walk {
  env: Environment;
  /** One environment per type of self (and oldSelf): rules on nodes of the same type share it. */
  envs: Map<string, Environment>;
  errors: FieldError[];
  skipped: string[];
  total: number;
  expensive: Array<{ path: string; cost: number }>;
}

const cache = new WeakMap<object, CompiledRules>();
const ROOT = 'openAPIV3Schema';

/**
 * Compile every rule of `schema` (a version's openAPIV3Schema), reporting errors at `fieldPath` (which ends in
 * openAPIV3Schema: `spec.validation.openAPIV3Schema`, `spec.versions[1].schema.openAPIV3Schema`). Cached per schema
 * object, so the CRD write's validation and its warnings compile once.
 */
export function compileSchemaRules(schema: JSONSchemaProps, fieldPath = ROOT): CompiledRules {
  let compiled = cache.get(schema);
  if (!compiled) {
    compiled = compile(schema);
    cache.set(schema, compiled);
  }
  if (fieldPath === ROOT || compiled.errors.length === 0) return compiled;
  const prefix = fieldPath.slice(0, fieldPath.length - ROOT.length);
  return { ...compiled, errors: compiled.errors.map((e) => ({ ...e, field: prefix + e.field })) };
}

function compile(schema: JSONSchemaProps): CompiledRules {
  if (!hasRules(schema)) return { errors: [], skipped: [] };
  // A CRD stored past the bound (CRD writes refuse it) is not compiled on its objects' writes either.
  if (countRules(schema, MAX_RULES_PER_CRD) > MAX_RULES_PER_CRD) return { errors: [], skipped: ['all rules (more than the bound kcpt compiles)'] };
  const env = baseEnvironment().clone();
  const root = new SchemaTypes(env).build(schema, true);
  const w: Walk = { env, envs: new Map(), errors: [], skipped: [], total: 0, expensive: [] };
  const ruleTree = walk(schema, root, ROOT, 1, false, undefined, w);
  const out: CompiledRules = { root: ruleTree, ruleNodes: ruleTree && nodesWithRules(ruleTree), errors: w.errors, skipped: w.skipped };
  if (w.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of w.expensive.sort((a, b) => b.cost - a.cost).slice(0, 4)) {
      w.errors.push(fieldErrors.forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    }
    w.errors.push(
      fieldErrors.forbidden(
        ROOT,
        costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', w.total, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
  return out;
}

function nodesWithRules(rn: RuleNode, out = new Set<CelNode>()): Set<CelNode> {
  if (rn.rules.length > 0) out.add(rn.node);
  for (const sub of rn.properties?.values() ?? []) nodesWithRules(sub, out);
  if (rn.elem) nodesWithRules(rn.elem, out);
  return out;
}

/**
 * The most rules kcpt compiles for one CRD (all its versions). kube has no such bound; compiling a rule here costs
 * a fraction of a millisecond of the event loop, and a 3 MiB CRD could carry tens of thousands of them. Generous:
 * the largest CRDs in common use carry a few hundred.
 */
export const MAX_RULES_PER_CRD = 1000;

/** How many x-kubernetes-validations rules a schema carries (counting stops past `limit`). */
export function countRules(schema: unknown, limit = Infinity): number {
  if (!isPlainObject(schema)) return 0;
  const own = schema['x-kubernetes-validations'];
  let n = Array.isArray(own) ? own.length : 0;
  const children: unknown[] = [schema.items, schema.additionalProperties];
  if (isPlainObject(schema.properties)) children.push(...Object.values(schema.properties));
  for (const c of children) {
    if (n > limit) break;
    n += countRules(c, limit - n);
  }
  return n;
}

export function hasRules(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules) && rules.length > 0) return true;
  if (isPlainObject(schema.properties) && Object.values(schema.properties).some(hasRules)) return true;
  return hasRules(schema.items) || hasRules(schema.additionalProperties);
}

/**
 * `cardinality`: how many times values at this node can occur in one object (kube's MaxCardinality: the product of
 * the enclosing lists' and maps' bounds, or the request-size estimate when one is unbounded).
 * `uncorrelatable`: the path of an enclosing list whose items have no identity across updates (oldSelf is refused
 * below it).
 */
function walk(
  s: JSONSchemaProps,
  node: CelNode,
  path: string,
  cardinality: number,
  unbounded: boolean,
  uncorrelatable: string | undefined,
  w: Walk,
): RuleNode | undefined {
  const out: RuleNode = { node, rules: [] };
  const card = unbounded ? Math.min(cardinality, Math.floor(MAX_REQUEST_SIZE_BYTES / (node.minSerializedSize + 1))) : cardinality;
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      const compiled = compileRule(isPlainObject(r) ? (r as ValidationRule) : {}, s, node, `${path}.x-kubernetes-validations[${i}]`, card, uncorrelatable, w);
      if (compiled) out.rules.push(compiled);
    });
  }
  const deps = new Set(out.rules.flatMap((r) => [...(r.sizeDeps ?? []), ...(r.deepDeps ?? [])]));
  if (deps.size > 0) out.sizeRelevant = nodesLeadingTo(node, deps);
  const deepNodes = new Set(out.rules.flatMap((r) => r.deepDeps ?? []));
  if (deepNodes.size > 0) out.deepNodes = deepNodes;
  let any = out.rules.length > 0;
  if (node.kind === 'object' && isPlainObject(s.properties)) {
    for (const [name, child] of Object.entries(s.properties as Record<string, JSONSchemaProps>)) {
      const cel = node.celNames?.get(name);
      if (!cel || !hasRules(child)) continue;
      const sub = walk(child, node.fields!.get(cel)!.node, `${path}.properties[${name}]`, cardinality, unbounded, uncorrelatable, w);
      if (sub) {
        (out.properties ??= new Map()).set(name, sub);
        any = true;
      }
    }
  }
  if ((node.kind === 'list' && isPlainObject(s.items)) || (node.kind === 'map' && isPlainObject(s.additionalProperties))) {
    const isList = node.kind === 'list';
    const childSchema = (isList ? s.items : s.additionalProperties) as JSONSchemaProps;
    if (hasRules(childSchema)) {
      const listType = s['x-kubernetes-list-type'];
      const correlatable = !isList || listType === 'map';
      const sub = walk(
        childSchema,
        node.elem!,
        `${path}.${isList ? 'items' : 'additionalProperties'}`,
        cardinality * node.maxSize,
        unbounded || !node.bounded,
        uncorrelatable ?? (correlatable ? undefined : path),
        w,
      );
      if (sub) {
        out.elem = sub;
        out.listType = listType;
        out.listMapKeys = s['x-kubernetes-list-map-keys'];
        any = true;
      }
    }
  }
  return any ? out : undefined;
}

function usesVariable(ast: unknown, name: string): boolean {
  if (!ast || typeof ast !== 'object') return false;
  if (Array.isArray(ast)) return ast.some((a) => usesVariable(a, name));
  const a = ast as Ast;
  if (a.op === 'id') return a.args === name;
  return usesVariable(a.args, name);
}

function calledFunctions(ast: unknown, out = new Set<string>()): Set<string> {
  if (!ast || typeof ast !== 'object') return out;
  if (Array.isArray(ast)) {
    for (const a of ast) calledFunctions(a, out);
    return out;
  }
  const a = ast as Ast;
  if ((a.op === 'call' || a.op === 'rcall') && Array.isArray(a.args) && typeof a.args[0] === 'string') out.add(a.args[0]);
  calledFunctions(a.args, out);
  return out;
}

/** cel-go's error shape: `ERROR: <input>:1:6: undefined field 'x'` and the source line with a caret under it. */
export function celErrorText(err: unknown, source: string): string {
  const e = err as { message?: string; node?: { start?: number; pos?: number } };
  // The namespaces' functions (sets.contains) are declared on kcpt.namespace.<name>; the rule wrote <name>.
  const summary = (e.message ?? String(err)).split('\n')[0].replace(/kcpt\.namespace\./g, '');
  const offset = e.node?.pos ?? e.node?.start;
  if (offset === undefined) return `ERROR: <input>:1:1: ${summary}`;
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - before.lastIndexOf('\n');
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col}: ${summary}\n | ${text}\n | ${'.'.repeat(col - 1)}^`;
}

function invalidRule(path: string, r: ValidationRule, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: path, detail: `Invalid value: ${goValidationRuleDump(r)}: ${detail}` };
}

const hasNewline = (s: string) => s.includes('\n');

function compileRule(
  r: ValidationRule,
  s: JSONSchemaProps,
  node: CelNode,
  path: string,
  cardinality: number,
  uncorrelatable: string | undefined,
  w: Walk,
): CompiledRule | undefined {
  const rule = typeof r.rule === 'string' ? r.rule.trim() : '';
  const message = typeof r.message === 'string' ? r.message : undefined;
  const errs = w.errors;
  if (!rule) errs.push(fieldErrors.required(`${path}.rule`, 'rule is not specified'));
  else if (message !== undefined && message.length > 0 && message.trim().length === 0) {
    errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  } else if (message !== undefined && hasNewline(message.trim())) {
    errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  } else if (hasNewline(rule) && !(message ?? '').trim()) {
    errs.push(fieldErrors.required(`${path}.message`, 'message must be specified if rule contains line breaks'));
  }
  if (typeof r.messageExpression === 'string' && r.messageExpression.length > 0 && !r.messageExpression.trim()) {
    errs.push(fieldErrors.required(`${path}.messageExpression`, 'messageExpression must be non-empty if specified'));
  }
  if (r.reason !== undefined && !SUPPORTED_REASONS.includes(r.reason)) errs.push(fieldErrors.notSupported(`${path}.reason`, r.reason, SUPPORTED_REASONS));
  if (typeof r.fieldPath === 'string' && r.fieldPath.length > 0) {
    if (!r.fieldPath.trim()) errs.push(fieldErrors.invalid(`${path}.fieldPath`, r.fieldPath, 'fieldPath must be non-empty if specified'));
    else if (hasNewline(r.fieldPath)) errs.push(fieldErrors.invalid(`${path}.fieldPath`, r.fieldPath, 'fieldPath must not contain line breaks'));
    else if (resolveFieldPath(r.fieldPath, s) === undefined) errs.push(fieldErrors.invalid(`${path}.fieldPath`, r.fieldPath, 'fieldPath must be a valid path'));
  }
  if (!rule) return undefined;

  // Parsed before its environment is chosen: oldSelf's type depends on whether the rule names it.
  let program: Program;
  try {
    program = w.env.parse(rule) as unknown as Program;
  } catch (err) {
    errs.push(invalidRule(`${path}.rule`, r, `compilation failed: ${celErrorText(err, rule)}`));
    return undefined;
  }
  const usesOld = usesVariable(program.ast, 'oldSelf');
  const optional = usesOld && r.optionalOldSelf === true;
  const oldType = optional ? `optional<${node.type}>` : node.type;
  let env = w.envs.get(`${node.type} ${oldType}`);
  if (!env) {
    env = w.env.clone().registerVariable('self', node.type).registerVariable('oldSelf', oldType);
    w.envs.set(`${node.type} ${oldType}`, env);
  }
  program = env.parse(rule) as unknown as Program;
  const unsupported = [...calledFunctions(program.ast)].filter((f) => UNSUPPORTED_FUNCTIONS.has(f));
  if (unsupported.length > 0) {
    w.skipped.push(`${path}.rule (${unsupported.join(', ')})`);
    return undefined;
  }
  const checked = program.check();
  if (!checked.valid) {
    errs.push(invalidRule(`${path}.rule`, r, `compilation failed: ${celErrorText(checked.error, rule)}`));
    return undefined;
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    errs.push(invalidRule(`${path}.rule`, r, 'cel expression must evaluate to a bool'));
    return undefined;
  }
  bindKubeImplementations(program.ast);
  bindListTypeOperators(program.ast, celEqual);
  const cost = estimateCost(program.ast, node, (n) => n.maxSize) * cardinality;
  observe(w, `${path}.rule`, cost, 'estimated rule cost');

  let messageProgram: Program | undefined;
  const msgExpr = typeof r.messageExpression === 'string' ? r.messageExpression.trim() : '';
  if (msgExpr) {
    let mc: ReturnType<Program['check']>;
    try {
      messageProgram = env.parse(msgExpr) as unknown as Program;
      const lacking = [...calledFunctions(messageProgram.ast)].filter((f) => UNSUPPORTED_FUNCTIONS.has(f));
      // A message kcpt cannot build: the rule is still enforced, with its message (or kube's default).
      mc = lacking.length > 0 ? { valid: true, type: 'unsupported' } : messageProgram.check();
      if (lacking.length > 0) w.skipped.push(`${path}.messageExpression (${lacking.join(', ')})`);
    } catch (error) {
      mc = { valid: false, error };
    }
    if (mc.type === 'unsupported') {
      messageProgram = undefined;
    } else if (!mc.valid) {
      errs.push(invalidRule(`${path}.messageExpression`, r, `messageExpression compilation failed: ${celErrorText(mc.error, msgExpr)}`));
      messageProgram = undefined;
    } else if (mc.type !== 'string' && mc.type !== 'dyn') {
      errs.push(invalidRule(`${path}.messageExpression`, r, 'must evaluate to a string'));
      messageProgram = undefined;
    } else {
      bindKubeImplementations(messageProgram!.ast);
      bindListTypeOperators(messageProgram!.ast, celEqual);
      const mcost = estimateCost(messageProgram!.ast, node, (n) => n.maxSize) * cardinality;
      observe(w, `${path}.messageExpression`, mcost, 'estimated messageExpression cost');
    }
  }
  if (usesOld && uncorrelatable !== undefined) {
    errs.push(fieldErrors.invalid(`${path}.rule`, rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
  } else if (!usesOld && r.optionalOldSelf === true) {
    errs.push(fieldErrors.invalid(`${path}.optionalOldSelf`, true, 'may not be set to true for non-transition rule'));
  }
  const deepDeps = new Set<CelNode>();
  const recordDeep = (n: CelNode) => {
    deepDeps.add(n);
    return n.maxSize;
  };
  const deepRule = deepDependent(program, node, recordDeep);
  const deepMessage = messageProgram ? deepDependent(messageProgram, node, recordDeep) : false;
  const fixed = deepRule ? undefined : fixedCost(program, node);
  const messageFixed = messageProgram && !deepMessage ? fixedCost(messageProgram, node) : undefined;
  const deps = new Set<CelNode>();
  const record = (n: CelNode) => {
    deps.add(n);
    return n.maxSize;
  };
  if (fixed === undefined) estimateCost(program.ast, node, record);
  if (messageProgram && messageFixed === undefined) estimateCost(messageProgram.ast, node, record);
  return {
    source: r,
    program,
    messageProgram,
    fixedCost: fixed,
    messageFixedCost: messageFixed,
    sizeDeps: deps.size > 0 ? [...deps] : undefined,
    deepDeps: deepDeps.size > 0 ? [...deepDeps] : undefined,
    usesOldSelf: usesOld,
    optionalOldSelf: optional,
  };
}

/** Whether the run-time bound reads nested sizes (`record` is told which nodes'): then it is never fixed. */
function deepDependent(program: Program, node: CelNode, record: (n: CelNode) => number): boolean {
  let read = false;
  estimateCost(program.ast, node, (n) => n.maxSize, (n) => {
    read = true;
    return record(n);
  });
  return read;
}

/** The cost bound is monotone in the sizes: equal at the schema's bounds and at zero, it does not depend on them. */
function fixedCost(program: Program, node: CelNode): number | undefined {
  const most = estimateCost(program.ast, node, (n) => n.maxSize);
  return most === estimateCost(program.ast, node, () => 0) ? most : undefined;
}

function observe(w: Walk, path: string, cost: number, what: string): void {
  if (cost > STATIC_ESTIMATED_COST_LIMIT) w.errors.push(fieldErrors.forbidden(path, costErrorMessage(what, cost, STATIC_ESTIMATED_COST_LIMIT)));
  w.total += cost;
  w.expensive.push({ path, cost });
}

/**
 * A rule's fieldPath (`.spec.replicas`, `.labels['app.kubernetes.io/name']`) resolved against the schema it sits
 * on: the property names it walks, or undefined when it names nothing the schema declares.
 */
export function resolveFieldPath(fieldPath: string, schema: JSONSchemaProps): string[] | undefined {
  const names: string[] = [];
  let cur: JSONSchemaProps | undefined = schema;
  let rest = fieldPath.trim();
  while (rest.length > 0) {
    let name: string;
    const dot = /^\.([a-zA-Z_][a-zA-Z0-9_]*)/.exec(rest);
    const bracket = /^\['((?:[^'\\]|\\.)*)'\]/.exec(rest);
    if (dot) {
      name = unescapeFieldName(dot[1]);
      rest = rest.slice(dot[0].length);
    } else if (bracket) {
      name = bracket[1].replace(/\\(.)/g, '$1');
      rest = rest.slice(bracket[0].length);
    } else return undefined;
    if (!cur) return undefined;
    const props: Record<string, JSONSchemaProps> | undefined = isPlainObject(cur.properties) ? (cur.properties as Record<string, JSONSchemaProps>) : undefined;
    if (props && Object.hasOwn(props, name)) cur = props[name];
    else if (isPlainObject(cur.additionalProperties)) cur = cur.additionalProperties as JSONSchemaProps;
    else return undefined;
    names.push(name);
  }
  return names;
}
