/**
 * RBAC policy rules as Kubernetes evaluates them (k8s.io/component-helpers/auth/rbac/validation and
 * pkg/registry/rbac/validation): when a rule allows a request, when one set of rules covers another (escalation
 * prevention), and how missing rules are printed in kube's "attempting to grant" message.
 */

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** What a request asks for, as kube's authorizer.Attributes. */
export interface RequestAttributes {
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
  /** Non-resource requests: the path inside the logical cluster (`/api`, `/healthz`). */
  path: string;
}

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes(ALL) || rule.verbs.includes(verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  return groups.includes(ALL) || groups.includes(group);
}

/**
 * `pods` matches the resource, `pods/status` the subresource, `*` everything and `*\/status` that subresource of
 * every resource (kube's ResourceMatches).
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*` matches every path, `/apis/*` every path under /apis/, anything else only itself. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true;
    if (url.endsWith(ALL) && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** kube's RuleAllows. */
export function ruleAllows(rule: PolicyRule, attrs: RequestAttributes): boolean {
  if (attrs.resourceRequest) {
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, attrs.resource, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** A rule read from stored JSON: every list present, anything malformed dropped. */
export function normalizeRule(raw: unknown): PolicyRule | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const verbs = strings(r.verbs);
  if (verbs.length === 0) return undefined;
  const rule: PolicyRule = { verbs };
  const groups = strings(r.apiGroups);
  const resources = strings(r.resources);
  const names = strings(r.resourceNames);
  const urls = strings(r.nonResourceURLs);
  if (groups.length || 'apiGroups' in r) rule.apiGroups = groups;
  if (resources.length || 'resources' in r) rule.resources = resources;
  if (names.length) rule.resourceNames = names;
  if (urls.length) rule.nonResourceURLs = urls;
  return rule;
}

export function normalizeRules(raw: unknown): PolicyRule[] {
  if (!Array.isArray(raw)) return [];
  const rules: PolicyRule[] = [];
  for (const r of raw) {
    const rule = normalizeRule(r);
    if (rule) rules.push(rule);
  }
  return rules;
}

// ---- escalation prevention: coverage of one rule set by another ---------------------------------------------

/** Splits a rule into rules of one verb, one group, one resource and at most one name (kube's BreakdownRule). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names) out.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(have: readonly string[], want: readonly string[]): boolean {
  return want.every((w) => have.includes(w));
}

/** `*` in the owner's resources covers anything; `*\/x` covers every `r/x` (kube's resourceCoversAll). */
function resourcesCover(owner: readonly string[], requested: readonly string[]): boolean {
  if (owner.includes(ALL) || hasAll(owner, requested)) return true;
  return requested.every((r) => {
    if (owner.includes(r)) return true;
    const slash = r.indexOf('/');
    return slash >= 0 && owner.includes(`*${r.slice(slash)}`);
  });
}

function urlsCover(owner: readonly string[], requested: readonly string[]): boolean {
  return requested.every((url) =>
    owner.some((o) => o === ALL || o === url || (o.endsWith(ALL) && url.startsWith(o.slice(0, -1)))),
  );
}

/** Whether `owner` allows everything `requested` allows (kube's ruleCovers). */
export function ruleCovers(owner: PolicyRule, requested: PolicyRule): boolean {
  const verbs = owner.verbs.includes(ALL) || hasAll(owner.verbs, requested.verbs);
  const groups = (owner.apiGroups ?? []).includes(ALL) || hasAll(owner.apiGroups ?? [], requested.apiGroups ?? []);
  const resources = resourcesCover(owner.resources ?? [], requested.resources ?? []);
  const urls = urlsCover(owner.nonResourceURLs ?? [], requested.nonResourceURLs ?? []);
  const ownerNames = owner.resourceNames ?? [];
  const names = ownerNames.length === 0 || hasAll(ownerNames, requested.resourceNames ?? []);
  // A rule limited to names does not cover one that is not.
  const nameless = ownerNames.length === 0 || (requested.resourceNames ?? []).length > 0;
  return verbs && groups && resources && urls && names && nameless;
}

/** The parts of `requested` that `owner` does not cover, compacted as kube prints them; empty when covered. */
export function uncoveredRules(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const atom of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
    }
  }
  return compactRules(missing);
}

/** Merges rules that differ only in their verbs (kube's CompactRules), then sorts them by their printed form. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const merged = new Map<string, PolicyRule>();
  const out: PolicyRule[] = [];
  for (const rule of rules) {
    const simple = (rule.apiGroups ?? []).length === 1 && (rule.resources ?? []).length === 1 && !(rule.nonResourceURLs ?? []).length;
    if (!simple || (rule.resourceNames ?? []).length > 0) {
      out.push(rule);
      continue;
    }
    const key = `${rule.apiGroups![0]}\u0000${rule.resources![0]}`;
    const existing = merged.get(key);
    if (existing) {
      for (const v of rule.verbs) if (!existing.verbs.includes(v)) existing.verbs.push(v);
    } else {
      const copy: PolicyRule = { apiGroups: [...rule.apiGroups!], resources: [...rule.resources!], verbs: [...rule.verbs] };
      merged.set(key, copy);
      out.push(copy);
    }
  }
  return out.sort((a, b) => (ruleString(a) < ruleString(b) ? -1 : ruleString(a) > ruleString(b) ? 1 : 0));
}

/** Go's `%q` of a []string: `["a" "b"]`. */
export function goQuotedList(items: readonly string[]): string {
  return `[${items.map((i) => JSON.stringify(i)).join(' ')}]`;
}

/** kube's PolicyRule CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function ruleString(rule: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, items: readonly string[] | undefined) => {
    if (items && items.length > 0) parts.push(`${label}:${goQuotedList(items)}`);
  };
  add('APIGroups', rule.apiGroups);
  add('Resources', rule.resources);
  add('ResourceNames', rule.resourceNames);
  add('NonResourceURLs', rule.nonResourceURLs);
  add('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}
