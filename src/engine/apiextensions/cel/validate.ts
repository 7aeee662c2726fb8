/**
 * x-kubernetes-validations on custom resource writes, as kube's CEL validator runs them: every rule of every schema
 * node the object has a value at, transition rules (those naming oldSelf) only where the update has an old value at
 * the same place (object fields by name, map values by key, list items of a map-type list by their keys), and no
 * rule but a transition rule on a value the update left unchanged (kube's ratcheting).
 * Work is bounded before it is done: each rule's cost is bounded from the sizes the values actually have
 * (cost.ts) and charged against the request's budget before it runs; a rule over kube's per-call limit, or past
 * the budget, stops validation with kube's errors.
 */
import { Optional } from '@marcbachmann/cel-js';
import { ChangeDetector } from '../../machinery/canonical-json.js';
import { ownValue } from '../../machinery/own-properties.js';
import type { FieldError } from '../../machinery/status.js';
import { isPlainObject } from '../types.js';
import { celConversions, observedSizes, toCel, type CelConversions, type CelNode, type DeepSizes } from './decl-types.js';
import type { CompiledRule, CompiledRules, RuleNode } from './compile.js';
import { estimateCost, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './cost.js';
import { resolveFieldPath } from './compile.js';
import { correlateMapList } from '../ratcheting.js';
import { withRE2Budget } from '../re2-bounded.js';

interface Budget {
  remaining: number;
  exhausted: boolean;
  /** This call's CEL conversions (each value converted once, however deep its rules) and its unchanged-value checks. */
  converted: CelConversions;
  changes: ChangeDetector;
  /** Nested value counts (valueCount), by object, for equality's run-time charge. */
  counted: Map<object, number>;
}

/** Cost bounds remembered per rule, by the sizes they were computed from. */
const COST_CACHE_ENTRIES = 32;

/** kube's celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;

/**
 * Evaluate the compiled rules over a custom resource (and the object it replaces, on update). `changes`: the
 * request's unchanged-value comparisons (shared with its schema's ratcheting).
 */
export function validateRules(rules: CompiledRules, obj: unknown, old: unknown, budget = RUNTIME_CEL_COST_BUDGET, changes = new ChangeDetector()): FieldError[] {
  const root = rules.root;
  if (!root) return [];
  const errs: FieldError[] = [];
  const converted = celConversions(rules.ruleNodes ?? new Set());
  // The regexes the rules compile (a pattern may come from the object) share one bound.
  withRE2Budget(() => validateNode(root, obj, old, old !== undefined, '', errs, { remaining: budget, exhausted: false, converted, changes, counted: new Map() }));
  return errs;
}

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

function validateNode(rn: RuleNode, value: unknown, old: unknown, hasOld: boolean, path: string, errs: FieldError[], budget: Budget): void {
  if (value === null || value === undefined || budget.exhausted) return;
  if (rn.rules.length > 0) evaluateRules(rn, value, old, hasOld, path, errs, budget);
  if (rn.properties && isPlainObject(value)) {
    for (const [name, sub] of rn.properties) {
      if (budget.exhausted) return;
      const oldObj = hasOld && isPlainObject(old) ? old : undefined;
      validateNode(sub, ownValue(value, name), ownValue(oldObj, name), !!oldObj && Object.hasOwn(oldObj, name), join(path, name), errs, budget);
    }
  }
  if (!rn.elem) return;
  if (Array.isArray(value)) {
    const match = rn.listType === 'map' && hasOld && Array.isArray(old) ? correlateMapList(old, rn.listMapKeys ?? []) : undefined;
    value.forEach((item, i) => {
      if (budget.exhausted) return;
      const oldItem = match?.(item);
      validateNode(rn.elem!, item, oldItem, oldItem !== undefined, `${path}[${i}]`, errs, budget);
    });
  } else if (isPlainObject(value)) {
    const oldMap = hasOld && isPlainObject(old) ? old : undefined;
    for (const k of Object.keys(value)) {
      if (budget.exhausted) return;
      validateNode(rn.elem, ownValue(value, k), ownValue(oldMap, k), !!oldMap && Object.hasOwn(oldMap, k), `${path}[${k}]`, errs, budget);
    }
  }
}

function schemaType(node: CelNode): string {
  return typeof node.schema.type === 'string' ? node.schema.type : '';
}

function ruleErrorString(r: CompiledRule): string {
  return (r.source.message ?? '').trim() || (r.source.rule ?? '').trim();
}

/** cel-go's runtime error words: `no such key: x`, not cel-js's `No such key: x`. */
function runtimeError(err: unknown): string {
  const first = ((err as Error)?.message ?? String(err)).split('\n')[0];
  return first.replace(/^No such key: /, 'no such key: ');
}

function evaluateRules(rn: RuleNode, value: unknown, old: unknown, hasOld: boolean, path: string, errs: FieldError[], budget: Budget): void {
  const node = rn.node;
  const at = path || '<nil>';
  const type = schemaType(node);
  const unchanged = hasOld && budget.changes.unchanged(value, old);
  let sizes: Map<CelNode, number> | undefined;
  let deep: DeepSizes | undefined;
  let ctx: Record<string, unknown> | undefined;
  const charge = (rule: CompiledRule, program: CompiledRule['program'], fixed: number | undefined, source: string, what: 'rule' | 'messageExpression'): boolean => {
    let cost = fixed;
    if (cost === undefined) {
      if (!sizes) {
        deep = rn.deepNodes && { nodes: rn.deepNodes, out: new Map(), counted: budget.counted };
        sizes = observedSizes(node, value, new Map(), rn.sizeRelevant, deep);
        if (hasOld) observedSizes(node, old, sizes, rn.sizeRelevant, deep);
      }
      const s = sizes;
      const d = deep?.out;
      const key = `${what === 'rule' ? 'r' : 'm'}${(rule.sizeDeps ?? []).map((n) => s.get(n) ?? 0).join(',')};${(rule.deepDeps ?? []).map((n) => d?.get(n) ?? 0).join(',')}`;
      const cache = (rule.costCache ??= new Map());
      cost = cache.get(key);
      if (cost === undefined) {
        cost = estimateCost(program.ast, node, (n) => s.get(n) ?? 0, (n) => d?.get(n) ?? 0);
        if (cache.size >= COST_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
        cache.set(key, cost);
      }
    }
    if (cost > PER_CALL_LIMIT) {
      const detail =
        what === 'rule'
          ? `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${source}`
          : `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(source)}`;
      errs.push(invalid(at, type, detail));
      budget.exhausted = true;
      return false;
    }
    if (cost > budget.remaining) {
      const detail =
        what === 'rule'
          ? 'validation failed due to running out of cost budget, no further validation rules will be run'
          : 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run';
      errs.push(invalid(at, type, detail));
      budget.exhausted = true;
      return false;
    }
    budget.remaining -= cost;
    return true;
  };
  for (const r of rn.rules) {
    if (budget.exhausted) return;
    if (r.usesOldSelf && !hasOld && !r.optionalOldSelf) continue;
    if (!r.usesOldSelf && unchanged) continue;
    if (!charge(r, r.program, r.fixedCost, ruleErrorString(r), 'rule')) return;
    let result: unknown;
    try {
      const memo = budget.converted;
      ctx ??= { self: toCel(node, value, memo) };
      if (r.usesOldSelf) ctx.oldSelf = r.optionalOldSelf ? (hasOld ? Optional.of(toCel(node, old, memo)) : Optional.none()) : toCel(node, old, memo);
      result = r.program(ctx);
    } catch (err) {
      errs.push(invalid(at, type, `${runtimeError(err)} evaluating rule: ${ruleErrorString(r)}`));
      continue;
    }
    if (result === true) continue;
    let message = (r.source.message ?? '').trim() || `failed rule: ${ruleErrorString(r)}`;
    if (r.messageProgram) {
      const src = (r.source.messageExpression ?? '').trim();
      if (!charge(r, r.messageProgram, r.messageFixedCost, src, 'messageExpression')) return;
      try {
        const m = r.messageProgram(ctx);
        const text = typeof m === 'string' ? m.trim() : '';
        // kube falls back to the rule's message when the expression's string is unusable.
        if (text && text.length <= MAX_MESSAGE_BYTES && !text.includes('\n')) message = text;
      } catch {
        // As kube: a failing messageExpression reports the rule's message.
      }
    }
    const fieldPath = r.source.fieldPath ? resolveFieldPath(r.source.fieldPath, node.schema) : undefined;
    const errPath = fieldPath ? fieldPath.reduce((p, n) => join(p, n), path) : at;
    errs.push(forReason(r.source.reason, errPath, type, message));
  }
}

function invalid(field: string, type: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${JSON.stringify(type)}: ${detail}` };
}

/** kube's fieldErrorForReason. */
function forReason(reason: string | undefined, field: string, type: string, message: string): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return { type: 'FieldValueForbidden', field, detail: `Forbidden: ${message}` };
    case 'FieldValueRequired':
      return { type: 'FieldValueRequired', field, detail: `Required value: ${message}` };
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${JSON.stringify(type)}` };
    default:
      return invalid(field, type, message);
  }
}
