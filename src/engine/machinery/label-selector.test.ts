import { describe, expect, it } from 'vitest';
import {
  isEverything,
  labelSelectorFromObject,
  labelSelectorToString,
  matches,
  parseLabelSelector,
  validateLabelSelector,
} from './label-selector.js';
import { StatusError } from './status.js';

function parseError(text: string): StatusError {
  try {
    parseLabelSelector(text);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return err as StatusError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

const KEY_REGEX_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('parseLabelSelector', () => {
  it('parses every operator', () => {
    const sel = parseLabelSelector('app=web,tier!=db, env==prod,x in (b,a),y notin (c),z,!gone,n>5,m<10');
    expect(sel.requirements).toEqual([
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'env', operator: '==', values: ['prod'] },
      { key: 'gone', operator: '!', values: [] },
      { key: 'm', operator: 'lt', values: ['10'] },
      { key: 'n', operator: 'gt', values: ['5'] },
      { key: 'tier', operator: '!=', values: ['db'] },
      { key: 'x', operator: 'in', values: ['a', 'b'] },
      { key: 'y', operator: 'notin', values: ['c'] },
      { key: 'z', operator: 'exists', values: [] },
    ]);
  });

  it('accepts whitespace around tokens and qualified keys', () => {
    const sel = parseLabelSelector('  example.com/app  in  ( a , b )  ,\tk8s.io/x = 1 ');
    expect(labelSelectorToString(sel)).toBe('example.com/app in (a,b),k8s.io/x=1');
  });

  it('treats the empty string as everything', () => {
    expect(isEverything(parseLabelSelector(''))).toBe(true);
    expect(isEverything(parseLabelSelector('   '))).toBe(true);
  });

  it('handles empty values like kube', () => {
    expect(parseLabelSelector('a=').requirements[0]!.values).toEqual(['']);
    expect(parseLabelSelector('a=,b').requirements.map((r) => r.values)).toEqual([[''], []]);
    expect(parseLabelSelector('a in ()').requirements[0]!.values).toEqual(['']);
    expect(parseLabelSelector('a in (,b)').requirements[0]!.values).toEqual(['', 'b']);
    expect(parseLabelSelector('a in (b,)').requirements[0]!.values).toEqual(['', 'b']);
    expect(parseLabelSelector('a in (b,,c)').requirements[0]!.values).toEqual(['', 'b', 'c']);
  });

  it('lets in/notin be keys and values', () => {
    expect(parseLabelSelector('in in (in,notin)').requirements[0]).toEqual({
      key: 'in',
      operator: 'in',
      values: ['in', 'notin'],
    });
    expect(parseLabelSelector('a=notin').requirements[0]!.values).toEqual(['notin']);
  });

  it('reports syntax errors with kube wording as 400 BadRequest', () => {
    const err = parseError('a b');
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    expect(parseError('a=b c').message).toBe("found 'c', expected: ',' or 'end of string'");
    expect(parseError(',a').message).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(parseError('a,').message).toBe("found '', expected: identifier after ','");
    expect(parseError('a in b').message).toBe("unable to parse requirement: found 'b' expected: '('");
    expect(parseError('a in (b').message).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expect(parseError('a in (=)').message).toBe("unable to parse requirement: found '=', expected: ',', ')' or identifier");
    expect(parseError('a=(').message).toBe("unable to parse requirement: found '(', expected: identifier");
    expect(parseError('!a=b').message).toBe("found '=', expected: ',' or 'end of string'");
    expect(parseError('!').message).toBe("unable to parse requirement: found '', expected: identifier");
  });

  it('validates keys with a <nil> path and values with values[i][key]', () => {
    expect(parseError('Bad_Key_=x').message).toBe(
      `unable to parse requirement: <nil>: Invalid value: "Bad_Key_": ${KEY_REGEX_MSG}`,
    );
    expect(parseError('a/b/c').message).toMatch(/^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must/);
    expect(parseError('app=bad value!').message).toBe("found 'value', expected: ',' or 'end of string'");
    expect(parseError('app=-bad').message).toBe(
      'unable to parse requirement: values[0][app]: Invalid value: "-bad": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')',
    );
    expect(parseError(`app=${'a'.repeat(64)}`).message).toMatch(/values\[0\]\[app\]: Invalid value: "a+": must be no more than 63 characters/);
  });

  it('aggregates several requirement errors in brackets', () => {
    expect(parseError('a in (-x,-y)').message).toMatch(
      /^unable to parse requirement: \[values\[0\]\[a\]: Invalid value: "-x": .*, values\[1\]\[a\]: Invalid value: "-y": .*\]$/,
    );
  });

  it('requires integers for gt and lt', () => {
    expect(parseError('a>b').message).toBe(
      `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
  });
});

describe('matches', () => {
  const labels = { app: 'web', tier: 'frontend', n: '7' };
  const m = (sel: string, l: Record<string, string> | undefined = labels) => matches(parseLabelSelector(sel), l);

  it('matches equality and inequality', () => {
    expect(m('app=web')).toBe(true);
    expect(m('app==web')).toBe(true);
    expect(m('app=db')).toBe(false);
    expect(m('app!=db')).toBe(true);
    expect(m('missing!=x')).toBe(true);
    expect(m('missing=')).toBe(false);
  });

  it('matches sets, existence and AND', () => {
    expect(m('tier in (frontend,backend)')).toBe(true);
    expect(m('tier notin (frontend)')).toBe(false);
    expect(m('missing notin (x)')).toBe(true);
    expect(m('app')).toBe(true);
    expect(m('!app')).toBe(false);
    expect(m('!missing')).toBe(true);
    expect(m('app=web,tier=backend')).toBe(false);
    expect(m('', {})).toBe(true);
    expect(matches(parseLabelSelector('app'), undefined)).toBe(false);
    expect(matches(parseLabelSelector('!app'), undefined)).toBe(true);
  });

  it('compares numbers for gt and lt', () => {
    expect(m('n>5')).toBe(true);
    expect(m('n<5')).toBe(false);
    expect(m('app>5')).toBe(false);
    expect(m('missing<5')).toBe(false);
  });
});

describe('labelSelectorFromObject', () => {
  it('treats null as nothing and {} as everything', () => {
    expect(matches(labelSelectorFromObject(null), {})).toBe(false);
    expect(matches(labelSelectorFromObject(undefined), { a: 'b' })).toBe(false);
    expect(isEverything(labelSelectorFromObject({}))).toBe(true);
  });

  it('combines matchLabels and matchExpressions', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a', 'a'] },
        { key: 'old', operator: 'DoesNotExist' },
        { key: 'env', operator: 'Exists' },
        { key: 'zone', operator: 'NotIn', values: ['x'] },
      ],
    });
    expect(labelSelectorToString(sel)).toBe('app=web,env,!old,tier in (a,b),zone notin (x)');
    expect(matches(sel, { app: 'web', tier: 'a', env: '' })).toBe(true);
    expect(matches(sel, { app: 'web', tier: 'a', env: '', old: '1' })).toBe(false);
  });

  it('rejects bad operators and values with kube messages', () => {
    const attempt = (ps: Parameters<typeof labelSelectorFromObject>[0]) => {
      try {
        labelSelectorFromObject(ps);
      } catch (err) {
        return (err as StatusError).message;
      }
      return 'ok';
    };
    expect(attempt({ matchExpressions: [{ key: 'a', operator: 'Foo' }] })).toBe('"Foo" is not a valid label selector operator');
    expect(attempt({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toBe(
      "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(attempt({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toBe(
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    );
    expect(attempt({ matchLabels: { 'bad key': 'x' } })).toMatch(/^key: Invalid value: "bad key": name part must consist/);
  });
});

describe('validateLabelSelector', () => {
  it('returns field errors at kube paths', () => {
    const errs = validateLabelSelector(
      {
        matchLabels: { ok: '-bad' },
        matchExpressions: [
          { key: 'a', operator: 'In' },
          { key: 'b', operator: 'Exists', values: ['x'] },
          { key: 'c', operator: 'Huh' },
        ],
      },
      'spec.selector',
    );
    expect(errs.map((e) => `${e.field}: ${e.detail.split(':')[0]}`)).toEqual([
      'spec.selector.matchLabels: Invalid value',
      'spec.selector.matchExpressions[0].values: Required value',
      'spec.selector.matchExpressions[1].values: Forbidden',
      'spec.selector.matchExpressions[2].operator: Invalid value',
    ]);
    expect(errs[1]!.detail).toBe("Required value: must be specified when `operator` is 'In' or 'NotIn'");
    expect(validateLabelSelector(undefined, 'spec.selector')).toEqual([]);
  });
});

describe('work budget', () => {
  it('refuses more requirements than a client sends, with a 400 before any object is read', () => {
    const many = Array.from({ length: 101 }, (_, i) => `k${i}`).join(',');
    const err = parseError(many);
    expect(err.code).toBe(400);
    expect(err.message).toBe('label selector has 101 requirements: at most 100 are allowed');
    expect(parseLabelSelector(Array.from({ length: 100 }, (_, i) => `k${i}`).join(',')).requirements).toHaveLength(100);
  });

  it('refuses a set of more than 100 values', () => {
    const values = Array.from({ length: 101 }, (_, i) => `v${i}`).join(',');
    expect(parseError(`a in (${values})`).message).toBe('label selector requirement on "a" has 101 values: at most 100 are allowed');
  });

  it('refuses a value longer than a label value (kube’s 63 characters)', () => {
    expect(parseError(`a=${'x'.repeat(64)}`).code).toBe(400);
  });
});
