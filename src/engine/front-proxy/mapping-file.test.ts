import { describe, expect, it } from 'vitest';
import { matchMapping, MappingFileError, parseMappings } from './mapping-file.js';

describe('front-proxy mapping file', () => {
  it('reads kcp entries: /clusters turns the resolver on, the longest prefix wins', () => {
    const config = parseMappings(
      [
        { path: '/', backend: 'https://a:6443' },
        { path: '/services/', backend: 'https://b:6443/', proxy_client_cert: 'x.crt' },
        { path: '/clusters/', backend: 'https://ignored:1' },
      ],
      'm.yaml',
    );
    expect(config.resolveClusters).toBe(true);
    expect(config.ignoredFields).toEqual(['proxy_client_cert']);
    expect(matchMapping(config.mappings, '/services/apiexport/x')?.backend).toBe('https://b:6443');
    expect(matchMapping(config.mappings, '/services')?.backend).toBe('https://b:6443');
    expect(matchMapping(config.mappings, '/servicesx')?.backend).toBe('https://a:6443');
  });

  it('refuses entries it cannot use, saying which', () => {
    expect(() => parseMappings({ path: '/' }, 'm.yaml')).toThrow(MappingFileError);
    expect(() => parseMappings([{ path: 'x', backend: 'https://a' }], 'm.yaml')).toThrow('entry 1: path must be a string starting with /');
    expect(() => parseMappings([{ path: '/a', backend: 'nope' }], 'm.yaml')).toThrow('is not a URL');
    expect(() => parseMappings([{ path: '/a', backend: 'https://a', bogus: 1 }], 'm.yaml')).toThrow('unknown field "bogus"');
  });
});
