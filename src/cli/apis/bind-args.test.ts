import { describe, expect, it } from 'vitest';
import { UsageError } from '../common/errors.js';
import { checkClaimFlagCombinations, claimsAsExported, claimsFromFlags, parseExportReference, parseTimeout } from './bind-args.js';

const none = { acceptAll: false, rejectAll: false };

describe('bind arguments', () => {
  it('splits <path>:<export> at the last colon', () => {
    expect(parseExportReference('root:provider:widgets')).toEqual({ path: 'root:provider', name: 'widgets' });
    expect(parseExportReference('2x8k1q0v9m3fgh7a:widgets')).toEqual({ path: '2x8k1q0v9m3fgh7a', name: 'widgets' });
  });

  it('gives kcp’s messages for a missing or not fully qualified reference (usage errors)', () => {
    expect(() => parseExportReference(undefined)).toThrow('`root:ws:apiexport_object` reference to bind is required as an argument');
    for (const bad of ['widgets', ':root:widgets', 'Root:widgets', 'root::widgets']) {
      expect(() => parseExportReference(bad)).toThrow(
        'fully qualified reference to workspace where APIExport exists is required. The format is `<logical-cluster-name>:<apiexport>` or `<full>:<path>:<to>:<apiexport>`',
      );
    }
    expect(() => parseExportReference('widgets')).toThrow(UsageError);
  });

  it('parses claims: comma lists and repeats, core = the empty group', () => {
    expect(claimsFromFlags({ ...none, accept: ['secrets.core,configmaps.core'], reject: ['widgets.demo.kcpt.dev'] })).toEqual([
      { group: '', resource: 'secrets', state: 'Accepted' },
      { group: '', resource: 'configmaps', state: 'Accepted' },
      { group: 'demo.kcpt.dev', resource: 'widgets', state: 'Rejected' },
    ]);
    expect(() => claimsFromFlags({ ...none, accept: ['secrets', 'configmaps.core', 'leases'] })).toThrow(
      'invalid accepted permission claims: [invalid permission claim "secrets" invalid permission claim "leases"]',
    );
    expect(() => claimsFromFlags({ ...none, reject: ['x'] })).toThrow('invalid rejected permission claims: [invalid permission claim "x"]');
    expect(() => claimsFromFlags({ ...none, accept: ['secrets.core'], reject: ['secrets.core'] })).toThrow(
      'accepted permission claim "secrets.core" conflicts with rejected permission claim "secrets.core"',
    );
  });

  it('records each claim exactly as the export makes it: its verbs, identity and default selector, never *', () => {
    const exported = [
      { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'] },
      { group: '', resource: 'secrets', verbs: ['get'], defaultSelector: { matchLabels: { app: 'x' } } },
      { group: 'demo.kcpt.dev', resource: 'widgets', identityHash: 'abc', verbs: ['*'] },
    ];
    expect(claimsAsExported(exported, [{ group: '', resource: 'configmaps', state: 'Accepted' }, { group: 'demo.kcpt.dev', resource: 'widgets', state: 'Rejected' }], 'e')).toEqual([
      { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch'], selector: { matchAll: true }, state: 'Accepted' },
      { group: 'demo.kcpt.dev', resource: 'widgets', identityHash: 'abc', verbs: ['*'], selector: { matchAll: true }, state: 'Rejected' },
    ]);
    expect(claimsAsExported(exported, { all: 'Accepted' }, 'e').map((c) => [c.resource, c.verbs, c.selector])).toEqual([
      ['configmaps', ['get', 'list', 'watch'], { matchAll: true }],
      ['secrets', ['get'], { matchLabels: { app: 'x' } }],
      ['widgets', ['*'], { matchAll: true }],
    ]);
    expect(() => claimsAsExported(exported, [{ group: '', resource: 'leases', state: 'Accepted' }], 'e')).toThrow(
      'APIExport "e" claims no leases.core (its claims: configmaps.core, secrets.core, widgets.demo.kcpt.dev)',
    );
    expect(() => claimsAsExported([], [{ group: '', resource: 'leases', state: 'Rejected' }], 'e')).toThrow('APIExport "e" claims no leases.core (its claims: none)');
  });

  it('refuses the claim flag combinations kcp refuses, in kcp’s order', () => {
    const cases: [Parameters<typeof checkClaimFlagCombinations>[0], string][] = [
      [{ acceptAll: true, rejectAll: true, accept: ['a.b'] }, 'cannot use both --accept-all-permission-claims and --reject-all-permission-claims'],
      [{ acceptAll: true, rejectAll: false, accept: ['a.b'] }, 'cannot use --accept-all-permission-claims with --accept-permission-claim'],
      [{ acceptAll: true, rejectAll: false, reject: ['a.b'] }, 'cannot use --accept-all-permission-claims together with --reject-permission-claim'],
      [{ acceptAll: false, rejectAll: true, reject: ['a.b'] }, 'cannot use --reject-all-permission-claims with --reject-permission-claim'],
      [{ acceptAll: false, rejectAll: true, accept: ['a.b'] }, 'cannot use --reject-all-permission-claims together with --accept-permission-claim'],
    ];
    for (const [flags, message] of cases) expect(() => checkClaimFlagCombinations(flags), message).toThrow(message);
    expect(() => checkClaimFlagCombinations({ acceptAll: true, rejectAll: false })).not.toThrow();
  });

  it('--timeout: 30s by default, durations otherwise, a usage error for anything else', () => {
    expect(parseTimeout(undefined)).toBe(30_000);
    expect(parseTimeout('2m')).toBe(120_000);
    expect(parseTimeout('500ms')).toBe(500);
    expect(() => parseTimeout('soon')).toThrow(UsageError);
  });
});
