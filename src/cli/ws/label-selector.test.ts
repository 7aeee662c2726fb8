import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from './label-selector.js';

describe('--location-selector parsing', () => {
  it('turns every requirement form into a LabelSelector', () => {
    expect(parseLabelSelector('region=eu, tier==gold,zone!=a,env in (dev, prod),x notin (y),present,!absent')).toEqual({
      matchLabels: { region: 'eu', tier: 'gold' },
      matchExpressions: [
        { key: 'zone', operator: 'NotIn', values: ['a'] },
        { key: 'env', operator: 'In', values: ['dev', 'prod'] },
        { key: 'x', operator: 'NotIn', values: ['y'] },
        { key: 'present', operator: 'Exists' },
        { key: 'absent', operator: 'DoesNotExist' },
      ],
    });
  });

  it('rejects what kube rejects, as a usage error', () => {
    expect(() => parseLabelSelector('a=b c')).toThrow(/^invalid location selector/);
    expect(() => parseLabelSelector('-bad=x')).toThrow('invalid location selector: invalid label key "-bad"');
  });
});
