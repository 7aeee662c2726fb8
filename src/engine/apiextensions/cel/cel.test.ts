import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../types.js';
import { compileSchemaRules } from './compile.js';
import { validateRules } from './validate.js';
import { ChangeDetector } from '../../machinery/canonical-json.js';
import { UNSUPPORTED_FUNCTIONS } from './library.js';
import { estimateCost, type Ast } from './cost.js';

const rule = (r: string, extra: Record<string, unknown> = {}) => [{ rule: r, ...extra }];

function schemaWith(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec } };
}

function errorsOf(schema: JSONSchemaProps, obj: unknown, old?: unknown): string[] {
  const compiled = compileSchemaRules(schema);
  expect(compiled.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([]);
  return validateRules(compiled, obj, old).map((e) => `${e.field}: ${e.detail}`);
}

describe('CEL rules: compile', () => {
  it('refuses a rule naming an undeclared field with kube-shaped compilation error', () => {
    const c = compileSchemaRules(
      schemaWith({ type: 'object', properties: { min: { type: 'integer' } }, 'x-kubernetes-validations': rule('self.nope > 1') }),
      'spec.validation.openAPIV3Schema',
    );
    expect(c.errors).toHaveLength(1);
    expect(c.errors[0].field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    expect(c.errors[0].detail).toMatch(/^Invalid value: apiextensions.ValidationRule\{Rule:"self.nope > 1", .*\}: compilation failed: ERROR: <input>:1:\d+: /);
  });

  it('refuses type errors, non-bool rules, unknown functions, bad reasons and an optionalOldSelf without oldSelf', () => {
    const c = compileSchemaRules(
      schemaWith({
        type: 'object',
        properties: { n: { type: 'integer' }, s: { type: 'string', maxLength: 10 } },
        'x-kubernetes-validations': [
          { rule: 'self.n + "a" == 1' },
          { rule: 'self.n' },
          { rule: 'frobnicate(self.s)' },
          { rule: 'self.n > 0', reason: 'Bogus' },
          { rule: 'self.n > 0', optionalOldSelf: true },
          { rule: 'self.n > 0', fieldPath: '.nope' },
        ],
      }),
    );
    const lines = c.errors.map((e) => `${e.field}: ${e.detail}`);
    expect(lines[0]).toMatch(/x-kubernetes-validations\[0\]\.rule: .*compilation failed/);
    expect(lines[1]).toMatch(/x-kubernetes-validations\[1\]\.rule: .*cel expression must evaluate to a bool/);
    expect(lines[2]).toMatch(/x-kubernetes-validations\[2\]\.rule: .*compilation failed: .*frobnicate/);
    expect(lines).toContainEqual(expect.stringMatching(/x-kubernetes-validations\[3\]\.reason: Unsupported value: "Bogus"/));
    expect(lines).toContainEqual(expect.stringMatching(/x-kubernetes-validations\[4\]\.optionalOldSelf: Invalid value: true: may not be set to true for non-transition rule/));
    expect(lines).toContainEqual(expect.stringMatching(/x-kubernetes-validations\[5\]\.fieldPath: Invalid value: ".nope": fieldPath must be a valid path/));
  });

  it('refuses oldSelf under an atomic list (no identity across updates)', () => {
    const c = compileSchemaRules(
      schemaWith({ type: 'object', properties: { l: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5, 'x-kubernetes-validations': rule('self == oldSelf') } } } }),
    );
    expect(c.errors.map((e) => e.detail)).toContainEqual(expect.stringMatching(/oldSelf cannot be used on the uncorrelatable portion of the schema within openAPIV3Schema.properties\[spec\].properties\[l\]/));
  });

  it('stores, without evaluating, a rule calling a kube function kcpt lacks, and names it', () => {
    // Every kube library function kcpt knows of is evaluated now; the mechanism stays for the next one.
    UNSUPPORTED_FUNCTIONS.add('isQuantity');
    try {
      const c = compileSchemaRules(schemaWith({ type: 'object', properties: { q: { type: 'string' } }, 'x-kubernetes-validations': rule("isQuantity(self.q)") }));
      expect(c.errors).toEqual([]);
      expect(c.skipped).toEqual(['openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule (isQuantity)']);
    } finally {
      UNSUPPORTED_FUNCTIONS.delete('isQuantity');
    }
  });

  it("compiles and enforces rules calling kube's quantity, ip, cidr, semver and format libraries", () => {
    const s = schemaWith({
      type: 'object',
      properties: { q: { type: 'string', maxLength: 20 }, ip: { type: 'string', maxLength: 45 }, v: { type: 'string', maxLength: 30 } },
      'x-kubernetes-validations': [
        { rule: "isQuantity(self.q) && quantity(self.q).isLessThan(quantity('2Gi'))", message: 'q must be a quantity under 2Gi' },
        { rule: "isIP(self.ip) && cidr('10.0.0.0/8').containsIP(self.ip)", message: 'ip must be in 10.0.0.0/8' },
        { rule: "isSemver(self.v, true) && semver(self.v, true).major() >= 1", messageExpression: "'v is ' + strings.quote(self.v)" },
      ],
    });
    const c = compileSchemaRules(s);
    expect(c.errors).toEqual([]);
    expect(c.skipped).toEqual([]);
    expect(errorsOf(s, { spec: { q: '1536Mi', ip: '10.1.2.3', v: 'v1.2' } })).toEqual([]);
    expect(errorsOf(s, { spec: { q: '2049Mi', ip: '11.1.2.3', v: 'v0.9' } })).toEqual([
      'spec: Invalid value: "object": q must be a quantity under 2Gi',
      'spec: Invalid value: "object": ip must be in 10.0.0.0/8',
      'spec: Invalid value: "object": v is "v0.9"',
    ]);
  });

  it('refuses, at CRD write, a rule that misuses a typed library, with kube\'s frame', () => {
    const c = compileSchemaRules(
      schemaWith({ type: 'object', properties: { q: { type: 'string' } }, 'x-kubernetes-validations': rule("quantity(self.q) > 1 && quantity(self.q).sign() == 1") }),
    );
    expect(c.errors.map((e) => `${e.field}: ${e.detail.split('\n')[0]}`)).toEqual([
      expect.stringMatching(/^openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"quantity\(self\.q\) > 1 .*compilation failed: ERROR: <input>:1:\d+: .*(overload|>)/),
    ]);
  });
});

describe('CEL rules: static cost (the CRD author as attacker)', () => {
  const list = (extra: JSONSchemaProps = {}) => ({ type: 'array', items: { type: 'string', ...extra } }) as JSONSchemaProps;

  it('refuses a quadratic rule over unbounded lists with kube message, accepts it once bounded', () => {
    const quadratic = rule('self.l.all(a, self.l.all(b, a == b || a != b))');
    const c = compileSchemaRules(schemaWith({ type: 'object', properties: { l: list() }, 'x-kubernetes-validations': quadratic }));
    const lines = c.errors.map((e) => `${e.field}: ${e.detail}`);
    expect(lines[0]).toBe(
      'openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ' +
        '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
    expect(lines.at(-1)).toMatch(/^openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget/);
    const bounded = compileSchemaRules(
      schemaWith({ type: 'object', properties: { l: { ...list({ maxLength: 10 }), maxItems: 20 } }, 'x-kubernetes-validations': quadratic }),
    );
    expect(bounded.errors).toEqual([]);
  });

  it('multiplies a rule on list items by how many items there can be', () => {
    const perItem = { type: 'array', items: { type: 'string', 'x-kubernetes-validations': rule("self.matches('^[a-z]+$')") } } as JSONSchemaProps;
    const c = compileSchemaRules(schemaWith({ type: 'object', properties: { l: perItem } }));
    expect(c.errors[0]?.detail).toMatch(/estimated rule cost exceeds budget/);
    const ok = compileSchemaRules(schemaWith({ type: 'object', properties: { l: { ...perItem, maxItems: 100, items: { ...(perItem.items as JSONSchemaProps), maxLength: 63 } } } }));
    expect(ok.errors).toEqual([]);
  });

  it('refuses exponential nesting even over small bounded lists', () => {
    const l = { type: 'array', maxItems: 100, items: { type: 'integer' } } as JSONSchemaProps;
    const c = compileSchemaRules(
      schemaWith({ type: 'object', properties: { l }, 'x-kubernetes-validations': rule('self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d > 0))))') }),
    );
    expect(c.errors[0]?.detail).toMatch(/estimated rule cost exceeds budget by factor of/);
  });

  it('bounds iterating a list literal by the sizes of its items, not by how many there are', () => {
    // 4 x 1,000 x 1,000 comparisons: the literal's items were taken to hold 4 items each (518 ms for one object).
    const l = { type: 'array', maxItems: 1000, items: { type: 'integer' } } as JSONSchemaProps;
    const c = compileSchemaRules(schemaWith({ type: 'object', properties: { l }, 'x-kubernetes-validations': rule('[self.l, self.l, self.l, self.l].all(a, a.all(x, a.all(y, x >= 0)))') }));
    expect(c.errors[0]?.detail).toMatch(/estimated rule cost exceeds budget by factor of/);
    const small = compileSchemaRules(schemaWith({ type: 'object', properties: { l: { ...l, maxItems: 10 } }, 'x-kubernetes-validations': rule("['a', 'b'].all(p, [self.l, self.l].all(a, a.all(x, x >= 0)))") }));
    expect(small.errors).toEqual([]);
    expect(validateRules(small, { spec: { l: [1, 2] } }, undefined)).toEqual([]);
  });
});

describe('CEL rules: list and map literals are priced as cel-go builds them', () => {
  // kube's MaxCost for each (its CRD CEL compiler, apiextensions-apiserver v0.37.0); kcpt is exact or one above.
  it.each([
    ["size([1, 2]) == 2", 12, 12],
    ["size({'a': 1}) == 1", 32, 32],
    ["self.a in {'x': 1, 'y': 2}", 33, 34],
    ["{'a': self.a}.a == self.a", 35, 36],
  ] as const)('%s: kube %d', (r, _kube, kcpt) => {
    const c = compileSchemaRules(schemaWith({ type: 'object', properties: { a: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': rule(r) }));
    expect(c.errors).toEqual([]);
    const spec = c.root!.properties!.get('spec')!;
    expect(estimateCost(spec.rules[0].program.ast as Ast, spec.node, (n) => n.maxSize)).toBe(kcpt);
  });
});

describe('CEL rules: evaluation', () => {
  const spec: JSONSchemaProps = {
    type: 'object',
    properties: {
      min: { type: 'integer' },
      max: { type: 'integer' },
      name: { type: 'string', maxLength: 63 },
      tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
      labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 20 } },
      'dash-name': { type: 'string', maxLength: 10 },
    },
    'x-kubernetes-validations': [
      { rule: 'self.min <= self.max', message: 'min must not exceed max' },
      { rule: "!has(self.name) || self.name.matches('^[a-z]+$')", messageExpression: "'name ' + self.name + ' is not lowercase'" },
      { rule: 'self.tags.all(t, t.lowerAscii() == t)', fieldPath: '.tags', reason: 'FieldValueForbidden', message: 'tags must be lowercase' },
      { rule: "!has(self.dash__dash__name) || self.dash__dash__name.startsWith('x')", message: 'dash' },
      { rule: "self.labels.all(k, k.size() < 5) && self.tags.exists_one(t, t == 'a') && self.tags.map(t, t + '!').filter(t, t != 'a!').size() == self.tags.size() - 1", message: 'combo' },
    ],
  };
  const schema = schemaWith(spec);
  const good = { spec: { min: 1, max: 2, name: 'abc', tags: ['a', 'b'], labels: { k: 'v' }, 'dash-name': 'xy' } };

  it('passes a valid object and reports each failing rule as kube does', () => {
    expect(errorsOf(schema, good)).toEqual([]);
    const bad = { spec: { min: 3, max: 2, name: 'ABC', tags: ['a', 'B'], labels: { longkey: 'v' }, 'dash-name': 'y' } };
    expect(errorsOf(schema, bad)).toEqual([
      'spec: Invalid value: "object": min must not exceed max',
      'spec: Invalid value: "object": name ABC is not lowercase',
      'spec.tags: Forbidden: tags must be lowercase',
      'spec: Invalid value: "object": dash',
      'spec: Invalid value: "object": combo',
    ]);
  });

  it('reports a runtime error (missing field) as kube words it', () => {
    expect(errorsOf(schema, { spec: { max: 2, tags: ['a'], labels: {} } })).toEqual([
      'spec: Invalid value: "object": no such key: min evaluating rule: min must not exceed max',
    ]);
  });

  it('runs transition rules only where an old value exists, and ratchets unchanged values', () => {
    const immutable = schemaWith({ type: 'string', maxLength: 20, 'x-kubernetes-validations': rule('self == oldSelf', { message: 'spec is immutable' }) });
    expect(errorsOf(immutable, { spec: 'a' })).toEqual([]);
    expect(errorsOf(immutable, { spec: 'a' }, { spec: 'a' })).toEqual([]);
    expect(errorsOf(immutable, { spec: 'b' }, { spec: 'a' })).toEqual(['spec: Invalid value: "string": spec is immutable']);
    const ratchet = schemaWith({ type: 'string', maxLength: 20, 'x-kubernetes-validations': rule("self.startsWith('x')") });
    expect(errorsOf(ratchet, { spec: 'a' }, { spec: 'a' })).toEqual([]);
    expect(errorsOf(ratchet, { spec: 'b' }, { spec: 'a' })).toEqual(['spec: Invalid value: "string": failed rule: self.startsWith(\'x\')']);
  });

  it('correlates map-list items by key for transition rules', () => {
    const s = schemaWith({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          maxItems: 10,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } },
            'x-kubernetes-validations': rule('self.port == oldSelf.port', { message: 'port is immutable' }),
          },
        },
      },
    });
    const old = { spec: { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] } };
    expect(errorsOf(s, { spec: { ports: [{ name: 'b', port: 2 }, { name: 'a', port: 1 }, { name: 'c', port: 9 }] } }, old)).toEqual([]);
    expect(errorsOf(s, { spec: { ports: [{ name: 'b', port: 3 }] } }, old)).toEqual(['spec.ports[0]: Invalid value: "object": port is immutable']);
  });

  it('evaluates optionalOldSelf rules on create too', () => {
    const s = schemaWith({
      type: 'string',
      maxLength: 20,
      'x-kubernetes-validations': rule("oldSelf.hasValue() ? self == oldSelf.value() : self.startsWith('v')", { optionalOldSelf: true, message: 'm' }),
    });
    expect(errorsOf(s, { spec: 'x' })).toEqual(['spec: Invalid value: "string": m']);
    expect(errorsOf(s, { spec: 'v1' })).toEqual([]);
  });

  it('root rules see apiVersion, kind and metadata.name; errors at the root are at <nil>', () => {
    const s: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object' } }, 'x-kubernetes-validations': rule("self.metadata.name.startsWith('ok')") };
    expect(errorsOf(s, { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'ok1' }, spec: {} })).toEqual([]);
    expect(errorsOf(s, { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'no' }, spec: {} })).toEqual([
      '<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith(\'ok\')',
    ]);
  });

  it("kube's url library reads a URI as Go's net/url.ParseRequestURI does", () => {
    // Expected values are Go's own (url.ParseRequestURI, then Scheme, Host, Hostname(), Port(), EscapedPath(), Query()).
    const s = schemaWith({
      type: 'object',
      properties: {
        u: { type: 'string', maxLength: 200 },
        want: { type: 'string', maxLength: 200 },
        query: { type: 'object', maxProperties: 8, additionalProperties: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 20 } } },
      },
      'x-kubernetes-validations': [
        { rule: "[string(isURL(self.u)), url(self.u).getScheme(), url(self.u).getHost(), url(self.u).getHostname(), url(self.u).getPort(), url(self.u).getEscapedPath()].join('|') == self.want" },
        { rule: 'url(self.u).getQuery() == self.query' },
      ],
    });
    const compiled = compileSchemaRules(s);
    expect(compiled.errors).toEqual([]);
    expect(compiled.skipped).toEqual([]);
    const cases: Array<[string, string, Record<string, string[]>?]> = [
      ['HTTPS://A.example:8443/p', 'true|https|A.example:8443|A.example|8443|/p'],
      ['http://[fe80::1%25en0]:8080/a', 'true|http|[fe80::1%en0]:8080|fe80::1%en0|8080|/a'],
      ['https://user:pw@host.example/', 'true|https|host.example|host.example||/'],
      ['https://h/a b', 'true|https|h|h||/a%20b'],
      ['https://h/ä/ö', 'true|https|h|h||/%C3%A4/%C3%B6'],
      ['https://h/a%2Fb', 'true|https|h|h||/a%2Fb'],
      ['https://h/p?a=1&a=2&b=x+y&c=%41&d=%zz&e;f=1&&g', 'true|https|h|h||/p', { a: ['1', '2'], b: ['x y'], c: ['A'], g: [''] }],
      ['https://%e4%b8%ad.example/', 'true|https|中.example|中.example||/'],
      ['/abs/path?q=1', 'true|||||/abs/path', { q: ['1'] }],
    ];
    for (const [u, want, query = {}] of cases) expect(validateRules(compiled, { spec: { u, want, query } }, undefined), u).toEqual([]);
    expect(validateRules(compiled, { spec: { u: 'https://h/x?a=1', want: 'true|https|h|h||/x', query: { a: ['2'] } } }, undefined).map((e) => e.detail)).toEqual([
      'Invalid value: "object": failed rule: url(self.u).getQuery() == self.query',
    ]);
    // Not a request URI: isURL is false and url() is a runtime error, reported as kube reports one.
    const refused = validateRules(compileSchemaRules(schemaWith({ type: 'object', properties: { u: { type: 'string', maxLength: 20 } }, 'x-kubernetes-validations': [{ rule: 'isURL(self.u)' }, { rule: "url(self.u).getScheme() == 'https'" }] })), { spec: { u: 'not a url' } }, undefined);
    expect(refused.map((e) => e.detail)).toEqual([
      'Invalid value: "object": failed rule: isURL(self.u)',
      expect.stringContaining('URL parse error during conversion from string: parse "not a url": invalid URI for request'),
    ]);
  });

  it('matches is RE2 (linear): a catastrophic-backtracking pattern returns at once', () => {
    const s = schemaWith({ type: 'string', maxLength: 100, 'x-kubernetes-validations': rule("self.matches('^(a+)+$')") });
    const t0 = process.hrtime.bigint();
    expect(errorsOf(s, { spec: `${'a'.repeat(60)}!` })).toHaveLength(1);
    // Not a timing assertion: a backtracking engine would not return at all on this input within the test timeout.
    expect(process.hrtime.bigint() > t0).toBe(true);
  });

  it("a pattern the object sends is compiled within kcpt's bound, and a request's patterns within it together", () => {
    // `[a-z]{0,1000}` 100 times (1.3 KB, ~200,000 instructions) compiled for 1.4–1.9 s, each time an object sent it.
    const item = { type: 'object', properties: { s: { type: 'string', maxLength: 20 }, p: { type: 'string', maxLength: 2000 } }, 'x-kubernetes-validations': rule('self.s.matches(self.p)') } as JSONSchemaProps;
    const s = schemaWith({ type: 'object', properties: { l: { type: 'array', maxItems: 20, items: item } } });
    const huge = '[a-z]{0,1000}'.repeat(100);
    expect(errorsOf(s, { spec: { l: [{ s: 'abc', p: huge }] } })).toEqual([
      'spec.l[0]: Invalid value: "object": error parsing regexp: expression too large evaluating rule: self.s.matches(self.p)',
    ]);
    // Twelve distinct patterns of ~2,000 instructions: nine fit in one request.
    const l = Array.from({ length: 12 }, (_, i) => ({ s: 'c'.repeat(i), p: `^[a-z]{0,1000}${'c'.repeat(i)}$` }));
    const errs = errorsOf(s, { spec: { l } });
    expect(errs).toEqual(
      [9, 10, 11].map(
        (i) => `spec.l[${i}]: Invalid value: "object": error parsing regexp: expression too large: the regular expressions of one request may compile to 20000 instructions together evaluating rule: self.s.matches(self.p)`,
      ),
    );
  });

  it('kube list and string library functions', () => {
    const s = schemaWith({
      type: 'object',
      properties: { n: { type: 'array', maxItems: 10, items: { type: 'integer' } }, s: { type: 'string', maxLength: 20 } },
      'x-kubernetes-validations': [
        { rule: 'self.n.isSorted() && self.n.sum() == 6 && self.n.min() == 1 && self.n.max() == 3 && self.n.indexOf(2) == 1' },
        { rule: "self.s.split(',').join('-') == 'a-b' && self.s.replace(',', ';') == 'a;b' && self.s.indexOf(',') == 1 && self.s.substring(2) == 'b'" },
        { rule: "self.s.find('[a-z]') == 'a' && self.s.findAll('[a-z]').size() == 2 && 'ÄB'.lowerAscii() == 'Äb'" },
      ],
    });
    expect(errorsOf(s, { spec: { n: [1, 2, 3], s: 'a,b' } })).toEqual([]);
  });
});

