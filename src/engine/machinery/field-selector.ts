/**
 * Field selectors, after k8s.io/apimachinery/pkg/fields/selector.go (1.32): comma-separated `field=value`,
 * `field==value`, `field!=value` terms, with `\,` `\=` `\\` escapes in values. Parsing and field-label support are
 * separate steps, as in kube: parse errors come from decoding the query, unsupported labels from the per-kind
 * field label conversion. Both are 400 BadRequest.
 */
import type { KubeObject } from './object-types.js';
import { MAX_SELECTOR_REQUIREMENTS } from './label-selector.js';
import { badRequest } from './status.js';

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  field: string;
  operator: FieldOperator;
  /** Unescaped. */
  value: string;
}

export interface FieldSelector {
  /** ANDed, in kube's order (terms sorted as raw text). Empty = everything. */
  requirements: FieldRequirement[];
}

/** Backslash-escaped commas do not split terms; the backslash is kept for unescaping later. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator occurrence splits; `!=` and `==` are tried before `=` at each position. */
function splitTerm(term: string): { lhs: string; op: FieldOperator; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** fields.UnescapeValue. Go prints the offending rune with %v, i.e. as its code point number. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.EscapeValue: for building selectors (e.g. in tests and controllers). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Parse `?fieldSelector=`; syntax errors are 400 BadRequest with kube's message. */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort();
  if (parts.length > MAX_SELECTOR_REQUIREMENTS) {
    throw badRequest(`field selector has ${parts.length} requirements: at most ${MAX_SELECTOR_REQUIREMENTS} are allowed`);
  }
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    requirements.push({ field: split.lhs, operator: split.op, value: unescapeFieldValue(split.rhs) });
  }
  return { requirements };
}

export type FieldExtractor = (obj: KubeObject) => string | undefined;

export interface CompiledFieldSelector {
  requirements: FieldRequirement[];
  empty: boolean;
  matches(obj: KubeObject): boolean;
  /** The value a `field=value` term pins, for index-friendly lookups (metadata.name, metadata.namespace). */
  requiresExactMatch(field: string): string | undefined;
}

export interface CompileOptions {
  /**
   * Built-in kinds without their own field label conversion (ConfigMap, most non-core kinds) use kube's
   * DefaultMetaV1FieldSelectorConversion, whose wording differs; CRs and kinds with extra fields use
   * `field label not supported: <label>` (the default here).
   */
  message?: 'field-label' | 'default-conversion';
  /** False for cluster-scoped custom resources, whose field label conversion refuses metadata.namespace. */
  namespaceField?: boolean;
}

const metadataExtractors: Record<string, FieldExtractor> = {
  'metadata.name': (obj) => obj.metadata?.name,
  'metadata.namespace': (obj) => obj.metadata?.namespace,
};

/**
 * Bind a parsed selector to a kind's selectable fields. metadata.name and metadata.namespace are always
 * supported; a missing field reads as the empty string, as kube's fields.Set does.
 */
export function compileFieldSelector(
  selector: FieldSelector,
  supported: Record<string, FieldExtractor> = {},
  options: CompileOptions = {},
): CompiledFieldSelector {
  const extractors: Record<string, FieldExtractor> = { ...supported, ...metadataExtractors };
  if (options.namespaceField === false) delete extractors['metadata.namespace'];
  const bound = selector.requirements.map((r) => {
    const extract = Object.prototype.hasOwnProperty.call(extractors, r.field) ? extractors[r.field] : undefined;
    if (!extract) {
      throw badRequest(
        options.message === 'default-conversion'
          ? `"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`
          : `field label not supported: ${r.field}`,
      );
    }
    return { ...r, extract };
  });
  return {
    requirements: selector.requirements,
    empty: bound.length === 0,
    matches(obj) {
      return bound.every((r) => ((r.extract(obj) ?? '') === r.value) === (r.operator !== '!='));
    },
    requiresExactMatch(field) {
      return bound.find((r) => r.field === field && r.operator !== '!=')?.value;
    },
  };
}

/** kube's Selector.String(), values re-escaped. */
export function fieldSelectorToString(selector: FieldSelector): string {
  return selector.requirements
    .map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`)
    .join(',');
}
