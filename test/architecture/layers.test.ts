import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript-5';
import { describe, expect, it } from 'vitest';

// docs/architecture.md, "Layers": imports point down, and no module reaches itself back through others.
const repo = path.resolve(import.meta.dirname, '../..');
const engine = path.join(repo, 'src', 'engine');

/** The engine's folders from the bottom floor up (server/ assembles them all); files directly in src/engine sit on top. */
const floors = [
  'storage',
  'machinery',
  'registry',
  'admission',
  'builtin',
  'auth',
  'authorization',
  'apiextensions',
  'controllers',
  'tenancy',
  'snapshot',
  'endpoints',
  'shards',
  'apis',
  'virtual',
  'front-proxy',
  'server',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(full) && !/\.test\.tsx?$/.test(full) ? [full] : [];
  });
}

/** Every relative module a file imports: static, type-only, re-exports and `import()`, resolved to a file. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .flatMap((name) => {
      const base = path.resolve(path.dirname(file), name).replace(/\.js$/, '');
      const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => {
        try {
          return statSync(candidate).isFile();
        } catch {
          return false;
        }
      });
      return found ? [found] : [];
    });
}

const files = sourceFiles(path.join(repo, 'src'));
const graph = new Map(files.map((file) => [file, importsOf(file)]));

function floorOf(file: string): number | undefined {
  const rel = path.relative(engine, file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(path.sep);
  return parts.length === 1 ? floors.length : floors.indexOf(parts[0]!);
}

describe('layers', () => {
  it('every engine folder has a floor', () => {
    const folders = readdirSync(engine).filter((entry) => statSync(path.join(engine, entry)).isDirectory());
    expect(folders.filter((folder) => !floors.includes(folder))).toEqual([]);
  });

  it('engine imports point down', () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const from = floorOf(file);
      if (from === undefined) continue;
      for (const target of imports) {
        const to = floorOf(target);
        if (to !== undefined && to > from) upward.push(`${path.relative(engine, file)} -> ${path.relative(engine, target)}`);
      }
    }
    expect(upward.sort()).toEqual([]);
  });

  it('no module imports itself back through others (type-only and dynamic imports count)', () => {
    // Tarjan's strongly connected components over the whole of src/.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let next = 0;
    const visit = (file: string): void => {
      index.set(file, next);
      low.set(file, next);
      next += 1;
      stack.push(file);
      onStack.add(file);
      for (const target of graph.get(file) ?? []) {
        if (!index.has(target)) {
          visit(target);
          low.set(file, Math.min(low.get(file)!, low.get(target)!));
        } else if (onStack.has(target)) {
          low.set(file, Math.min(low.get(file)!, index.get(target)!));
        }
      }
      if (low.get(file) === index.get(file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(path.relative(repo, member));
        } while (member !== file);
        if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
      }
    };
    for (const file of graph.keys()) if (!index.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
