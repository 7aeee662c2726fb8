/**
 * The reliability scripts each own one section of docs/reliability.md, fenced by HTML comment markers: rewriting it
 * leaves the rest of the page (and the other scripts' sections) as written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Replaces the text from `begin` to `end` (markers included; `section` must start and end with them), or appends it. */
export function writeSection(path: string, begin: string, end: string, section: string): void {
  let text = existsSync(path) ? readFileSync(path, 'utf8') : `# Reliability\n\n${begin}\n${end}\n`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  text = from === -1 || to === -1 ? `${text.trimEnd()}\n\n${section}\n` : `${text.slice(0, from)}${section}${text.slice(to + end.length)}`;
  writeFileSync(path, text);
}
