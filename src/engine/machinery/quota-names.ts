/**
 * What a ResourceQuota counts, in kube's terms (k8s.io/apiserver quota/v1 and pkg/quota/v1/evaluator/core): every
 * stored resource has an object-count name (`count/<resource>` in the core group, `count/<resource>.<group>`
 * otherwise), four core resources keep their legacy bare names as aliases, and events and the review kinds are
 * never counted. Also the resource-list arithmetic and text the quota admission and controller share. Pure.
 */
import { ownValue } from './own-properties.js';
import type { GroupResource } from './status.js';
import { quantityValue } from './quantity.js';

/** A ResourceQuota's `hard` / `used` map: resource name → quantity text. */
export type ResourceList = Record<string, string>;

/** kube's legacyObjectCountAliases: bare names that count the same objects as `count/<resource>`. */
const legacyAliases = new Map<string, string>([
  ['configmaps', 'configmaps'],
  ['secrets', 'secrets'],
  ['resourcequotas', 'resourcequotas'],
  ['replicationcontrollers', 'replicationcontrollers'],
]);

/** kube's DefaultIgnoredResources: never charged to a quota, never counted. */
const ignored = new Set([
  '/events',
  'events.k8s.io/events',
  '/bindings',
  '/componentstatuses',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
]);

export function isIgnoredByQuota(gr: GroupResource): boolean {
  return ignored.has(`${gr.group}/${gr.resource}`);
}

/** ObjectCountQuotaResourceNameFor. */
export function objectCountName(gr: GroupResource): string {
  return gr.group ? `count/${gr.resource}.${gr.group}` : `count/${gr.resource}`;
}

/** The quota names one new object of this resource consumes, one each (the object-count evaluator's names). */
export function countedNames(gr: GroupResource): string[] {
  const alias = gr.group === '' ? legacyAliases.get(gr.resource) : undefined;
  return alias ? [objectCountName(gr), alias] : [objectCountName(gr)];
}

/**
 * The resource whose objects a quota name counts: `count/<resource>[.<group>]` or a legacy alias. Undefined for
 * every other name (cpu, memory, pods, services, storage, …): kcpt serves nothing those measure, so they stay 0.
 */
export function countedResource(name: string): GroupResource | undefined {
  if (name.startsWith('count/')) {
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    const gr = dot === -1 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
    return gr.resource ? gr : undefined;
  }
  return legacyAliases.has(name) ? { group: '', resource: name } : undefined;
}

/**
 * Object-count evaluators match no scope, so a quota with scopes (or a scope selector) never counts objects:
 * kube's generic Matches ANDs MatchesNoScopeFunc over every scope.
 */
export function hasScopes(spec: unknown): boolean {
  const s = (spec ?? {}) as { scopes?: unknown; scopeSelector?: { matchExpressions?: unknown } };
  const scopes = Array.isArray(s.scopes) ? s.scopes.length : 0;
  const expressions = Array.isArray(s.scopeSelector?.matchExpressions) ? s.scopeSelector.matchExpressions.length : 0;
  return scopes + expressions > 0;
}

/**
 * An integer quantity in canonical DecimalSI form, as Go's Quantity.String() prints it: trailing zeros become
 * k/M/G/T/P/E when they come in threes (1000 → 1k, 1500 → 1500, 1200000 → 1200k).
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || n === 0) return String(n);
  const suffixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let mantissa = n;
  let step = 0;
  while (step < suffixes.length - 1 && mantissa % 1000 === 0) {
    mantissa /= 1000;
    step++;
  }
  return `${mantissa}${suffixes[step]}`;
}

/** The numeric value of a list entry; a missing or unparsable entry is 0, as a zero Quantity is. */
export function amount(list: ResourceList | undefined, name: string): number {
  return quantityValue(ownValue(list, name)) ?? 0;
}

/** The entry as Go prints a Quantity: missing → "0". */
export function quantityText(list: ResourceList | undefined, name: string): string {
  const v = ownValue(list, name);
  return v === undefined ? '0' : String(v);
}

/** kube's prettyPrint of a resource list restricted to `names`: sorted `name=value` joined by commas. */
export function prettyPrint(list: ResourceList | undefined, names: readonly string[]): string {
  return [...names].sort().map((n) => `${n}=${quantityText(list, n)}`).join(',');
}

/** A quota's `status.hard` / `status.used` / `spec.hard` as a ResourceList (values kept as stored). */
export function resourceList(value: unknown): ResourceList {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = typeof v === 'number' ? String(v) : String(v ?? '');
  return out;
}

/** Same names, same quantities (by value: `1k` equals `1000`). */
export function sameList(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => b !== undefined && k in b && amount(a, k) === amount(b, k));
}
