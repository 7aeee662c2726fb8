import { describe, expect, it } from 'vitest';
import { FIELD_MANAGER_MAX_LENGTH, parseDeleteOptions, writeFieldManager } from './query.js';

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

describe('writeFieldManager: the manager named by the User-Agent', () => {
  // kube's rule, character by character: the agent up to its first `/`, printable characters only, at most 128 bytes.
  const reference = (agent: string) => {
    let out = '';
    for (const ch of agent.split('/')[0]!) {
      if (/[\p{C}\p{Z}]/u.test(ch) && ch !== ' ') continue;
      if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_LENGTH) break;
      out += ch;
    }
    return out;
  };
  const agents = [
    'kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9',
    'Go-http-client/2.0',
    'no slash at all',
    '',
    '/starts with a slash',
    'tab\there/1',
    'del\x7fhere/1',
    'nul\x00/1',
    'unit\x1fsep/1',
    'tilde~ and space/1',
    'c1\x80control/1',
    'écrit/1',
    'zero\u200bwidth/1',
    'nbsp\u00a0space/1',
    'emoji 🚀/1',
    'a'.repeat(128),
    'a'.repeat(129),
    `${'a'.repeat(127)}é`,
    `${'a'.repeat(126)}é/1`,
    `${'a'.repeat(200)}/1`,
  ];

  it('is the printable prefix of the agent, cut at 128 bytes, whatever characters it holds', () => {
    for (const agent of agents) {
      expect(writeFieldManager(new URLSearchParams(), agent, 'CreateOptions'), JSON.stringify(agent)).toBe(reference(agent));
    }
    expect(writeFieldManager(new URLSearchParams(), 'kubectl/v1.32.0', 'CreateOptions')).toBe('kubectl');
    expect(writeFieldManager(new URLSearchParams(), undefined, 'CreateOptions')).toBe('');
    expect(writeFieldManager(new URLSearchParams('fieldManager=mine'), 'kubectl/v1.32.0', 'CreateOptions')).toBe('mine');
  });
});
