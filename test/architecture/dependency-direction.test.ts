import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md: imports point down. The engine never imports the client, the CLI, the TUI, oclif or ink; the
// REST client (src/client) is shared by the CLI, the TUI and kcpt/testing, which never borrow from one another.
const src = path.resolve(import.meta.dirname, '../../src');
const folder = (name: string) => new RegExp(`from ['"](\\.\\.\\/)+${name}\\/|import\\(['"](\\.\\.\\/)+${name}\\/`);
const rules: { dir: string; forbidden: RegExp[] }[] = [
  { dir: 'engine', forbidden: [folder('client'), folder('cli'), folder('tui'), folder('testing'), /from ['"]@oclif\//, /from ['"]ink['"]/, /from ['"]react['"]/] },
  { dir: 'client', forbidden: [folder('cli'), folder('tui'), folder('testing')] },
  { dir: 'tui', forbidden: [folder('cli'), folder('testing')] },
  { dir: 'testing', forbidden: [folder('cli'), folder('tui')] },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(full) ? [full] : [];
  });
}

describe('dependency direction', () => {
  for (const { dir, forbidden } of rules) {
    it(`src/${dir} imports none of ${forbidden.map(String).join(', ')}`, () => {
      const offenders = sourceFiles(path.join(src, dir)).flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        return forbidden.filter((re) => re.test(text)).map((re) => `${path.relative(src, file)} matches ${re}`);
      });
      expect(offenders).toEqual([]);
    });
  }

  it('the rules see an import they forbid', () => {
    expect(folder('cli').test("import { ApiError } from '../../cli/common/errors.js';")).toBe(true);
    expect(folder('cli').test("type Tui = typeof import('../../cli/ws/browse.js');")).toBe(true);
    expect(folder('cli').test("import { KubeClient } from '../client/http-client.js';")).toBe(false);
  });
});
