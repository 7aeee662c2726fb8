import { describe, expect, it } from 'vitest';
import { executeJsonPath } from './jsonpath-output.js';

const list = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { metadata: { name: 'a', labels: { z: '1', b: '<x>' } }, status: { phase: 'Ready', n: 2 } },
    { metadata: { name: 'b' }, status: { phase: 'Initializing', n: 1.5 } },
  ],
};

describe('kubectl -o jsonpath', () => {
  it('prints fields, wildcards (space-joined) and literal text', () => {
    expect(executeJsonPath('{.kind}', list)).toBe('List');
    expect(executeJsonPath('{.items[*].metadata.name}', list)).toBe('a b');
    expect(executeJsonPath('names: {.items[*].metadata.name}{"\\n"}', list)).toBe('names: a b\n');
    expect(executeJsonPath('{.items[*].status.n}', list)).toBe('2 1.5');
  });

  it('iterates range … end, nested too', () => {
    expect(executeJsonPath('{range .items[*]}{.metadata.name}={.status.phase}{"\\n"}{end}', list)).toBe('a=Ready\nb=Initializing\n');
    const nested = { rows: [{ cells: [1, 2] }, { cells: [3] }] };
    expect(executeJsonPath('{range .rows[*]}[{range .cells[*]}{@};{end}]{end}', nested)).toBe('[1;2;][3;]');
  });

  it('prints maps and lists as compact JSON with sorted keys and HTML escaped, as Go does', () => {
    expect(executeJsonPath('{.items[0].metadata.labels}', list)).toBe('{"b":"\\u003cx\\u003e","z":"1"}');
  });

  it('a missing key prints nothing; -o jsonpath-as-json gives every result as one JSON array', () => {
    expect(executeJsonPath('{.items[*].spec.nothing}', list)).toBe('');
    expect(JSON.parse(executeJsonPath('{.items[*].metadata.name}', list, { asJson: true }))).toEqual(['a', 'b']);
  });

  it('syntax errors and unclosed ranges say so', () => {
    expect(() => executeJsonPath('{.items[}', list)).toThrow(/error (parsing|executing) jsonpath/);
    expect(() => executeJsonPath('{range .items[*]}{.x}', list)).toThrow('unclosed range');
    expect(() => executeJsonPath('{.a', list)).toThrow('unclosed action');
  });
});
