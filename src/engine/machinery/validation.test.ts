import { describe, expect, it } from 'vitest';
import { fieldErrors, invalid } from './status.js';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  TOTAL_ANNOTATION_SIZE_LIMIT,
  validateAnnotations,
  validateLabels,
  validateName,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './validation.js';
import { rng } from '../../../test/helpers/seeded-random.js';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const createOpts = { namespaced: true, nameValidation: 'subdomain', isCreate: true } as const;

describe('name formats', () => {
  it('checks DNS-1123 subdomains', () => {
    expect(isDNS1123Subdomain('example.com')).toEqual([]);
    expect(isDNS1123Subdomain('a')).toEqual([]);
    expect(isDNS1123Subdomain('Bad_Name')).toEqual([SUBDOMAIN_MSG]);
    expect(isDNS1123Subdomain('-a')).toEqual([SUBDOMAIN_MSG]);
    expect(isDNS1123Subdomain('a'.repeat(253))).toEqual([]);
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });

  it('checks DNS-1123 and DNS-1035 labels', () => {
    expect(isDNS1123Label('my-ns')).toEqual([]);
    expect(isDNS1123Label('123')).toEqual([]);
    expect(isDNS1123Label('a.b')).toEqual([LABEL_MSG]);
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDNS1035Label('1abc')[0]).toMatch(/^a DNS-1035 label must consist of/);
    expect(isDNS1035Label('abc')).toEqual([]);
  });

  it('checks path segment names', () => {
    expect(isValidPathSegmentName('system:admin')).toEqual([]);
    expect(isValidPathSegmentName('.')).toEqual(["may not be '.'"]);
    expect(isValidPathSegmentName('..')).toEqual(["may not be '..'"]);
    expect(isValidPathSegmentName('a/b%c')).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(validateName('path-segment', '.', true)).toEqual([]);
  });

  it('masks a trailing dash for generateName prefixes', () => {
    expect(validateName('subdomain', 'web-', true)).toEqual([]);
    expect(validateName('subdomain', 'web-', false)).toEqual([SUBDOMAIN_MSG]);
    expect(validateName('label', 'x-', true)).toEqual([]);
  });
});

