import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { load } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Kubeconfig } from '../common/kubeconfig.js';
import { createContext, currentKey, previousKey, switchToUrl, swapToPrevious } from './context-rewrite.js';

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kcpt-kubeconfig-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

type Doc = { 'current-context'?: string; clusters?: { name: string; cluster: Record<string, unknown> }[]; contexts?: { name: string; context: Record<string, unknown> }[]; users?: unknown[] };
const read = (path: string) => load(readFileSync(path, 'utf8')) as Doc;
const names = (doc: Doc, section: 'clusters' | 'contexts') => (doc[section] ?? []).map((e) => e.name).sort();

const admin = `# written by kcpt
apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: Q0E=
    server: https://h:6443/clusters/root
  name: root
contexts:
- context:
    cluster: root
    user: kcp-admin
    namespace: team-ns
  name: root
current-context: root
users:
- name: kcp-admin
  user:
    token: secret
`;

describe('kubeconfig rewrite like kcp', () => {
  it('switching copies the current cluster and context into workspace.kcp.io/current and keeps the old one as previous', () => {
    const file = join(scratch(), 'config');
    writeFileSync(file, admin);
    const config = Kubeconfig.load({ explicitPath: file });
    switchToUrl(config, 'root', 'https://h:6443/clusters/root:org');
    config.save();
    const doc = read(file);
    expect(doc['current-context']).toBe(currentKey);
    const cluster = doc.clusters!.find((c) => c.name === currentKey)!.cluster;
    expect(cluster).toEqual({ 'certificate-authority-data': 'Q0E=', server: 'https://h:6443/clusters/root:org' });
    expect(doc.contexts!.find((c) => c.name === currentKey)!.context).toEqual({ cluster: currentKey, user: 'kcp-admin', namespace: 'team-ns' });
    expect(doc.contexts!.find((c) => c.name === previousKey)!.context).toEqual({ cluster: 'root', user: 'kcp-admin', namespace: 'team-ns' });

    // A second switch moves the current cluster to previous; `-` swaps them back.
    const again = Kubeconfig.load({ explicitPath: file });
    switchToUrl(again, currentKey, 'https://h:6443/clusters/root:org:team');
    again.save();
    let d = read(file);
    expect(d.clusters!.find((c) => c.name === previousKey)!.cluster.server).toBe('https://h:6443/clusters/root:org');
    expect(d.contexts!.find((c) => c.name === previousKey)!.context.cluster).toBe(previousKey);

    const swap = Kubeconfig.load({ explicitPath: file });
    expect(swapToPrevious(swap, currentKey)).toBe('https://h:6443/clusters/root:org');
    swap.save();
    d = read(file);
    expect(d.clusters!.find((c) => c.name === currentKey)!.cluster.server).toBe('https://h:6443/clusters/root:org');
    expect(d.clusters!.find((c) => c.name === previousKey)!.cluster.server).toBe('https://h:6443/clusters/root:org:team');
  });

  it('fails like kcp when the current context or a previous workspace is missing', () => {
    const file = join(scratch(), 'config');
    writeFileSync(file, admin);
    const config = Kubeconfig.load({ explicitPath: file });
    expect(() => switchToUrl(config, 'nope', 'https://h/clusters/root')).toThrow('current "nope" context not found');
    expect(() => swapToPrevious(config, 'root')).toThrow('no previous workspace found in kubeconfig');
  });

  it('writes each change back to the file that defined the entry with a multi-file KUBECONFIG', () => {
    const dir = scratch();
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    // The first file only sets current-context; the context, cluster and user live in the second.
    writeFileSync(first, 'apiVersion: v1\nkind: Config\ncurrent-context: root\n');
    writeFileSync(second, admin.replace('current-context: root\n', ''));
    const config = Kubeconfig.load({ envValue: [first, second].join(delimiter) });
    expect(config.currentContext).toBe('root');
    expect(config.contexts.get('root')?.origin).toBe(second);
    switchToUrl(config, 'root', 'https://h:6443/clusters/root:org');
    config.save();
    // New entries go to the first existing file, current-context to the file that set it; the second is untouched.
    expect(read(first)['current-context']).toBe(currentKey);
    expect(names(read(first), 'contexts')).toEqual([currentKey, previousKey]);
    expect(read(second)).toEqual(load(admin.replace('current-context: root\n', '')));

    // Re-read through the same list: the merged view sees the switch.
    const again = Kubeconfig.load({ envValue: [first, second].join(delimiter) });
    expect(again.clusters.get(currentKey)?.value.server).toBe('https://h:6443/clusters/root:org');
    // An existing entry is rewritten where it is defined.
    again.setCluster('root', { server: 'https://other/clusters/root' });
    again.save();
    expect(read(second).clusters!.find((c) => c.name === 'root')!.cluster).toEqual({ server: 'https://other/clusters/root' });
    expect(names(read(first), 'clusters')).toEqual([currentKey]);
  });

  it('first file wins for entries and current-context, missing files are skipped', () => {
    const dir = scratch();
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    writeFileSync(a, 'clusters:\n- name: x\n  cluster:\n    server: https://a\ncurrent-context: ctx-a\n');
    writeFileSync(b, 'clusters:\n- name: x\n  cluster:\n    server: https://b\n- name: y\n  cluster:\n    server: https://y\ncurrent-context: ctx-b\n');
    const config = Kubeconfig.load({ envValue: [join(dir, 'missing'), a, b].join(delimiter) });
    expect(config.clusters.get('x')?.value.server).toBe('https://a');
    expect(config.clusters.get('y')?.origin).toBe(b);
    expect(config.currentContext).toBe('ctx-a');
    expect(config.defaultFile()).toBe(a);
  });

  it('creates a missing default file with mode 0600 (and its directory)', () => {
    const file = join(scratch(), 'new', 'config');
    const config = Kubeconfig.load({ envValue: file });
    config.setCluster('c', { server: 'https://c' });
    config.setContext('c', { cluster: 'c' });
    config.setCurrentContext('c');
    config.save();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(read(file)['current-context']).toBe('c');
  });

  it('--kubeconfig names the only file, and must exist', () => {
    expect(() => Kubeconfig.load({ explicitPath: join(scratch(), 'nope') })).toThrow(/no such file or directory/);
  });

  it('create-context copies the current context under a new name, refusing to overwrite without --overwrite', () => {
    const file = join(scratch(), 'config');
    writeFileSync(file, admin);
    const config = Kubeconfig.load({ explicitPath: file });
    expect(createContext(config, 'root', { name: 'team', overwrite: false, url: 'https://h:6443/clusters/root:org:team', keepCurrent: false })).toEqual({
      name: 'team',
      updated: false,
      switched: true,
    });
    config.save();
    const doc = read(file);
    expect(doc['current-context']).toBe('team');
    expect(doc.clusters!.find((c) => c.name === 'team')!.cluster.server).toBe('https://h:6443/clusters/root:org:team');
    const again = Kubeconfig.load({ explicitPath: file });
    expect(() => createContext(again, 'team', { name: 'team', overwrite: false, keepCurrent: false })).toThrow(
      'context "team" already exists in kubeconfig, use --overwrite to update it',
    );
    expect(createContext(again, 'team', { name: 'team', overwrite: true, keepCurrent: false })).toEqual({ name: 'team', updated: true, switched: false });
  });
});
