/**
 * Regenerates kubectl-fixtures.json from the real kubectl (needs kubectl 1.27+ on this machine; no cluster):
 *
 *   npx tsx src/engine/machinery/patch/testdata/generate-fixtures.ts
 *
 * The tests only read the JSON, so they run anywhere. KUBECTL=/path/to/kubectl overrides the binary.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { capturePatch, KUBECTL, patchLocally, resourceOf } from './kubectl-runner.js';
import { applyScenarios } from './scenarios-apply.js';
import { patchScenarios } from './scenarios-patch.js';

export interface KubectlFixture {
  name: string;
  /** Where the patch came from: written by hand, or sent by `kubectl apply` / `kubectl edit`. */
  source: 'patch' | 'apply' | 'edit';
  group: string;
  kind: string;
  type: 'strategic' | 'merge' | 'json';
  live: unknown;
  patch: unknown;
  /** The Content-Type kubectl sent (apply / edit only). */
  contentType?: string;
  /** kubectl's result; absent when kubectl refused the patch. */
  expected?: unknown;
  /** kubectl's error text when it refused the patch. */
  error?: string;
}

function groupKind(obj: Record<string, unknown>): { group: string; kind: string } {
  const apiVersion = String(obj.apiVersion);
  return { group: apiVersion.includes('/') ? apiVersion.split('/')[0]! : '', kind: String(obj.kind) };
}

async function main(): Promise<void> {
  const version = execFileSync(KUBECTL, ['version', '--client', '-o', 'json'], { env: { ...process.env, KUBECONFIG: '/dev/null' } });
  const fixtures: KubectlFixture[] = [];

  for (const s of patchScenarios) {
    const { result, error } = patchLocally(s.live, s.type, s.patch);
    fixtures.push({ name: s.name, source: 'patch', ...groupKind(s.live), type: s.type, live: s.live, patch: s.patch, expected: result, error });
  }

  for (const s of applyScenarios) {
    resourceOf(s.live); // fail early on a kind the fake server cannot route
    const captured =
      s.command === 'apply'
        ? await capturePatch(s.live, ['apply', '-f', '$DIR/next.json', '--validate=false'], { 'next.json': s.next })
        : await capturePatch(s.live, ['edit', `${s.live.kind.toLowerCase()}/${s.live.metadata.name}`, '-n', 'default', '-o', 'json', '--validate=false'], { 'next.json': s.next }, { KUBE_EDITOR: 'cp "$DIR/next.json"' });
    if (!captured) throw new Error(`${s.name}: kubectl sent no PATCH`);
    const type = captured.contentType.includes('strategic') ? 'strategic' : captured.contentType.includes('json-patch') ? 'json' : 'merge';
    const { result, error } = patchLocally(s.live, type, captured.patch);
    if (error) throw new Error(`${s.name}: kubectl patch --local refused kubectl's own patch: ${error}`);
    fixtures.push({
      name: s.name,
      source: s.command,
      ...groupKind(s.live),
      type,
      live: s.live,
      patch: captured.patch,
      contentType: captured.contentType,
      expected: result,
    });
  }

  const out = join(dirname(fileURLToPath(import.meta.url)), 'kubectl-fixtures.json');
  const header = { generatedBy: 'testdata/generate-fixtures.ts', kubectl: JSON.parse(version.toString('utf8')).clientVersion.gitVersion };
  // One fixture per line: small enough to keep in git, still readable in a diff.
  const lines = fixtures.map((f) => `  ${JSON.stringify(f)}`).join(',\n');
  writeFileSync(out, `${JSON.stringify(header).slice(0, -1)},\n "fixtures": [\n${lines}\n ]\n}\n`);
  console.log(`wrote ${fixtures.length} fixtures to ${out}`);
}

await main();