describe('CEL rules: runtime cost budget (the tenant as attacker)', () => {
  it('stops with kube error once the per-request budget is spent, before running the rule', () => {
    // Within the static limit for the schema's bounds (600 × 600 comparisons), but one evaluation over a full list
    // is past kube's per-call limit: refused before it runs.
    const s = schemaWith({
      type: 'object',
      properties: { l: { type: 'array', maxItems: 600, items: { type: 'string', maxLength: 64 } } },
      'x-kubernetes-validations': rule('self.l.all(a, self.l.exists(b, a == b))'),
    });
    const compiled = compileSchemaRules(s);
    expect(compiled.errors).toEqual([]);
    const obj = { spec: { l: Array.from({ length: 600 }, (_, i) => `item-${i}`.padEnd(64)) } };
    const errs = validateRules(compiled, obj, undefined).map((e) => `${e.field}: ${e.detail}`);
    expect(errs).toEqual([
      "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.exists(b, a == b))",
    ]);
    // The same rule over a small list runs.
    expect(validateRules(compiled, { spec: { l: ['a', 'b'] } }, undefined)).toEqual([]);
  });

  it('the budget spans every evaluation of a request', () => {
    const s = schemaWith({
      type: 'object',
      properties: { l: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': rule("self.startsWith('a')") } } },
    });
    const compiled = compileSchemaRules(s);
    const obj = { spec: { l: Array.from({ length: 100 }, () => 'abc') } };
    expect(validateRules(compiled, obj, undefined)).toEqual([]);
    const errs = validateRules(compiled, obj, undefined, 50).map((e) => `${e.field}: ${e.detail}`);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec\.l\[\d+\]: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run$/);
  });
});

