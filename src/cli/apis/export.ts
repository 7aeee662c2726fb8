/**
 * `kcpt export NAME -f crd.yaml …`: publish CRDs as an API other workspaces can bind. In the current workspace it
 * creates the APIResourceSchemas (snapshots of the CRDs), then creates the APIExport NAME serving them or rolls it
 * to the new schemas, and prints the export's reference (`<path>:<name>`, what `kcpt bind` takes) and the URL of its
 * virtual workspace (where a provider's controller sees every consumer's objects).
 */
import { isDNS1123Subdomain } from '../../engine/machinery/validation.js';
import { ApiError } from '../../client/errors.js';
import { CliError, UsageError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printData, type OutputFormat } from '../common/output.js';
import type { Session } from '../common/session.js';
import { parseClusterUrl } from '../../client/workspace-path.js';
import { createExport, createSchema, getExport, listSchemas, updateExport, type APIExport } from '../../client/apis-api.js';
import { readCrdFiles } from './crd-files.js';
import { exportVirtualWorkspaceUrl } from './export-url.js';
import { planExport } from './export-plan.js';

export interface ExportOptions {
  name: string;
  files: string[] | undefined;
  prefix?: string;
  output?: OutputFormat;
}

export async function runExport(session: Session, io: Io, opts: ExportOptions): Promise<void> {
  const { client, config } = session;
  const path = currentPath(config.connection.server);
  checkExportName(opts.name);
  const crds = readCrdFiles(opts.files);

  const [existingSchemas, current] = await Promise.all([listSchemas(client, path), getExportIfAny(session, path, opts.name)]);
  const plan = planExport({ crds, prefix: opts.prefix, existingSchemas, currentResources: current?.spec?.resources, now: new Date() });
  const say = (line: string) => (opts.output ? io.err(line) : io.out(line));

  for (const { schema, exists } of plan.schemas) {
    if (exists) continue;
    try {
      await createSchema(client, path, schema);
    } catch (err) {
      // Another run created the same schema meanwhile: schemas are immutable and named by content, so it is ours.
      if (!(err instanceof ApiError && err.alreadyExists && opts.prefix === undefined)) throw err;
    }
    say(`apiresourceschema ${schema.metadata.name} created\n`);
  }

  let exported: APIExport;
  if (!current) {
    exported = await createExport(client, path, {
      apiVersion: 'apis.kcp.io/v1alpha2',
      kind: 'APIExport',
      metadata: { name: opts.name },
      spec: { resources: plan.resources },
    });
    say(`apiexport ${opts.name} created\n`);
  } else if (plan.changes.length > 0) {
    exported = await updateExport(client, path, { ...current, spec: { ...current.spec, resources: plan.resources } });
    for (const c of plan.changes) {
      if (!c.from) say(`apiexport ${opts.name}: ${c.resource} added (schema ${c.to})\n`);
      else if (!c.to) say(`apiexport ${opts.name}: ${c.resource} removed (was schema ${c.from})\n`);
      else say(`apiexport ${opts.name}: ${c.resource} rolled from ${c.from} to ${c.to}\n`);
    }
  } else {
    exported = current;
    say(`apiexport ${opts.name} unchanged\n`);
  }

  const url = await exportVirtualWorkspaceUrl(client, path, exported);
  const reference = `${path}:${opts.name}`;
  if (opts.output) {
    await printData(io, opts.output, {
      export: reference,
      virtualWorkspaceURL: url,
      resources: plan.resources.map((r) => ({ group: r.group, resource: r.name, schema: r.schema })),
      identityHash: exported.status?.identityHash,
    });
    return;
  }
  io.out(`Export: ${reference}\nVirtual workspace URL: ${url}\nBind it in another workspace with: kcpt bind ${reference}\n`);
}

async function getExportIfAny(session: Session, path: string, name: string): Promise<APIExport | undefined> {
  try {
    return await getExport(session.client, path, name);
  } catch (err) {
    if (err instanceof ApiError && err.notFound && err.body?.details?.name === name) return undefined;
    throw err;
  }
}

/** Checked before anything is created, so a bad name never leaves schemas behind without their export. */
export function checkExportName(name: string): void {
  const problems = isDNS1123Subdomain(name);
  if (problems.length > 0) throw new UsageError(`invalid APIExport name "${name}": ${problems.join(', ')}`);
}

export function currentPath(server: string): string {
  const parsed = parseClusterUrl(server);
  if (!parsed) throw new CliError(`current URL "${server}" does not point to workspace`);
  return parsed.path;
}
