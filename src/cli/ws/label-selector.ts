/**
 * A label selector string (`a=b,c!=d,e in (f,g),h notin (i),j,!k`) → metav1.LabelSelector, as
 * metav1.ParseToLabelSelector does for `--location-selector`.
 */
import { UsageError } from '../common/errors.js';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

const keyRe = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const valueRe = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** Splits on commas outside parentheses. */
function requirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

export function parseLabelSelector(text: string): LabelSelector {
  const selector: LabelSelector = {};
  if (text.trim() === '') return selector;
  const fail = (why: string): never => {
    throw new UsageError(`invalid location selector: ${why}`);
  };
  const checkKey = (key: string) => (keyRe.test(key) ? key : fail(`invalid label key "${key}"`));
  const checkValue = (value: string) => (valueRe.test(value) ? value : fail(`invalid label value: "${value}"`));
  for (const req of requirements(text)) {
    let m: RegExpExecArray | null;
    if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(req))) {
      const values = m[3]!.split(',').map((v) => checkValue(v.trim()));
      (selector.matchExpressions ??= []).push({ key: checkKey(m[1]!), operator: m[2] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = /^([^=!\s]+)\s*!=\s*(\S*)$/.exec(req))) {
      (selector.matchExpressions ??= []).push({ key: checkKey(m[1]!), operator: 'NotIn', values: [checkValue(m[2]!)] });
    } else if ((m = /^([^=!\s]+)\s*==?\s*(\S*)$/.exec(req))) {
      (selector.matchLabels ??= {})[checkKey(m[1]!)] = checkValue(m[2]!);
    } else if ((m = /^!\s*(\S+)$/.exec(req))) {
      (selector.matchExpressions ??= []).push({ key: checkKey(m[1]!), operator: 'DoesNotExist' });
    } else if ((m = /^(\S+)$/.exec(req))) {
      (selector.matchExpressions ??= []).push({ key: checkKey(m[1]!), operator: 'Exists' });
    } else {
      fail(`unable to parse requirement "${req}"`);
    }
  }
  return selector;
}
