/**
 * oclif's side of `kcpt export …` and `kcpt bind`, in-process with runCommand: repeatable -f, snapshot output,
 * kcp's usage errors (exit 2) before any server is contacted, export init into a fresh and a non-empty directory.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@oclif/test';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/server.js';

let dir: string;
const crd = (plural: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.x.dev }
spec:
  group: x.dev
  names: { kind: K, plural: ${plural} }
  scope: Cluster
  versions: [{ name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object } } }]
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kcpt-apis-flags-'));
  writeFileSync(join(dir, 'a.yaml'), crd('apples'));
  writeFileSync(join(dir, 'b.yaml'), `${crd('pears')}---\n${crd('plums')}`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runCommand(args, { root: repoRoot });

describe('export and bind through oclif', () => {
  it('export snapshot takes -f more than once and prints one schema per CRD, in file order', async () => {
    const r = await run(['export', 'snapshot', '-f', join(dir, 'a.yaml'), '-f', join(dir, 'b.yaml'), '--prefix', 'today']);
    expect(r.error).toBeUndefined();
    expect((loadAll(r.stdout).filter(Boolean) as { metadata: { name: string } }[]).map((s) => s.metadata.name)).toEqual([
      'today.apples.x.dev',
      'today.pears.x.dev',
      'today.plums.x.dev',
    ]);
  });

  it('usage mistakes exit 2 with kcp’s words; a missing file exits 1', async () => {
    const noPrefix = await run(['export', 'snapshot', '-f', join(dir, 'a.yaml')]);
    expect([noPrefix.error?.oclif?.exit, noPrefix.stderr]).toEqual([2, "Error: --prefix is required\nSee 'kcpt export snapshot --help' for usage.\n"]);
    expect((await run(['export', 'snapshot', '-f', join(dir, 'a.yaml'), '--prefix', 'p', '-o', 'table'])).error?.oclif?.exit).toBe(2);
    const missingFile = await run(['export', 'snapshot', '-f', join(dir, 'nope.yaml'), '--prefix', 'p']);
    expect([missingFile.error?.oclif?.exit, missingFile.stderr]).toEqual([1, `Error: error opening ${join(dir, 'nope.yaml')}: no such file or directory\n`]);
    expect((await run(['export'])).error?.oclif?.exit).toBe(2);
    const noFile = await run(['export', 'widgets']);
    expect([noFile.error?.oclif?.exit, noFile.stderr]).toEqual([2, "Error: --filename is required\nSee 'kcpt export --help' for usage.\n"]);
    const badName = await run(['export', 'Widgets', '-f', join(dir, 'a.yaml'), '--server', 'https://127.0.0.1:1/clusters/root']);
    expect(badName.error?.oclif?.exit).toBe(2);
    expect(badName.stderr).toMatch(/^Error: invalid APIExport name "Widgets": a lowercase RFC 1123 subdomain must consist of/);
    const bind = await run(['bind', 'widgets']);
    expect(bind.error?.oclif?.exit).toBe(2);
    expect(bind.stderr).toMatch(/^Error: fully qualified reference to workspace where APIExport exists is required/);
    const timeout = await run(['bind', 'root:a:b', '--timeout', 'soon']);
    expect([timeout.error?.oclif?.exit, timeout.stderr]).toEqual([2, 'Error: --timeout: "soon" is not a duration like 100ms, 30s, 5m or 1h\nSee \'kcpt bind --help\' for usage.\n']);
  });

  it('export init copies the template into a new directory, and refuses a non-empty one', async () => {
    const target = join(dir, 'project');
    const r = await run(['export', 'init', target, '-o', 'json']);
    expect(r.error).toBeUndefined();
    expect(JSON.parse(r.stdout)).toEqual({ directory: target, files: expect.arrayContaining(['crd.yaml', 'src/controller.ts', 'src/reconcile.ts']) });
    expect(readdirSync(target)).toContain('package.json');
    const again = await run(['export', 'init', target]);
    expect(again.error?.oclif?.exit).toBe(1);
  });

  it('export init makes the project depend on the kcpt that generated it, or on the one --kcpt-dependency names', async () => {
    const here = join(dir, 'here');
    expect((await run(['export', 'init', here])).error).toBeUndefined();
    const devDependencies = (at: string) => (JSON.parse(readFileSync(join(at, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
    expect(devDependencies(here).kcpt).toBe(`file:${repoRoot}`);
    // Installed as a copy, so kcpt/testing resolves vitest from the project.
    expect(readFileSync(join(here, '.npmrc'), 'utf8')).toBe('install-links=true\n');

    const registry = join(dir, 'registry');
    expect((await run(['export', 'init', registry, '--kcpt-dependency', '^0.1.0'])).error).toBeUndefined();
    expect([devDependencies(registry).kcpt, existsSync(join(registry, '.npmrc'))]).toEqual(['^0.1.0', false]);
  });
});
