import { RE2JS } from 're2js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateCRDSpec, type CRDLike } from './crd-validation.js';
import { compileRE2, RE2_PROGRAM_LIMIT, re2ProgramSize, withRE2Budget } from './re2-bounded.js';

const instructions = (pattern: string) => (RE2JS.compile(pattern) as unknown as { re2Input: { prog: { numInst(): number } } }).re2Input.prog.numInst();

// `[a-z]{0,1000}` is ~2,000 instructions; 100 of them (1.3 KB) compiled for 1.4–1.9 s before the bound.
const huge = '[a-z]{0,1000}'.repeat(100);

afterEach(() => vi.restoreAllMocks());

describe('re2ProgramSize', () => {
  it('bounds the program re2js compiles (within its two fixed instructions), and is close for what matters', () => {
    const patterns = [
      'a', 'abc', '[a-z]', '(a)', '(?:a)', '(?i)abc', '(?P<n>ab){3}', '(?<n>ab)+', 'a*', 'a+?b*?', 'a?', 'a{3}', 'a{0,3}', 'a{2,}', 'a{0,}',
      'a|b', '(a|bc){10}', '[]a]{5}', '[^]a]{5}', '[[:alpha:]x]{7}', '\\pL{1000}', '\\p{Greek}{20}', '\\x{41}{4}', '\\Qa.b{1000}\\E{3}', '^$',
      '((a{10}){10}){10}', '([a-z]{1,63}\\.){0,10}', '[a-z]{0,1000}', 'x{1000}x{1000}x{1000}',
      '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$',
      '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
    ];
    for (const p of patterns) {
      const n = instructions(p);
      expect([p, re2ProgramSize(p) + 2 >= n]).toEqual([p, true]);
      if (n > 100) expect([p, re2ProgramSize(p) <= 2 * n]).toEqual([p, true]);
    }
  });

  it('follows nested repeats without expanding them', () => {
    expect(re2ProgramSize('((a{1000}){1000}){1000}')).toBeGreaterThan(1e9);
    expect(re2ProgramSize(huge)).toBe(200_000);
  });
});

describe('compileRE2', () => {
  it("refuses a pattern past kcpt's bound with Go's words, before compiling it", () => {
    const compile = vi.spyOn(RE2JS, 'compile');
    expect(() => compileRE2(huge)).toThrow(/^error parsing regexp: expression too large$/);
    expect(compile).not.toHaveBeenCalled();
    expect(compileRE2('[a-z]{0,1000}').test('abc')).toBe(true);
  });

  it('bounds the patterns of one withRE2Budget call together', () => {
    const each = '[a-z]{0,1000}';
    const fits = Math.floor(RE2_PROGRAM_LIMIT / re2ProgramSize(each));
    const compile = vi.spyOn(RE2JS, 'compile');
    withRE2Budget(() => {
      for (let i = 0; i < fits; i++) compileRE2(each);
      expect(() => compileRE2(each)).toThrow(/^error parsing regexp: expression too large: the regular expressions of one request may compile to 20000 instructions together$/);
    });
    expect(compile).toHaveBeenCalledTimes(fits);
    // Outside, and in the next call, the budget is whole again.
    expect(() => withRE2Budget(() => compileRE2(each))).not.toThrow();
  });
});

describe("a CRD's patterns (the CRD author as attacker)", () => {
  const crd = (properties: Record<string, unknown>): CRDLike => ({
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
    },
  });
  // One version: kube lifts its schema to spec.validation.
  const P = 'spec.validation.openAPIV3Schema.properties[spec]';
  const render = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);

  it('a pattern past the bound is refused, never compiled', () => {
    const compile = vi.spyOn(RE2JS, 'compile');
    expect(render(validateCRDSpec(crd({ a: { type: 'string', pattern: huge } })))).toEqual([
      `${P}.properties[a].pattern: Invalid value: "${huge}": must be a valid regular expression, but isn't: error parsing regexp: expression too large`,
    ]);
    expect(compile).not.toHaveBeenCalled();
  });

  it('so are patterns past the bound together, each within it', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 12; i++) properties[`p${i}`] = { type: 'string', pattern: `^[a-z]{0,1000}${i}$` };
    const errs = render(validateCRDSpec(crd(properties)));
    // Nine fit (~2,000 instructions each); the last three are refused.
    expect(errs.map((e) => e.slice(0, e.indexOf(':')))).toEqual(['p10', 'p11', 'p9'].map((p) => `${P}.properties[${p}].pattern`));
    for (const e of errs) expect(e).toMatch(/: error parsing regexp: expression too large: the regular expressions of one request may compile to 20000 instructions together$/);
    // Legit CRDs are far below it: the same count of DNS-subdomain patterns passes.
    for (let i = 0; i < 12; i++) properties[`p${i}`] = { type: 'string', pattern: `^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*${i}$` };
    expect(render(validateCRDSpec(crd(properties)))).toEqual([]);
  });
});
