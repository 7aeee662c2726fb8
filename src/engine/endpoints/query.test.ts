import { describe, expect, it } from 'vitest';
import { parseDeleteOptions } from './query.js';

const parse = (query: string, body?: object) =>
  parseDeleteOptions(new URLSearchParams(query), 'application/json', body ? Buffer.from(JSON.stringify(body)) : undefined);

describe('parseDeleteOptions: propagation', () => {
  it('reads propagationPolicy and the legacy orphanDependents from the body or the query', () => {
    expect(parse('', { propagationPolicy: 'Foreground' })).toEqual({ propagationPolicy: 'Foreground' });
    expect(parse('orphanDependents=true')).toEqual({ orphanDependents: true });
    expect(parse('', { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false })).toEqual({ orphanDependents: false });
  });

  it('refuses both at once, as kube does', () => {
    expect(() => parse('', { orphanDependents: true, propagationPolicy: 'Background' })).toThrow(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    );
  });
});