/** A list of n ones that counts how often its items are read (conversions and comparisons each read them all). */
function countedOnes(n: number, last = 1): { list: number[]; reads: () => number } {
  const items = Array.from({ length: n }, () => 1);
  items[n - 1] = last;
  let reads = 0;
  const list = new Proxy(items, {
    get(target, key, receiver) {
      reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { list, reads: () => reads };
}

describe('CEL rules: work linear in the object under nested rules (the tenant as attacker)', () => {
  // A rule on each of `depth` nested objects, a long list at the bottom. Each rule's self is its whole value, and
  // before each rule ran kcpt converted it, and on update compared it with the old value, again for every level:
  // 100 levels over a 2 MB list held the event loop 33 s on create and 56 s on update.
  const depth = 60;
  const chainSchema = (): JSONSchemaProps => {
    let s: JSONSchemaProps = {
      type: 'object',
      properties: { p: { type: 'array', items: { type: 'integer' } } },
      'x-kubernetes-validations': rule('self.p.size() < 5', { message: 'too long' }),
    };
    for (let i = 0; i < depth; i++) s = { type: 'object', properties: { n: s }, 'x-kubernetes-validations': rule('true') };
    return schemaWith(s);
  };
  const chain = (list: number[]) => {
    let o: Record<string, unknown> = { p: list };
    for (let i = 0; i < depth; i++) o = { n: o };
    return { spec: o };
  };
  const bottom = `spec${'.n'.repeat(depth)}`;

  it('converts each value once for all the rules above it', () => {
    const compiled = compileSchemaRules(chainSchema());
    expect(compiled.errors).toEqual([]);
    const n = 20_000;
    const { list, reads } = countedOnes(n);
    expect(validateRules(compiled, chain(list), undefined).map((e) => `${e.field}: ${e.detail}`)).toEqual([`${bottom}: Invalid value: "object": too long`]);
    // Before: depth × n (1,220,183).
    expect(reads()).toBeLessThanOrEqual(2 * n);
  });

  it("bounds the update's unchanged-value comparisons together", () => {
    const compiled = compileSchemaRules(chainSchema());
    const n = 20_000;
    const { list, reads } = countedOnes(n);
    const old = chain(countedOnes(n, 2).list);
    // The request's comparisons, with a budget of 100,000 values (2^22 in a request).
    const changes = new ChangeDetector(100_000);
    expect(validateRules(compiled, chain(list), old, undefined, changes).map((e) => `${e.field}: ${e.detail}`)).toEqual([`${bottom}: Invalid value: "object": too long`]);
    // Before: each level compared its whole value (2,440,366).
    expect(reads()).toBeLessThanOrEqual(3 * 100_000 + 4 * n);
  });
});

describe('CEL rules: equality of objects, maps and lists is charged by what it walks (the tenant as attacker)', () => {
  it('self == oldSelf on each of 100 nested objects runs out of budget instead of walking the list 100 times', () => {
    // cel-go's estimate charges an object's equality by its own fields (a few units): 100 nested rules over a
    // 600,000-item list walked it 100 times uncharged, 5-8 s of every tenant's event loop per update (13-21 s over
    // 900 levels). At run time kcpt charges what the comparison walks: every value the objects hold.
    const depth = 100;
    let node: JSONSchemaProps = { type: 'object', properties: { p: { type: 'array', items: { type: 'integer' } } }, 'x-kubernetes-validations': rule('self == oldSelf', { message: 'changed' }) };
    for (let i = 0; i < depth; i++) node = { type: 'object', properties: { n: node }, 'x-kubernetes-validations': rule('self == oldSelf', { message: 'changed' }) };
    const compiled = compileSchemaRules(schemaWith(node));
    expect(compiled.errors).toEqual([]);
    const n = 20_000;
    const chain = (last: number) => {
      let o: Record<string, unknown> = { p: Array.from({ length: n }, (_, i) => (i === n - 1 ? last : 1)) };
      for (let i = 0; i < depth; i++) o = { n: o };
      return { spec: o };
    };
    const budget = 1_000_000;
    const errs = validateRules(compiled, chain(1), chain(2), budget).map((e) => e.detail);
    // Each comparison is charged the ~20,000 values it walks: the budget runs out after about fifty.
    expect(errs.at(-1)).toBe('Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run');
    expect(errs.filter((e) => e.endsWith(': changed')).length).toBeLessThanOrEqual(budget / n);
    // An immutability rule over a small object costs what it did.
    expect(validateRules(compiled, { spec: { p: [1] } }, { spec: { p: [1] } }, budget)).toEqual([]);
  });
});

describe('CEL rules: hostile rules and schemas are refused or bounded, never crash', () => {
  it('a rule nested past the depth limit, or past the node limit, is a compilation error', () => {
    const deep = `${'('.repeat(5000)}true${')'.repeat(5000)}`;
    const wide = Array.from({ length: 5000 }, () => 'self.a').join(' + ') + ' > 0';
    const c = compileSchemaRules(
      schemaWith({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: deep }, { rule: wide }] }),
    );
    expect(c.errors.map((e) => e.field)).toEqual([
      'openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
      'openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule',
    ]);
    for (const e of c.errors) expect(e.detail).toMatch(/compilation failed: ERROR: <input>:/);
  });

  it('computed lists are bounded by what they are computed from (split, map)', () => {
    const s = schemaWith({
      type: 'object',
      properties: { s: { type: 'string', maxLength: 1000 }, l: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 100 } } },
      'x-kubernetes-validations': [
        { rule: "self.s.split(',').all(p, p.matches('^[a-z]*$'))" },
        { rule: "self.l.map(x, x + x + x + x).all(y, y.matches('^[a-z]*$'))" },
      ],
    });
    const compiled = compileSchemaRules(s);
    expect(compiled.errors).toEqual([]);
    expect(validateRules(compiled, { spec: { s: 'a,b,c', l: ['abc'] } }, undefined)).toEqual([]);
  });
});

