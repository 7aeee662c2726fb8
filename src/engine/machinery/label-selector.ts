/**
 * Label selectors, a port of k8s.io/apimachinery/pkg/labels/selector.go: the same lexer and recursive-descent
 * parser (so odd inputs fail, or succeed, exactly as on kube-apiserver) and the same error wording, which
 * kubectl prints verbatim as `Error from server (BadRequest): unable to parse requirement: …`.
 */
import { ownValue } from './own-properties.js';
import { badRequest, fieldErrors, type FieldError } from './status.js';
import { isQualifiedName, isValidLabelValue, validateLabels } from './validation.js';

/** selection.Operator values, spelled as kube spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and de-duplicated, like kube's sets.String. */
  values: string[];
}

export interface LabelSelector {
  /** ANDed; sorted by key. Empty = everything. */
  requirements: LabelRequirement[];
  /** A nil metav1.LabelSelector selects nothing. */
  nothing?: boolean;
}

export const everything = (): LabelSelector => ({ requirements: [] });

type Token =
  | 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

const literalTokens: Record<string, Token> = {
  ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', in: 'in', '<': '<', '!=': '!=', notin: 'notin', '(': '(',
};

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const VALID_OPERATORS = [...BINARY_OPERATORS, 'exists', '!'];

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string) => '=!(),><'.includes(ch);

interface Item {
  tok: Token;
  lit: string;
}

/** kube's Lexer: identifiers run until whitespace or a special symbol; symbols are matched greedily. */
function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos]!)) {
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buffer += s[pos];
        const tok = ownValue(literalTokens, buffer);
        if (tok) last = { tok, lit: buffer };
        else if (last) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
    } else {
      const start = pos;
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) pos++;
      const word = s.slice(start, pos);
      items.push({ tok: ownValue(literalTokens, word) ?? 'identifier', lit: word });
    }
  }
}