describe('qualified names and label values', () => {
  it('accepts keys with and without prefixes', () => {
    expect(isQualifiedName('app')).toEqual([]);
    expect(isQualifiedName('example.com/My_Key.1')).toEqual([]);
    expect(isQualifiedName('kubernetes')).toEqual([]);
  });

  it('explains bad keys', () => {
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Example.com/a')).toEqual([`prefix part ${SUBDOMAIN_MSG}`]);
    expect(isQualifiedName('a/')).toEqual([
      'name part must be non-empty',
      expect.stringMatching(/^name part must consist of alphanumeric characters/),
    ]);
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
    expect(isQualifiedName('a/b/c')).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });

  it('checks label values', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('v1.2_3-x')).toEqual([]);
    expect(isValidLabelValue('-x')).toHaveLength(1);
    expect(isValidLabelValue('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });

  it('checks ConfigMap keys', () => {
    expect(isConfigMapKey('app.properties')).toEqual([]);
    expect(isConfigMapKey('a b')).toEqual([
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    expect(isConfigMapKey('..')).toEqual(["must not be '..'"]);
    expect(isConfigMapKey('..a')).toEqual(["must not start with '..'"]);
  });
});

describe('validateObjectMeta', () => {
  // Found by the fuzzer: a numeric label value was stored as it came, and a finalizers map was a 500.
  it('refuses metadata of the wrong shape before any other rule looks at it', () => {
    const fields = (meta: Record<string, unknown>) =>
      validateObjectMeta({ name: 'cm1', namespace: 'default', ...meta } as never, createOpts).map((e) => `${e.field}: ${e.detail}`);
    expect(fields({ labels: { a: 1 } })).toEqual(['metadata.labels[a]: Invalid value: 1: must be a string']);
    expect(fields({ annotations: 'x' })).toEqual(['metadata.annotations: Invalid value: "x": must be a map of string keys to string values']);
    expect(fields({ finalizers: { $patch: 'replace' } })).toEqual(['metadata.finalizers: Invalid value: {"$patch":"replace"}: must be a list of strings']);
    expect(fields({ ownerReferences: ['x'] })).toEqual(['metadata.ownerReferences: Invalid value: ["x"]: must be a list of owner references']);
  });

  it('accepts a good object', () => {
    expect(
      validateObjectMeta(
        {
          name: 'cm1',
          namespace: 'default',
          labels: { app: 'web' },
          annotations: { 'Example.com/Note': 'anything goes here' },
          finalizers: ['kubernetes', 'example.com/cleanup'],
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u1', controller: true }],
        },
        createOpts,
      ),
    ).toEqual([]);
  });

  it('renders kube 422 messages', () => {
    const errs = validateObjectMeta({ name: 'Bad_Name', namespace: 'default' }, createOpts);
    expect(invalid({ group: '', kind: 'ConfigMap' }, 'Bad_Name', errs).message).toBe(
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}`,
    );
  });

  it('requires a name', () => {
    expect(validateObjectMeta({ namespace: 'default' }, createOpts)).toEqual([
      { type: 'FieldValueRequired', field: 'metadata.name', detail: 'Required value: name or generateName is required' },
    ]);
  });

  it('validates generateName as a prefix on create', () => {
    expect(validateObjectMeta({ generateName: 'web-', name: 'web-x7k2p', namespace: 'd' }, createOpts)).toEqual([]);
    const errs = validateObjectMeta({ generateName: 'Web-', name: 'Web-x7k2p', namespace: 'd' }, createOpts);
    expect(errs.map((e) => e.field)).toEqual(['metadata.generateName', 'metadata.name']);
    expect(validateObjectMeta({ generateName: 'Web-', name: 'ok', namespace: 'd' }, { ...createOpts, isCreate: false })).toEqual([]);
  });

  it('uses label rules for namespace names', () => {
    const errs = validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameValidation: 'label', isCreate: true });
    expect(errs).toEqual([{ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: "a.b": ${LABEL_MSG}` }]);
  });

  it('checks the namespace', () => {
    expect(validateObjectMeta({ name: 'a' }, createOpts)[0]).toEqual({
      type: 'FieldValueRequired',
      field: 'metadata.namespace',
      detail: 'Required value',
    });
    expect(validateObjectMeta({ name: 'a', namespace: 'Bad' }, createOpts)[0]!.detail).toBe(`Invalid value: "Bad": ${LABEL_MSG}`);
    expect(validateObjectMeta({ name: 'a', namespace: 'x' }, { ...createOpts, namespaced: false })[0]!.detail).toBe(
      'Forbidden: not allowed on this type',
    );
  });

  it('checks labels, annotations and finalizers at their paths', () => {
    const errs = validateObjectMeta(
      {
        name: 'a',
        namespace: 'd',
        labels: { 'bad key': 'ok', good: '-bad' },
        annotations: { 'x/y/z': '' },
        finalizers: ['bad finalizer', 'orphan', 'foregroundDeletion'],
      },
      createOpts,
    );
    expect(errs.map((e) => `${e.field}: ${e.detail.split(': ').slice(0, 2).join(': ')}`)).toEqual([
      'metadata.labels: Invalid value: "bad key"',
      'metadata.labels: Invalid value: "-bad"',
      'metadata.annotations: Invalid value: "x/y/z"',
      'metadata.finalizers: Invalid value: "bad finalizer"',
      'metadata.finalizers: Invalid value: ["bad finalizer","orphan","foregroundDeletion"]',
    ]);
    expect(errs[4]!.detail).toMatch(/finalizer orphan and foregroundDeletion cannot be both set$/);
  });

  it('limits the total annotation size', () => {
    const big = { a: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT) };
    expect(validateObjectMeta({ name: 'a', namespace: 'd', annotations: big }, createOpts)).toEqual([
      { type: 'FieldValueTooLong', field: 'metadata.annotations', detail: 'Too long: may not be more than 262144 bytes' },
    ]);
    const fits = { a: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT - 1) };
    expect(validateObjectMeta({ name: 'a', namespace: 'd', annotations: fits }, createOpts)).toEqual([]);
  });

  it('checks owner references', () => {
    const errs = validateObjectMeta(
      {
        name: 'a',
        namespace: 'd',
        ownerReferences: [
          { apiVersion: '', kind: '', name: '', uid: '' },
          { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' },
          { apiVersion: 'v1', kind: 'A', name: 'a', uid: 'u', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'b', uid: 'u', controller: true },
        ],
      },
      createOpts,
    );
    expect(errs.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      expect.stringMatching(/^metadata\.ownerReferences: Invalid value: \{.*\}: \/v1, Kind=Event is disallowed from being an owner$/),
      expect.stringMatching(/Only one reference can have Controller set to true. Found "true" in references for A\/a and B\/b$/),
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = { name: 'a', namespace: 'd', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 3 };

  it('accepts unchanged identity', () => {
    expect(validateObjectMetaUpdate({ ...old, generation: 4 }, old)).toEqual([]);
  });

  it('rejects changes to immutable fields and decremented generation', () => {
    const errs = validateObjectMetaUpdate({ ...old, uid: 'u2', generation: 2, creationTimestamp: null }, old);
    expect(errs.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'metadata.generation: Invalid value: 2: must not be decremented',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: "": field is immutable',
    ]);
  });
});

describe('the name matchers against kube\'s regexes', () => {
  // Every string of up to 4 characters over an alphabet of the characters the formats treat differently (both
  // cases, digits, the three punctuation marks, the separators, and non-ASCII letters, one of which lower-cases to
  // ASCII): a matcher that differs from its regex anywhere differs on one of them.
  const alphabet = ['a', 'Z', '0', '-', '.', '_', '/', ' ', 'é', '\u212A'];
  const strings = [''];
  for (let len = 1, level = ['']; len <= 4; len++) {
    level = level.flatMap((s) => alphabet.map((c) => s + c));
    strings.push(...level);
  }
  const anchored = (fmt: string) => new RegExp(`^${fmt}$`);
  const label = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
  const qualified = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
  const cases: [string, (s: string) => string[], RegExp][] = [
    ['DNS-1123 label', isDNS1123Label, anchored(label)],
    ['DNS-1123 subdomain', isDNS1123Subdomain, anchored(`${label}(\\.${label})*`)],
    ['DNS-1035 label', isDNS1035Label, anchored('[a-z]([-a-z0-9]*[a-z0-9])?')],
    ['label value', isValidLabelValue, anchored(`(${qualified})?`)],
    ['config map key', (s) => isConfigMapKey(s).filter((m) => !m.startsWith('must not')), anchored('[-._a-zA-Z0-9]+')],
  ];
  for (const [name, check, re] of cases) {
    it(`accepts exactly what the ${name} regex accepts`, () => {
      const differ = strings.filter((s) => (check(s).length === 0) !== re.test(s));
      expect(differ).toEqual([]);
    });
  }

  it('accepts exactly the qualified names whose prefix is a subdomain and whose name matches', () => {
    const name = anchored(qualified);
    const subdomain = anchored(`${label}(\\.${label})*`);
    const reference = (s: string) => {
      const parts = s.split('/');
      if (parts.length === 1) return name.test(s);
      return parts.length === 2 && subdomain.test(parts[0]!) && name.test(parts[1]!);
    };
    expect(strings.filter((s) => (isQualifiedName(s).length === 0) !== reference(s))).toEqual([]);
  });

  it('gives labels and annotations the errors of the message-building checks, key by key', () => {
    const keys = [...strings.filter((s) => s.length <= 2), 'a/b', 'a.b/c', 'a..b/c', 'A/b', 'a/B', '-/a', 'a_/b', 'a/b/c', 'a.0/Z_z', `${'a'.repeat(253)}/b`, `${'a'.repeat(254)}/b`, 'a'.repeat(63), 'a'.repeat(64), `p/${'a'.repeat(63)}`, `p/${'a'.repeat(64)}`, 'é'.repeat(32), 'Example.COM/Name', 'example.com/Name', '\u212Aa/b'];
    const values = ['', 'a', 'a-b', '-a', 'a'.repeat(63), 'a'.repeat(64), 'é', 'a b'];
    const [actual, expected]: unknown[][] = [[], []];
    for (const k of keys) {
      for (const v of values) {
        actual.push(validateLabels({ [k]: v }, 'metadata.labels'));
        expected.push([
          ...isQualifiedName(k).map((m) => fieldErrors.invalid('metadata.labels', k, m)),
          ...isValidLabelValue(v).map((m) => fieldErrors.invalid('metadata.labels', v, m)),
        ]);
      }
      actual.push(validateAnnotations({ [k]: 'v' }, 'metadata.annotations'));
      expected.push(isQualifiedName(k.toLowerCase()).map((m) => fieldErrors.invalid('metadata.annotations', k, m)));
    }
    expect(actual).toEqual(expected);
  });
});

describe('the valid-name fast paths against kube\'s full rules, on generated strings', () => {
  // kube's rules as apimachinery's pkg/util/validation writes them: Go's len() (UTF-8 bytes) for the limits, the
  // anchored regexes for the formats. isQualifiedName and isValidLabelValue answer a valid string before any message
  // is built; a string that fast path takes and the full rule refuses would store a key kube refuses. The strings
  // are long (every length limit, each side of it) and hostile (non-ASCII, astral and lone surrogates, NUL and a
  // trailing newline, which a regex `$` in multiline mode would let through, upper case in prefixes, extra slashes).
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  const label = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
  const qualifiedRe = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
  const subdomainRe = new RegExp(`^${label}(\\.${label})*$`);
  const kube = {
    subdomain: (s: string) => bytes(s) <= 253 && subdomainRe.test(s),
    label: (s: string) => bytes(s) <= 63 && new RegExp(`^${label}$`).test(s),
    dns1035: (s: string) => bytes(s) <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s),
    qualifiedName(s: string): boolean {
      const parts = s.split('/');
      if (parts.length > 2) return false;
      const name = parts[parts.length - 1]!;
      if (parts.length === 2 && (parts[0]!.length === 0 || !kube.subdomain(parts[0]!))) return false;
      return name.length > 0 && bytes(name) <= 63 && qualifiedRe.test(name);
    },
    labelValue: (s: string) => bytes(s) <= 63 && (s === '' || qualifiedRe.test(s)),
    configMapKey: (s: string) => bytes(s) <= 253 && /^[-._a-zA-Z0-9]+$/.test(s) && s !== '.' && !s.startsWith('..'),
  };
  const good = 'abcxyz019';
  const goodName = 'aZ09-_.';
  const hostile = ['A', 'Z', '-', '.', '_', '/', ' ', '\u0000', '\n', 'é', '\u212A', '\u{1F600}', '\uD800', '\uDC00', ':', '%'];
  const lengths = [0, 1, 2, 3, 62, 63, 64, 65, 126, 252, 253, 254, 255];

  function generate(random: () => number): string {
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const run = (alphabet: string, length: number) => {
      let out = '';
      for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
      // Mostly valid, with dots between labels, and now and then one hostile character anywhere.
      if (length > 2 && random() < 0.3) out = out.slice(0, 1 + Math.floor(random() * (length - 2))) + '.' + out.slice(1 + Math.floor(random() * (length - 2)) + 1);
      if (length > 0 && random() < 0.35) {
        const at = pick([0, length - 1, Math.floor(random() * length)]);
        out = out.slice(0, at) + pick(hostile) + out.slice(at + 1);
      }
      return out;
    };
    const name = run(goodName, pick(lengths.filter((n) => n <= 126)));
    const slashes = random() < 0.5 ? 1 : random() < 0.8 ? 0 : 2;
    if (slashes === 0) return name;
    const prefix = run(good + (random() < 0.1 ? 'Q' : '-'), pick(lengths));
    return slashes === 1 ? `${prefix}/${name}` : `${prefix}/${name}/${run(goodName, pick([0, 1, 5]))}`;
  }

  const seed = 20261129;
  const random = rng(seed);
  const strings = Array.from({ length: 60_000 }, () => generate(random));

  const cases: [string, (s: string) => string[], (s: string) => boolean][] = [
    ['qualified name (label and annotation keys, finalizers)', isQualifiedName, kube.qualifiedName],
    ['label value', isValidLabelValue, kube.labelValue],
    ['DNS-1123 subdomain', isDNS1123Subdomain, kube.subdomain],
    ['DNS-1123 label', isDNS1123Label, kube.label],
    ['DNS-1035 label', isDNS1035Label, kube.dns1035],
    ['ConfigMap key', isConfigMapKey, kube.configMapKey],
  ];
  for (const [name, check, reference] of cases) {
    it(`${name}: valid exactly when kube's rule says so (seed ${seed})`, () => {
      const differ = strings.filter((s) => (check(s).length === 0) !== reference(s)).map((s) => JSON.stringify(s));
      expect(differ.slice(0, 5)).toEqual([]);
      // The generator reaches both sides of every rule, so a rule accepting (or refusing) everything fails too.
      expect(strings.filter((s) => reference(s)).length).toBeGreaterThan(200);
      expect(strings.filter((s) => !reference(s)).length).toBeGreaterThan(500);
    });
  }

  it('the strings reach each length limit from both sides, with and without a prefix', () => {
    const valid = (s: string) => kube.qualifiedName(s);
    const nameOf = (s: string) => s.slice(s.indexOf('/') + 1);
    expect(strings.some((s) => valid(s) && nameOf(s).length === 63)).toBe(true);
    expect(strings.some((s) => !s.includes('/') && /^[A-Za-z0-9][-A-Za-z0-9_.]*[A-Za-z0-9]$/.test(s) && s.length === 64)).toBe(true);
    expect(strings.some((s) => valid(s) && s.indexOf('/') === 253)).toBe(true);
    expect(strings.some((s) => s.indexOf('/') === 254 && subdomainRe.test(s.slice(0, 254)) && qualifiedRe.test(nameOf(s)))).toBe(true);
  });
});
