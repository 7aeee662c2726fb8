import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nestingTooDeep } from './nesting-depth.js';
import { MAX_YAML_ALIAS_EXPANSION, MAX_YAML_NESTING_DEPTH, readRequestYaml, YamlBodyError } from './request-yaml.js';

const lastWins = (text: string) => readRequestYaml(text, { duplicateKeys: 'last-wins' });
const refused = (text: string, duplicateKeys: 'last-wins' | 'refuse' = 'last-wins'): YamlBodyError => {
  try {
    readRequestYaml(text, { duplicateKeys });
  } catch (err) {
    expect(err).toBeInstanceOf(YamlBodyError);
    return err as YamlBodyError;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
};

describe('readRequestYaml: documents', () => {
  it('reads block and flow styles of a Kubernetes object', () => {
    const block = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {a: b}\ndata:\n  script: |\n    echo hi\n  folded: >\n    one\n    two\n';
    expect(lastWins(block)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' } }, data: { script: 'echo hi\n', folded: 'one two\n' } });
    expect(lastWins('{apiVersion: v1, items: [[a, 1], {k: [true, ~]}], "q": \'it\'\'s\'}')).toEqual({ apiVersion: 'v1', items: [['a', 1], { k: [true, null] }], q: "it's" });
    expect(lastWins('- a: 1\n  b: [x]\n- c')).toEqual([{ a: 1, b: ['x'] }, 'c']);
  });

  it('one document: a leading --- or a trailing ... is fine, a second document is refused, nothing at all is null', () => {
    expect(lastWins('---\na: 1\n...\n')).toEqual({ a: 1 });
    expect(refused('a: 1\n---\nb: 2').message).toBe('it holds more than one document (separated by ---); send one object per request');
    expect(refused('a: 1\n---\n').message).toMatch(/more than one document/);
    for (const empty of ['', '   \n', '# only a comment\n', '--- \n...']) expect(lastWins(empty)).toBeNull();
  });

  it('says what is wrong and where', () => {
    expect(refused('apiVersion: v1\nmetadata:\n  name: [x\n').message).toMatch(/^unexpected end of the stream within a flow collection at line 4, column 1$/);
    expect(refused('a: b: c').message).toBe('bad indentation of a mapping entry at line 1, column 5');
    expect(refused('a:\n\t- x').message).toBe('tab characters must not be used in indentation at line 2, column 1');
    expect(refused('a: *nowhere').message).toBe('unidentified alias "nowhere" at line 1, column 12');
  });

  it('a __proto__ key is an own property, not the object’s prototype', () => {
    const value = lastWins('__proto__: {polluted: yes}\nb: 1') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'b']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('readRequestYaml: scalars resolve as YAML 1.2 core, as the yaml library read them', () => {
  it.each([
    ['yes', 'yes'], ['on', 'on'], ['off', 'off'], ['no', 'no'], ['y', 'y'],
    ['true', true], ['True', true], ['FALSE', false], ['tRue', 'tRue'],
    ['0x1f', 31], ['0o17', 15], ['017', 17], ['0b101', '0b101'], ['-0x1f', '-0x1f'], ['+1', 1], ['1_000', '1_000'],
    ['1e3', 1000], ['1E3', 1000], ['1.5', 1.5], ['+.5', 0.5], ['5.', 5], ['.inf', Infinity], ['-.Inf', -Infinity], ['.NaN', NaN],
    ['~', null], ['null', null], ['Null', null], ['NULL', null], ['', null],
    ['2001-12-14t21:59:43.10-05:00', '2001-12-14t21:59:43.10-05:00'], ['2002-12-14', '2002-12-14'], ['0:30:00', '0:30:00'],
    ['"quoted"', 'quoted'], ["'single'", 'single'], ['"0x1f"', '0x1f'], ["'true'", 'true'], ['"\\x41\\u00e9"', 'Aé'], ['"~"', '~'],
  ])('%s', (text, expected) => {
    expect((lastWins(`v: ${text}`) as { v: unknown }).v).toEqual(expected);
  });

  it('explicit tags: !!str and !!int as written; !!binary stays its base64 text; !!timestamp is its instant; unknown tags are read as if absent', () => {
    expect(lastWins('a: !!str 123\nb: !!int "5"\nc: !!float 3\nd: !!bool yes\ne: !!null ""\nf: !!str')).toEqual({ a: '123', b: 5, c: 3, d: true, e: null, f: '' });
    expect(lastWins('binaryData:\n  k: !!binary |\n    aGVs\n    bG8=\n  j: !!binary aGk=')).toEqual({ binaryData: { k: 'aGVsbG8=', j: 'aGk=' } });
    expect(lastWins('t: !!timestamp 2001-12-14t21:59:43.10-05:00\nd: !!timestamp 2002-12-14')).toEqual({ t: '2001-12-15T02:59:43.100Z', d: '2002-12-14T00:00:00.000Z' });
    expect(lastWins('a: !local 5\nb: !local {k: 1}\nc: !local [1]\nd: !!set {x}\ne: !<tag:example.com,2000:x> text\nf: !local')).toEqual({ a: '5', b: { k: 1 }, c: [1], d: { x: null }, e: 'text', f: '' });
    expect(refused('k: !!binary not*base64').message).toMatch(/^cannot resolve a node with !<tag:yaml.org,2002:binary> explicit tag at line 1/);
    expect(refused('k: !!int abc').message).toMatch(/^cannot resolve a node with !<tag:yaml.org,2002:int> explicit tag/);
  });

  it('every plain scalar made of number-, bool- and null-like pieces reads as the yaml library read it, in block and flow context', () => {
    const atoms = ['', '0', '1', '9', '-', '+', '.', 'e', 'E', 'x', 'o', 'b', '_', 'inf', 'Inf', 'nan', 'NaN', 'true', 'True', 'null', '~', 'yes', '0x', '0o', '07', 'f', ' '];
    const scalars = new Set<string>();
    for (const a of atoms) for (const b of atoms) for (const c of ['', '1', 'e', '.']) scalars.add(`${a}${b}${c}`.trim());
    for (const x of scalars) if (x === '' || /^-( |$)/.test(x)) scalars.delete(x); // not a scalar in a block list
    // One document per context holds them all (the yaml library takes ~0.5 ms a document); compared item by item.
    const list = [...scalars];
    const differ: string[] = [];
    for (const [name, text] of [['block', list.map((x) => `- ${x}`).join('\n')], ['flow', `[${list.join(', ')}]`]]) {
      const then = parse(text, { uniqueKeys: false }) as unknown[];
      const now = lastWins(text) as unknown[];
      expect(now.length, name).toBe(list.length);
      list.forEach((x, i) => {
        if (JSON.stringify(then[i]) !== JSON.stringify(now[i])) differ.push(`${name} ${x}: ${JSON.stringify(then[i])} then, ${JSON.stringify(now[i])} now`);
      });
    }
    expect(scalars.size).toBeGreaterThan(2000);
    expect(differ).toEqual([]);
  });

  it('a null key is the key "null" (the yaml library made it ""; kube refuses it): the one way they part', () => {
    expect(lastWins('~: a\n[null: b]: c')).toEqual({ null: 'a', '[object Object]': 'c' });
  });
});

describe('readRequestYaml: duplicate keys', () => {
  const text = 'metadata:\n  name: x\ndata:\n  a: "1"\n  b: "2"\n  a: "3"\n';

  it('last-wins reads the last one; refuse names the line and column of the repeat', () => {
    expect(lastWins(text)).toEqual({ metadata: { name: 'x' }, data: { a: '3', b: '2' } });
    const err = refused(text, 'refuse');
    expect([err.message, err.duplicateKey]).toEqual(['Map keys must be unique at line 6, column 3', true]);
    expect(refused('x: {a: 1, b: 2, a: 3}', 'refuse').message).toBe('Map keys must be unique at line 1, column 17');
    expect(refused('a: [1', 'refuse').duplicateKey).toBe(false);
  });
});

describe('readRequestYaml: nesting depth', () => {
  // n nested collections each.
  const seq = (n: number) => `${'- '.repeat(n)}x`;
  const flow = (n: number) => `a: ${'['.repeat(n - 1)}x${']'.repeat(n - 1)}`;
  const flowMaps = (n: number) => `${'{a: '.repeat(n)}x${'}'.repeat(n)}`;
  const indented = (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1';
  const keys = (n: number) => `${'? '.repeat(n)}x`;
  const tooDeep = `exceeded max depth of ${MAX_YAML_NESTING_DEPTH} nested collections`;

  it(`accepts ${MAX_YAML_NESTING_DEPTH} nested collections of every shape and refuses past ${MAX_YAML_NESTING_DEPTH + 1}`, () => {
    for (const shape of [seq, flow, flowMaps, indented, keys]) {
      expect(() => lastWins(shape(MAX_YAML_NESTING_DEPTH)), shape.name).not.toThrow();
      expect(refused(shape(MAX_YAML_NESTING_DEPTH + 2)).message, shape.name).toBe(tooDeep);
    }
    expect(lastWins('data:\n  script: |\n    - - - - [[[[ {{{{\n')).toEqual({ data: { script: '- - - - [[[[ {{{{\n' } });
  });

  it('1,000 and 100,000 levels are refused at the bound, every shape, twice (V8 compiles a regular expression again on its second use)', () => {
    for (const n of [1_000, 100_000]) {
      for (const shape of [seq, flow, flowMaps, keys]) {
        for (let i = 0; i < 2; i++) expect(refused(shape(n)).message, `${shape.name} ${n}`).toBe(tooDeep);
      }
    }
    expect(refused(indented(1_000)).message).toBe(tooDeep);
    expect(refused('['.repeat(3 * 1024 * 1024)).message).toBe(tooDeep);
  });
});

describe('readRequestYaml: aliases', () => {
  const laughs = () => {
    const lines = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 10; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    return lines.join('\n');
  };

  it('a "billion laughs" document is refused while it is read, before anything expands it', () => {
    expect(refused(laughs()).message).toMatch(/^document contains excessive aliasing: \d+ of its \d+ nodes come from aliases \(\*name\); write the repeated parts out$/);
    // The one the e2e suite has sent since the yaml library's days: ~3,300 nodes, 99.6 % of them from aliases.
    expect(refused('a: &a ["x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n').message).toMatch(/excessive aliasing/);
  });

  it('kube\'s ratio: past 1,000 nodes, at most 99 % of them may come from aliases', () => {
    const ten = 'a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]';
    // Counted as the document is read, as kube's decoder counts: nodes that come before the aliases dilute them.
    const fan = (aliases: number, padding: number) => `${ten}\nc: [${Array(padding).fill('p').join(', ')}]\nb: [${Array(aliases).fill('*a').join(', ')}]`;
    expect(() => lastWins(fan(90, 0))).not.toThrow(); // 990 of ~1,010 nodes from aliases: 98 %
    const [, aliased, all] = /excessive aliasing: (\d+) of its (\d+) nodes/.exec(refused(fan(200, 0)).message)!.map(Number);
    expect(all).toBeGreaterThan(1000);
    expect(aliased / all).toBeGreaterThan(0.99);
    expect(aliased / all).toBeLessThan(0.991); // refused at the first alias past the ratio
    expect(() => lastWins(fan(200, 30))).not.toThrow(); // 2,200 of ~2,250 at most: 97.8 %
    expect(() => lastWins(`${ten}\nb: [${Array(80).fill('*a').join(', ')}]`)).not.toThrow(); // 880 of ~900: under 1,000 nodes, anything goes
  });

  it('long strings count by their length: three aliases of a 1 MiB string add more than a body may hold, two do not', () => {
    const big = 'x'.repeat(1024 * 1024);
    expect(refused(`a: &s ${big}\nb: [*s, *s, *s]`).message).toBe(
      `its aliases (*name) expand it by more than ${MAX_YAML_ALIAS_EXPANSION} nodes and characters, more than a body may hold; write the repeated parts out`,
    );
    expect((lastWins(`a: &s ${big}\nb: [*s, *s]`) as { b: string[] }).b).toEqual([big, big]);
  });

  it('ordinary anchors work, and each alias is a copy of its own: editing one place leaves the others alone', () => {
    const value = lastWins('env: &env\n  - {name: A, value: "1"}\n  - {name: B, value: "2"}\nfirst: {env: *env}\nsecond:\n  env: *env\nname: &n web\nalso: *n\n') as Record<string, any>;
    expect(value.first.env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '2' }]);
    expect(value.second.env).toEqual(value.env);
    expect(value.also).toBe('web');
    value.first.env[0].value = 'changed';
    expect([value.env[0].value, value.second.env[0].value]).toEqual(['1', '1']);
    expect(nestingTooDeep(value)).toBeUndefined();
    const proto = lastWins('a: &a {__proto__: {x: 1}}\nb: *a') as Record<string, any>;
    expect(Object.keys(proto.b)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(proto.b)).toBe(Object.prototype);
  });

  it('aliases nested through aliases count what they expand to', () => {
    const quadrupling = (levels: number) => {
      const lines = ['l0: &l0 [x, y]'];
      for (let i = 1; i <= levels; i++) lines.push(`l${i}: &l${i} [*l${i - 1}, *l${i - 1}, *l${i - 1}, *l${i - 1}]`);
      return lines.join('\n');
    };
    expect(() => lastWins(quadrupling(3))).not.toThrow(); // ~250 nodes
    expect(refused(quadrupling(12)).message).toMatch(/excessive aliasing/); // 4^12 × 3 ≈ 50 million
  });
});