/** Value context: `in`/`notin` are plain identifiers there (`x in (in)`). */
type Context = 'key' | 'values';

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  lookahead(ctx: Context): Item {
    return this.adjust(this.items[this.position]!, ctx);
  }
  consume(ctx: Context): Item {
    return this.adjust(this.items[this.position++]!, ctx);
  }
  private adjust(item: Item, ctx: Context): Item {
    return ctx === 'values' && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'identifier', lit: item.lit } : item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead('values');
      if (tok === 'identifier' || tok === '!') {
        try {
          requirements.push(this.parseRequirement());
        } catch (err) {
          throw new Error(`unable to parse requirement: ${(err as Error).message}`);
        }
        const next = this.consume('values');
        if (next.tok === 'eos') return requirements;
        if (next.tok !== ',') throw new Error(`found '${next.lit}', expected: ',' or 'end of string'`);
        const after = this.lookahead('values');
        if (after.tok !== 'identifier' && after.tok !== '!') {
          throw new Error(`found '${after.lit}', expected: identifier after ','`);
        }
      } else if (tok === 'eos') {
        return requirements;
      } else {
        throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let operator: LabelOperator | undefined;
    let item = this.consume('values');
    if (item.tok === '!') {
      operator = '!';
      item = this.consume('values');
    }
    if (item.tok !== 'identifier') throw new Error(`found '${item.lit}', expected: identifier`);
    const key = item.lit;
    const keyErrs = isQualifiedName(key);
    // The parser validates keys with a nil field path, which Go prints as `<nil>`.
    if (keyErrs.length > 0) throw new Error(renderField(fieldErrors.invalid('<nil>', key, keyErrs.join('; '))));
    const next = this.lookahead('values').tok;
    if (next === 'eos' || next === ',') return newRequirement(key, operator ?? 'exists', []);
    if (operator === '!') return newRequirement(key, '!', []);

    const op = this.consume('key');
    const byToken: Partial<Record<Token, LabelOperator>> = {
      in: 'in', '=': '=', '==': '==', '>': 'gt', '<': 'lt', notin: 'notin', '!=': '!=',
    };
    const parsedOp = byToken[op.tok];
    if (!parsedOp) throw new Error(`found '${op.lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    const values = parsedOp === 'in' || parsedOp === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, parsedOp, [...values].sort());
  }

  private parseValues(): Set<string> {
    const open = this.consume('values');
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead('values');
    if (tok === ')') {
      this.consume('values');
      return new Set(['']);
    }
    if (tok !== 'identifier' && tok !== ',') throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    const s = new Set<string>();
    for (;;) {
      const cur = this.consume('values');
      if (cur.tok === 'identifier') {
        s.add(cur.lit);
        const after = this.lookahead('values');
        if (after.tok === ',') continue;
        if (after.tok === ')') break;
        throw new Error(`found '${after.lit}', expected: ',' or ')'`);
      } else if (cur.tok === ',') {
        // `(,a)`, `(a,)` and `(a,,b)` all contain the empty value.
        if (s.size === 0) s.add('');
        const after = this.lookahead('values').tok;
        if (after === ')') {
          s.add('');
          break;
        }
        if (after === ',') {
          this.consume('values');
          s.add('');
        }
      } else {
        throw new Error(`found '${cur.lit}', expected: ',', or identifier`);
      }
    }
    this.consume('values'); // the ')'
    return s;
  }

  private parseExactValue(): Set<string> {
    const { tok } = this.lookahead('values');
    if (tok === 'eos' || tok === ',') return new Set(['']);
    const item = this.consume('values');
    if (item.tok === 'identifier') return new Set([item.lit]);
    throw new Error(`found '${item.lit}', expected: identifier`);
  }
}

function renderField(e: FieldError): string {
  return `${e.field}: ${e.detail}`;
}

/** utilerrors.Aggregate's message: one error as-is, several (de-duplicated) as `[a, b]`. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

const INT64 = /^[+-]?\d+$/;
function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** labels.NewRequirement: validates and throws Error with kube's aggregated message. */
export function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(fieldErrors.invalid('key', key, keyErrs.join('; ')));
  const count = values.length;
  const invalidValues = (detail: string) => errs.push(fieldErrors.invalid('values', values, detail));
  if (operator === 'in' || operator === 'notin') {
    if (count === 0) invalidValues("for 'in', 'notin' operators, values set can't be empty");
  } else if (operator === '=' || operator === '==' || operator === '!=') {
    if (count !== 1) invalidValues('exact-match compatibility requires one single value');
  } else if (operator === 'exists' || operator === '!') {
    if (count !== 0) invalidValues('values set must be empty for exists and does not exist');
  } else if (operator === 'gt' || operator === 'lt') {
    if (count !== 1) invalidValues("for 'Gt', 'Lt' operators, exactly one value is required");
    values.forEach((v, i) => {
      if (parseInt64(v) === undefined) {
        errs.push(fieldErrors.invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    });
  } else {
    errs.push(fieldErrors.notSupported('operator', operator, VALID_OPERATORS));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(fieldErrors.invalid(`values[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length > 0) throw new Error(aggregate(errs.map(renderField)));
  return { key, operator, values };
}

const byKey = (a: LabelRequirement, b: LabelRequirement) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * A query's selector is matched against every object a list or watch reads, so its size multiplies the scan: kcpt
 * refuses more requirements (label and field selectors alike) or set values than any real client sends, before the
 * scan. kube bounds each value (63 characters for a label) but not their number.
 */
export const MAX_SELECTOR_REQUIREMENTS = 100;
export const MAX_SELECTOR_SET_VALUES = 100;

/** Parse `?labelSelector=`; failures are 400 BadRequest with kube's message. */
export function parseLabelSelector(text: string): LabelSelector {
  let requirements: LabelRequirement[];
  try {
    requirements = new Parser(lex(text)).parse();
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  if (requirements.length > MAX_SELECTOR_REQUIREMENTS) {
    throw badRequest(`label selector has ${requirements.length} requirements: at most ${MAX_SELECTOR_REQUIREMENTS} are allowed`);
  }
  const wide = requirements.find((r) => r.values.length > MAX_SELECTOR_SET_VALUES);
  if (wide) throw badRequest(`label selector requirement on "${wide.key}" has ${wide.values.length} values: at most ${MAX_SELECTOR_SET_VALUES} are allowed`);
  return { requirements: requirements.sort(byKey) };
}

export function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key]! : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const actual = has && r.values.length === 1 ? parseInt64(value) : undefined;
      const bound = parseInt64(r.values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

export function matches(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (selector.nothing) return false;
  return selector.requirements.every((r) => requirementMatches(r, labels));
}

export function isEverything(selector: LabelSelector): boolean {
  return !selector.nothing && selector.requirements.length === 0;
}

/** kube's Selector.String(): `a=b,c in (x,y),!d`. */
export function labelSelectorToString(selector: LabelSelector): string {
  const render = (r: LabelRequirement) => {
    const vals = [...r.values].sort().join(',');
    if (r.operator === 'exists') return r.key;
    if (r.operator === '!') return `!${r.key}`;
    if (r.operator === 'in' || r.operator === 'notin') return `${r.key} ${r.operator} (${vals})`;
    const op = r.operator === 'gt' ? '>' : r.operator === 'lt' ? '<' : r.operator;
    return `${r.key}${op}${vals}`;
  };
  return selector.requirements.map(render).join(',');
}

/** metav1.LabelSelector as found in spec.selector of Deployments, ReplicaSets, … */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

const exprOperators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: null/undefined selects nothing, `{}` selects everything. Invalid selectors
 * throw 400 BadRequest with the message kube's helper returns.
 */
export function labelSelectorFromObject(ps: LabelSelectorObject | null | undefined): LabelSelector {
  if (ps === null || ps === undefined) return { requirements: [], nothing: true };
  const requirements: LabelRequirement[] = [];
  try {
    // Go ranges over the map in random order; sorting keeps the first reported error deterministic.
    for (const k of Object.keys(ps.matchLabels ?? {}).sort()) {
      requirements.push(newRequirement(k, '=', [ps.matchLabels![k]!]));
    }
    for (const expr of ps.matchExpressions ?? []) {
      const op = ownValue(exprOperators, expr.operator);
      if (!op) throw new Error(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
      const r = newRequirement(expr.key, op, [...(expr.values ?? [])]);
      requirements.push({ ...r, values: [...new Set(r.values)].sort() });
    }
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  return { requirements: requirements.sort(byKey) };
}

/** ValidateLabelSelector (metav1 validation) for strategies: field errors under `path`. */
export function validateLabelSelector(ps: LabelSelectorObject | null | undefined, path: string): FieldError[] {
  if (!ps) return [];
  const errs = validateLabels(ps.matchLabels, `${path}.matchLabels`);
  (ps.matchExpressions ?? []).forEach((expr, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const values = expr.values ?? [];
    if (expr.operator === 'In' || expr.operator === 'NotIn') {
      if (values.length === 0) {
        errs.push(fieldErrors.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (expr.operator === 'Exists' || expr.operator === 'DoesNotExist') {
      if (values.length > 0) {
        errs.push(fieldErrors.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      errs.push(fieldErrors.invalid(`${p}.operator`, expr.operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(expr.key ?? '')) errs.push(fieldErrors.invalid(`${p}.key`, expr.key ?? '', msg));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(`${p}.values[${j}]`, v, msg));
    });
  });
  return errs;
}
