/**
 * `--location-selector` text → metav1.LabelSelector, as metav1.ParseToLabelSelector does: the engine's parser (kube's
 * grammar and messages), then `=`/`==` become matchLabels and in, notin, exists and `!` matchExpressions; `!=`, `<`
 * and `>` have no LabelSelector form and are refused as kube refuses them.
 */
import { parseLabelSelector as parseRequirements, type LabelOperator } from '../../engine/machinery/label-selector.js';
import { UsageError } from '../common/errors.js';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

const expressionOperators: Partial<Record<LabelOperator, 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'>> = {
  in: 'In',
  notin: 'NotIn',
  exists: 'Exists',
  '!': 'DoesNotExist',
};

export function parseLabelSelector(text: string): LabelSelector {
  const fail = (why: string): never => {
    throw new UsageError(`invalid location selector: ${why}`);
  };
  let requirements;
  try {
    requirements = parseRequirements(text).requirements;
  } catch (err) {
    return fail((err as Error).message);
  }
  const selector: LabelSelector = {};
  for (const { key, operator, values } of requirements) {
    if (operator === '=' || operator === '==') {
      (selector.matchLabels ??= {})[key] = values[0]!;
      continue;
    }
    const op = expressionOperators[operator];
    if (!op) return fail(operator === 'gt' || operator === 'lt' ? `"${operator}" isn't supported in label selectors` : `"${operator}" is not a valid label selector operator`);
    (selector.matchExpressions ??= []).push({ key, operator: op, ...(values.length > 0 ? { values } : {}) });
  }
  return selector;
}
