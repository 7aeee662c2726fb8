/**
 * The `pattern` of a CRD schema, as kube reads it: Go's regexp (RE2 syntax, matching anywhere in the string), in
 * linear time. A tenant writes the pattern and the strings; JavaScript's own engine backtracks, so `^(a+)+$` against
 * 31 a's and a `!` held the event loop — every tenant's requests — for 19 s, and each further character doubles it.
 * RE2 (re2js, a port of Go's and RE2/J's engine) decides it in time proportional to the string, and refuses what Go
 * refuses (lookarounds, backreferences, repeats over 1000) with Go's messages.
 */
import type { RE2JS } from 're2js';
import { compileRE2 } from './re2-bounded.js';

/** ajv's RegExpEngine: compiles a CRD pattern for the `pattern` keyword (the `u` flag is RE2's default anyway). */
export function re2Pattern(pattern: string): { test(s: string): boolean; toString(): string } {
  // ajv keys the compiled patterns of a schema by toString(): one per pattern, as a RegExp's `/…/u` would be.
  const toString = () => `re2:${pattern}`;
  let re: RE2JS;
  try {
    re = compileRE2(pattern);
  } catch {
    // Only a CRD stored before patterns were checked as RE2 (or bounded, re2-bounded.ts) can hold one: no value
    // matches.
    return { test: () => false, toString };
  }
  return { test: (s) => re.test(s), toString };
}
// ajv names the engine in code it generates for standalone modules (not used here).
re2Pattern.code = 're2Pattern';

/** Go's regexp.Compile error for a pattern (`error parsing regexp: …`), or undefined when it compiles. */
export function patternSyntaxError(pattern: string): string | undefined {
  try {
    compileRE2(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
