/**
 * `kcpt export list`: the APIExports of the current workspace, the resources each serves with the schema it points
 * at, and how many bindings are on which schema. A provider cannot enter its consumers' workspaces, so the bindings
 * are read where kcp lets a provider read them: read-only through the export's virtual workspace
 * (`/services/apiexport/<cluster>/<export>/clusters/*` … apibindings), at every URL its endpoint slice lists (a
 * sharded deployment serves one per shard hosting bindings, each with that shard's bindings). Where that is not
 * allowed or not served, the count is unknown (`-`), never guessed.
 */
import { ApiError } from '../../client/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import { formatTable } from '../common/table.js';
import type { Session } from '../common/session.js';
import { computedVirtualWorkspaceUrl, getEndpointSlice, listExports, type APIBinding, type APIExport, type List } from '../../client/apis-api.js';
import { currentPath } from './export.js';
import { exportCluster } from './export-url.js';

export interface ExportSummary {
  name: string;
  export: string;
  virtualWorkspaceURL: string;
  /** The URLs the export's endpoint slice lists (one per shard hosting bindings; none before the first binding). */
  endpointURLs: string[];
  resources: { group: string; resource: string; schema: string }[];
  /** Bindings seen through the virtual workspace; null when they cannot be read. */
  bindings: number | null;
  /** Per `<resource>.<group>`: schema name → number of bindings serving it. */
  bindingsBySchema: Record<string, Record<string, number>> | null;
}

export async function runExportList(session: Session, io: Io, opts: { output?: OutputFormat }): Promise<void> {
  const path = currentPath(session.config.connection.server);
  const exports = await listExports(session.client, path);
  const summaries = await Promise.all(exports.map((e) => summarize(session, path, e)));
  if (opts.output) {
    await printData(io, opts.output, { workspace: path, exports: summaries });
    return;
  }
  if (summaries.length === 0) {
    io.out(`No APIExports in workspace '${path}'. Create one with: kcpt export NAME -f crd.yaml\n`);
    return;
  }
  io.out(renderExportTable(summaries));
}

async function summarize(session: Session, path: string, exported: APIExport): Promise<ExportSummary> {
  const name = exported.metadata.name;
  const url = computedVirtualWorkspaceUrl(session.client.baseUrl, await exportCluster(session.client, path, exported), name);
  const resources = (exported.spec?.resources ?? []).map((r) => ({ group: r.group, resource: r.name, schema: r.schema }));
  const endpointURLs = ((await getEndpointSlice(session.client, path, name))?.status?.endpoints ?? []).map((e) => e.url);
  const bindings = await bindingsThroughEndpoints(session, endpointURLs.length > 0 ? endpointURLs : [url]);
  let bindingsBySchema: ExportSummary['bindingsBySchema'] = null;
  if (bindings) {
    bindingsBySchema = {};
    for (const b of bindings) {
      for (const r of b.status?.boundResources ?? []) {
        const key = `${r.resource}.${r.group}`;
        const schema = r.schema?.name ?? '';
        const counts = (bindingsBySchema[key] ??= {});
        counts[schema] = (counts[schema] ?? 0) + 1;
      }
    }
  }
  return { name, export: `${path}:${name}`, virtualWorkspaceURL: url, endpointURLs, resources, bindings: bindings?.length ?? null, bindingsBySchema };
}

/**
 * The APIBindings to this export in every consumer, through each of its virtual workspace URLs (those under the
 * server this session talks to), or undefined when one of them refuses or is absent.
 */
async function bindingsThroughEndpoints(session: Session, urls: string[]): Promise<APIBinding[] | undefined> {
  const base = session.client.baseUrl;
  const reachable = urls.filter((u) => u.startsWith(`${base}/`));
  if (reachable.length === 0) return undefined;
  const perUrl = await Promise.all(reachable.map((u) => bindingsThroughVirtualWorkspace(session, u.slice(base.length))));
  if (perUrl.some((b) => b === undefined)) return undefined;
  // A binding is served by the shard hosting its workspace only; the same one twice would be one URL listed twice.
  const seen = new Map<string, APIBinding>();
  for (const b of perUrl.flat() as APIBinding[]) seen.set(`${b.metadata.annotations?.['kcp.io/cluster'] ?? ''}/${b.metadata.name}`, b);
  return [...seen.values()];
}

async function bindingsThroughVirtualWorkspace(session: Session, vwPath: string): Promise<APIBinding[] | undefined> {
  try {
    const list = await session.client.get<List<APIBinding>>(`${vwPath}/clusters/*/apis/apis.kcp.io/v1alpha2/apibindings`);
    return list.items ?? [];
  } catch (err) {
    if (err instanceof ApiError && (err.notFound || err.forbidden)) return undefined;
    throw err;
  }
}

/** One row per exported resource, and one more per older schema that bindings still serve. */
export function renderExportTable(summaries: ExportSummary[]): string {
  const rows: string[][] = [];
  for (const s of summaries) {
    if (s.resources.length === 0) rows.push([s.name, '-', '-', s.bindings === null ? '-' : String(s.bindings)]);
    s.resources.forEach((r, i) => {
      const key = `${r.resource}.${r.group}`;
      const counts = s.bindingsBySchema ? (s.bindingsBySchema[key] ?? {}) : undefined;
      rows.push([i === 0 ? s.name : '', key, r.schema, counts ? String(counts[r.schema] ?? 0) : '-']);
      for (const [schema, n] of Object.entries(counts ?? {})) {
        if (schema !== r.schema) rows.push(['', '', schema, `${n} (not yet rolled to ${r.schema})`]);
      }
    });
  }
  const urls = summaries.map((s) => `${s.export}  ${s.virtualWorkspaceURL}`);
  return `${formatTable(['EXPORT', 'RESOURCE', 'SCHEMA', 'BINDINGS'], rows)}\nVirtual workspaces:\n${urls.map((u) => `  ${u}`).join('\n')}\n`;
}
