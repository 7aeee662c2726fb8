/**
 * A fresh clone's `npm install` must leave package-lock.json as it is, with npm 10 (Node 20 and 22) and npm 11
 * alike. Both write the root package's `engines` right after its devDependencies, and npm 10 drops the `libc` fields
 * npm 11 adds (npm 11 keeps a lock without them), so the lock is written the way npm 10 writes it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;

describe('package-lock.json', () => {
  it("has the root package's fields in the order npm writes them", () => {
    const root = lock.packages['']!;
    const keys = Object.keys(root);
    expect(keys.indexOf('engines')).toBe(keys.indexOf('devDependencies') + 1);
    expect(root.engines).toEqual(manifest.engines);
  });

  it('carries no libc fields (npm 10 would remove them)', () => {
    expect(Object.entries(lock.packages).filter(([, entry]) => 'libc' in entry).map(([name]) => name)).toEqual([]);
  });
});
