import { Lexer, Parser } from 'yaml';

/**
 * How deep a decoded body may nest. kube's JSON decoder stops at 10,000 levels; kcpt's object code (canonical
 * encoding, pruning, validation, managed fields) recurses once per level on a JavaScript stack of about 10,000 frames,
 * so it stops at 1,000: far beyond any real object, and far enough below the stack that a deep object is a 400 and
 * never a stack overflow (500) halfway through a write.
 */
export const MAX_NESTING_DEPTH = 1000;

/** The message for a value nested deeper than `max`, or undefined. Iterative: the check itself cannot overflow. */
export function nestingTooDeep(value: unknown, max = MAX_NESTING_DEPTH): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return `exceeded max depth of ${max} nested objects or arrays`;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return undefined;
}

/**
 * How deep a YAML body may nest. The yaml library composes documents recursively at about 1 KiB of stack per level,
 * and V8 aborts the whole process (not a catchable RangeError) when a regular expression is first compiled with the
 * stack nearly used up: one `- - - … x` body of ~1,000 levels took the server down. Half that is refused up front.
 */
export const MAX_YAML_NESTING_DEPTH = 500;

/**
 * The message for YAML text whose collections nest deeper than `max`, or undefined. Reads the text with the yaml
 * library's lexer and CST parser, which keep their own stack (an array) rather than recursing, and stops at the first
 * level past `max`: linear in the text, whatever its shape.
 */
export function yamlTooDeep(text: string, max = MAX_YAML_NESTING_DEPTH): string | undefined {
  const parser = new Parser();
  // The parser's stack holds the document and one entry per open collection (plus one for a scalar being read).
  const limit = max + 2;
  for (const lexeme of new Lexer().lex(text)) {
    for (const _ of parser.next(lexeme));
    if (parser.stack.length > limit) return `exceeded max depth of ${max} nested collections`;
  }
  return undefined;
}
