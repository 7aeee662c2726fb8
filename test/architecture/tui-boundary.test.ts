import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// src/tui is reached only through `await import()` from a command, and only the TUI loads Ink and React,
// so every other command starts without paying for them.
const repo = path.resolve(import.meta.dirname, '../..');
const tuiDir = path.join(repo, 'src', 'tui');
/** The one module that opens the browser (kcpt tui, ws tree -i, ws -i). */
const launcher = path.join(repo, 'src', 'cli', 'ws', 'browse.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(full) && !/\.test\.tsx?$/.test(full) ? [full] : [];
  });
}

const outsideTui = sourceFiles(path.join(repo, 'src')).filter((f) => !f.startsWith(tuiDir + path.sep));
const rel = (f: string) => path.relative(repo, f);

describe('TUI import boundary', () => {
  it('no module outside src/tui imports ink or react', () => {
    const offenders = outsideTui.filter((f) => /from ['"](ink|react)(\/[^'"]*)?['"]|import\(['"](ink|react)['"]\)/.test(readFileSync(f, 'utf8')));
    expect(offenders.map(rel)).toEqual([]);
  });

  it('src/tui is loaded only by the launcher, only at run time (its CommonJS bundle with a code cache, else its sources through the lent import())', () => {
    const importers = outsideTui.filter((f) => /tui\//.test(readFileSync(f, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')));
    expect(importers.map(rel)).toEqual([rel(launcher)]);
    const text = readFileSync(launcher, 'utf8');
    // Types only (erased at compile time), then the module itself by path when a browser opens.
    expect(text).toMatch(/typeof import\(['"]\.\.\/\.\.\/tui\/index\.js['"]\)/);
    expect(text).toMatch(/importExternal<Tui>\(/);
    expect(text).toMatch(/requireWithCodeCache\(bundled/);
    expect(text).toContain("'tui-bundle'");
    expect(text).not.toMatch(/from ['"][^'"]*tui\//);
  });

  it('the CLI fast-path bundle carries no Ink or React (built by npm run build)', () => {
    const bundle = path.join(repo, 'dist', 'cli-bundle', 'fast-path.cjs');
    if (!existsSync(bundle)) return;
    const text = readFileSync(bundle, 'utf8');
    expect(text).not.toMatch(/yoga-layout|react-reconciler|ink\/build/);
    expect(text).toContain('"tui-bundle"');
  });
});
