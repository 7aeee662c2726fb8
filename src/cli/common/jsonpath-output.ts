/**
 * kubectl's `-o jsonpath=TEMPLATE` (and `jsonpath-as-json`): client-go's template execution over the JSON a command
 * prints. Each action is evaluated by the engine's kube JSONPath (the one CRD printer columns use); this module adds
 * what only output templates have: `{range …}…{end}` blocks, and client-go's printing of results (strings as they are,
 * maps and lists as compact JSON with sorted keys, several results of one action joined by a space).
 */
import { goSprint } from '../../engine/apiextensions/go-format.js';
import { canonical } from '../../engine/machinery/canonical-json.js';
import { compileJSONPath, plainValue } from '../../engine/apiextensions/kube-jsonpath.js';
import { CliError } from './errors.js';

type Segment = { kind: 'text'; text: string } | { kind: 'action'; source: string } | { kind: 'range'; source: string; body: Segment[] };

/** The template as kubectl prints it over `data`; `asJson` collects every result into one indented JSON array. */
export function executeJsonPath(template: string, data: unknown, opts: { asJson?: boolean } = {}): string {
  let segments: Segment[];
  try {
    segments = parseSegments(template);
  } catch (err) {
    throw new CliError(`error parsing jsonpath ${template}, ${(err as Error).message}`);
  }
  const results: unknown[][] = [];
  try {
    run(segments, data, results);
  } catch (err) {
    throw new CliError(`error executing jsonpath ${JSON.stringify(template)}: ${(err as Error).message}`);
  }
  if (opts.asJson) return `${JSON.stringify(results.flat().map(plainValue), null, 4)}\n`;
  return results.map((values) => values.map(printValue).join(' ')).join('');
}

function run(segments: Segment[], data: unknown, out: unknown[][]): void {
  for (const segment of segments) {
    if (segment.kind === 'text') out.push([segment.text]);
    else if (segment.kind === 'action') out.push(...compileJSONPath(`{${segment.source}}`).findResults(data));
    else for (const item of compileJSONPath(`{${segment.source}}`).findResults(data).flat()) run(segment.body, plainValue(item), out);
  }
}

/** client-go's PrintResults for one value: scalars with fmt's %v, maps and slices as json.Marshal writes them. */
function printValue(value: unknown): string {
  const v = plainValue(value);
  if (v !== null && typeof v === 'object') return goJson(v);
  return goSprint(value);
}

/** json.Marshal: map keys sorted, and <, >, & (and U+2028/U+2029) escaped as Go escapes them. */
function goJson(value: unknown): string {
  return JSON.stringify(canonical(value)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Splits the template into text, `{action}`s and `{range x}…{end}` blocks (braces inside quotes are text). */
export function parseSegments(template: string): Segment[] {
  const stack: { segments: Segment[]; range?: Extract<Segment, { kind: 'range' }> }[] = [{ segments: [] }];
  const top = () => stack[stack.length - 1]!;
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      top().segments.push({ kind: 'text', text: template.slice(i) });
      break;
    }
    if (open > i) top().segments.push({ kind: 'text', text: template.slice(i, open) });
    const close = closingBrace(template, open);
    const source = template.slice(open + 1, close).trim();
    i = close + 1;
    const word = /^(range|end)\b\s*(.*)$/s.exec(source);
    if (word?.[1] === 'range') {
      const range: Extract<Segment, { kind: 'range' }> = { kind: 'range', source: word[2]!, body: [] };
      top().segments.push(range);
      stack.push({ segments: range.body, range });
    } else if (word?.[1] === 'end') {
      if (stack.length === 1) throw new Error('not in range, nothing to end');
      stack.pop();
    } else top().segments.push({ kind: 'action', source });
  }
  if (stack.length > 1) throw new Error('unclosed range');
  return stack[0]!.segments;
}

function closingBrace(template: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < template.length; i++) {
    const c = template[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '}') return i;
  }
  throw new Error('unclosed action');
}
