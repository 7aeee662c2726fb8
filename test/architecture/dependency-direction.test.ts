import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md: imports point down. The engine never imports the CLI, the TUI, oclif or ink.
const engineDir = path.resolve(import.meta.dirname, '../../src/engine');
const forbidden = [/from ['"](\.\.\/)+cli\//, /from ['"](\.\.\/)+tui\//, /from ['"]@oclif\//, /from ['"]ink['"]/, /from ['"]react['"]/];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

describe('dependency direction', () => {
  it('src/engine imports nothing from the CLI, the TUI, oclif or ink', () => {
    const offenders = sourceFiles(engineDir).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return forbidden.filter((re) => re.test(text)).map((re) => `${path.relative(engineDir, file)} matches ${re}`);
    });
    expect(offenders).toEqual([]);
  });
});
