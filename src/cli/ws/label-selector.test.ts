import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from './label-selector.js';

describe('--location-selector parsing', () => {
  it('turns every requirement form a LabelSelector has into one, as metav1.ParseToLabelSelector does', () => {
    expect(parseLabelSelector('region=eu, tier==gold,env in (prod, dev),x notin (y),present,!absent')).toEqual({
      matchLabels: { region: 'eu', tier: 'gold' },
      matchExpressions: [
        { key: 'absent', operator: 'DoesNotExist' },
        { key: 'env', operator: 'In', values: ['dev', 'prod'] },
        { key: 'present', operator: 'Exists' },
        { key: 'x', operator: 'NotIn', values: ['y'] },
      ],
    });
    expect(parseLabelSelector('')).toEqual({});
  });

  it("rejects what kube rejects, with kube's message, as a usage error", () => {
    expect(() => parseLabelSelector('a=b c')).toThrow(/^invalid location selector: /);
    expect(() => parseLabelSelector('-bad=x')).toThrow(/^invalid location selector: .*-bad/);
    expect(() => parseLabelSelector('zone!=a')).toThrow('invalid location selector: "!=" is not a valid label selector operator');
    expect(() => parseLabelSelector('n>1')).toThrow('invalid location selector: "gt" isn\'t supported in label selectors');
  });
});