describe('CEL rules: the number kcpt compiles is bounded', () => {
  it('a CRD with more rules than the bound is refused before any is compiled', async () => {
    const { validateCRDSpec } = await import('../crd-validation.js');
    const { MAX_RULES_PER_CRD } = await import('./compile.js');
    const props: Record<string, JSONSchemaProps> = {};
    for (let i = 0; i <= MAX_RULES_PER_CRD; i++) props[`p${i}`] = { type: 'string', maxLength: 5, 'x-kubernetes-validations': rule('self != "x"') };
    const crd = {
      metadata: { name: 'many.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'many', singular: 'many', kind: 'Many', listKind: 'ManyList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schemaWith({ type: 'object', properties: props }) } }],
      },
    };
    const errs = validateCRDSpec(crd as never).map((e) => `${e.field}: ${e.detail}`);
    expect(errs).toEqual([
      `spec.validation.openAPIV3Schema: Forbidden: kcpt compiles at most ${MAX_RULES_PER_CRD} x-kubernetes-validations rules per CustomResourceDefinition (this one has more)`,
    ]);
  });
});

describe('CEL rules: formatted strings are typed as kube types them', () => {
  it('date-time is a timestamp, duration a duration, byte bytes', () => {
    const s = schemaWith({
      type: 'object',
      properties: {
        start: { type: 'string', format: 'date-time' },
        end: { type: 'string', format: 'date-time' },
        timeout: { type: 'string', format: 'duration' },
        blob: { type: 'string', format: 'byte', maxLength: 100 },
      },
      'x-kubernetes-validations': [
        { rule: 'self.end - self.start <= duration("24h")', message: 'at most a day' },
        { rule: 'self.timeout < duration("1h")', message: 'timeout under an hour' },
        { rule: 'self.blob.size() == 3', message: 'three bytes' },
      ],
    });
    const ok = { spec: { start: '2026-11-29T00:00:00Z', end: '2026-11-29T12:00:00Z', timeout: '90s', blob: Buffer.from('abc').toString('base64') } };
    expect(errorsOf(s, ok)).toEqual([]);
    const bad = { spec: { start: '2026-11-29T00:00:00Z', end: '2026-12-02T00:00:00Z', timeout: '2h', blob: Buffer.from('abcd').toString('base64') } };
    expect(errorsOf(s, bad)).toEqual([
      'spec: Invalid value: "object": at most a day',
      'spec: Invalid value: "object": timeout under an hour',
      'spec: Invalid value: "object": three bytes',
    ]);
  });
});

