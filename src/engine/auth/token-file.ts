/**
 * `--token-auth-file`: kube-apiserver's static token CSV, `token,user,uid[,"group1,group2"]`, parsed the way
 * kube's tokenfile authenticator reads it with Go's encoding/csv: quoted fields (with `""` escapes, possibly
 * spanning lines), blank lines skipped, a variable number of columns, no comment syntax (a `#` line is an
 * ordinary record and therefore too short). Rows with an empty token are skipped with a warning; for a repeated
 * token the last row wins, also with a warning.
 */

import { promises as fs } from 'node:fs';
import type { TokenEntry } from './token-store.js';

export interface TokenFileOptions {
  /** Name used in messages, normally the file path. */
  source?: string;
  onWarning?: (message: string) => void;
}

export async function loadTokenAuthFile(
  file: string,
  options: Omit<TokenFileOptions, 'source'> = {},
): Promise<TokenEntry[]> {
  const text = await fs.readFile(file, 'utf8');
  return parseTokenAuthFile(text, { ...options, source: file });
}

export function parseTokenAuthFile(text: string, options: TokenFileOptions = {}): TokenEntry[] {
  const source = options.source ?? 'token file';
  const byToken = new Map<string, TokenEntry>();
  let recordNumber = 0;
  for (const { line, fields } of parseCsv(text, source)) {
    if (fields.length < 3) {
      throw new Error(
        `token file "${source}" line ${line}: ` +
          `must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    }
    recordNumber++;
    const [token, username, uid, groups] = fields as [string, string, string, string | undefined];
    const where = `in token file "${source}", record number ${recordNumber} (line ${line})`;
    if (token === '') {
      options.onWarning?.(`empty token has been found ${where}`);
      continue;
    }
    if (byToken.has(token)) {
      options.onWarning?.(`duplicate token has been found ${where}`);
      byToken.delete(token); // re-insert so iteration order follows the winning row
    }
    // Groups are split exactly like kube (no trimming); only the meaningless empty group is dropped.
    const groupList = groups === undefined ? [] : groups.split(',').filter((g) => g !== '');
    byToken.set(token, { token, user: { username, uid, groups: groupList } });
  }
  return [...byToken.values()];
}

interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
}

/** RFC 4180 as Go's encoding/csv reads it (strict quotes, CRLF folded to LF, blank lines ignored). */
function parseCsv(input: string, source: string): CsvRecord[] {
  const text = input.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const records: CsvRecord[] = [];
  const fail = (line: number, column: number, why: string): never => {
    throw new Error(`token file "${source}" line ${line}, column ${column}: ${why}`);
  };

  let pos = 0;
  let line = 1;
  let lineStart = 0;
  while (pos < text.length) {
    if (text[pos] === '\n') {
      // Blank line: not a record.
      pos++;
      line++;
      lineStart = pos;
      continue;
    }
    const recordLine = line;
    const fields: string[] = [];
    for (;;) {
      let value = '';
      if (text[pos] === '"') {
        pos++;
        for (;;) {
          if (pos >= text.length) fail(recordLine, pos - lineStart + 1, 'extraneous or missing " in quoted-field');
          const ch = text[pos]!;
          if (ch === '"') {
            if (text[pos + 1] === '"') {
              value += '"';
              pos += 2;
              continue;
            }
            pos++;
            break;
          }
          if (ch === '\n') {
            line++;
            lineStart = pos + 1;
          }
          value += ch;
          pos++;
        }
        if (pos < text.length && text[pos] !== ',' && text[pos] !== '\n') {
          fail(line, pos - lineStart + 1, 'extraneous or missing " in quoted-field');
        }
      } else {
        const end = nextDelimiter(text, pos);
        value = text.slice(pos, end);
        const quote = value.indexOf('"');
        if (quote >= 0) fail(line, pos - lineStart + quote + 1, 'bare " in non-quoted-field');
        pos = end;
      }
      fields.push(value);
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      break; // newline or end of input
    }
    records.push({ line: recordLine, fields });
    if (text[pos] === '\n') {
      pos++;
      line++;
      lineStart = pos;
    }
  }
  return records;
}

function nextDelimiter(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === ',' || text[i] === '\n') return i;
  }
  return text.length;
}