describe('CEL rules: format and messageExpressions kcpt cannot build', () => {
  it('string.format as kube: %s %d %f %.Nf %x %X %o %b %e %%', () => {
    const s = schemaWith({
      type: 'object',
      properties: { n: { type: 'integer' }, r: { type: 'number' }, name: { type: 'string', maxLength: 10 } },
      'x-kubernetes-validations': [
        // List literals are homogeneous (kube's HomogeneousAggregateLiterals): mixed arguments go through dyn().
        {
          rule: 'self.n < 10',
          messageExpression:
            "'%s has %d replicas (%.2f%%, %x, %X, %o, %b, %e) %s'.format([dyn(self.name), dyn(self.n), dyn(self.r), dyn(self.n), dyn(self.n), dyn(self.n), dyn(self.n), dyn(self.r), dyn([1, 2])])",
        },
      ],
    });
    expect(errorsOf(s, { spec: { n: 255, r: 12.5, name: 'web' } })).toEqual([
      'spec: Invalid value: "object": web has 255 replicas (12.50%, ff, FF, 377, 11111111, 1.250000e+01) [1, 2]',
    ]);
  });

  it('a messageExpression misusing a typed library is refused at CRD write (kube has no string(Quantity))', () => {
    const s = schemaWith({
      type: 'object',
      properties: { q: { type: 'string', maxLength: 10 } },
      'x-kubernetes-validations': [{ rule: "self.q != 'bad'", message: 'q is bad', messageExpression: "'q ' + string(quantity(self.q))" }],
    });
    const c = compileSchemaRules(s);
    expect(c.skipped).toEqual([]);
    expect(c.errors.map((e) => e.detail.split('\n')[0])).toEqual([
      expect.stringMatching(/messageExpression compilation failed: ERROR: <input>:1:8: found no matching overload for 'string\(kubernetes\.Quantity\)'$/),
    ]);
  });
});

describe('CEL rules: values the format check lets through but CEL cannot read', () => {
  it('a strfmt-only duration fails the rule as an evaluation error, not an exception', () => {
    const s = schemaWith({ type: 'string', format: 'duration', 'x-kubernetes-validations': rule('self < duration("1h")', { message: 'under an hour' }) });
    expect(errorsOf(s, { spec: '30m' })).toEqual([]);
    const errs = errorsOf(s, { spec: '3d' });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec: Invalid value: "string": .* evaluating rule: under an hour$/);
  });
});

describe('CEL rules: Go durations cel-js does not parse itself', () => {
  it('are read through Go duration syntax', () => {
    const s = schemaWith({ type: 'string', format: 'duration', 'x-kubernetes-validations': rule('self < duration("2h")', { message: 'under two hours' }) });
    expect(errorsOf(s, { spec: '1h30m0.5s' })).toEqual([]);
    expect(errorsOf(s, { spec: '2h0m1s' })).toEqual(['spec: Invalid value: "string": under two hours']);
  });
});

describe('CEL rules: any object, of any shape, gets field errors, never an exception', () => {
  it('random values against a schema with rules at every kind of node', () => {
    const s = schemaWith({
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.n >= 0 && self.l.all(x, x.size() < 5) && self.m.all(k, self.m[k] != "")' }],
      properties: {
        n: { type: 'integer', 'x-kubernetes-validations': rule('self < 100') },
        t: { type: 'string', format: 'date-time', 'x-kubernetes-validations': rule('self > timestamp("2000-01-01T00:00:00Z")') },
        l: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 8, 'x-kubernetes-validations': rule("self.matches('^[a-z]*$')") } },
        m: { type: 'object', maxProperties: 8, additionalProperties: { type: 'string', maxLength: 8 } },
        o: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': rule('type(self) == int ? self > 0 : self != ""') },
      },
    });
    const compiled = compileSchemaRules(s);
    expect(compiled.errors).toEqual([]);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 2 || r < 0.2) return Math.floor(rand() * 200) - 50;
      if (r < 0.35) return ['', 'abc', 'ABC', '2026-11-29T00:00:00Z', 'garbage'][Math.floor(rand() * 5)];
      if (r < 0.45) return rand() < 0.5;
      if (r < 0.55) return null;
      if (r < 0.65) return 1.5;
      if (r < 0.8) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (const k of ['n', 't', 'l', 'm', 'o', 'x']) if (rand() < 0.6) o[k] = value(depth + 1);
      return o;
    };
    for (let i = 0; i < 2000; i++) {
      const obj = { spec: value(0) };
      const old = rand() < 0.5 ? { spec: value(0) } : undefined;
      const errs = validateRules(compiled, obj, old);
      for (const e of errs) expect(e.detail).toMatch(/^(Invalid value|Forbidden|Required value|Duplicate value)/);
    }
  });
});
