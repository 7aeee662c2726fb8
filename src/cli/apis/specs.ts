/**
 * `kcpt export …` and `kcpt bind` as command specs (run by oclif or by bin/run.js's fast path). Cheap to import:
 * each run loads its implementation with `await import()`. Arguments are checked before any kubeconfig is read, so
 * a usage mistake exits 2 with kcp's message even without a server.
 */
import type { CommandSpec, FlagSpec, FlagValues } from '../common/command-spec.js';
import { UsageError } from '../common/errors.js';
import { connectionFlags, workspaceFlag } from '../common/connection-flags.js';
import { dataOutputs, objectOutputs, outputFlag, outputOf } from '../common/output.js';

const output = (flags: FlagValues) => outputOf(flags, dataOutputs);
const strings = (value: FlagValues[string]) => (Array.isArray(value) ? value : typeof value === 'string' ? [value] : undefined);

const filenameFlag: FlagSpec = {
  name: 'filename',
  char: 'f',
  kind: 'string',
  multiple: true,
  description: 'A file with CustomResourceDefinitions (multi-document YAML or JSON), or - for stdin. Repeatable.',
};

export const exportSnapshotSpec: CommandSpec = {
  id: 'export snapshot',
  summary: 'Convert CRDs into APIResourceSchemas and print them (kubectl kcp crd snapshot).',
  description: 'Each schema is named <prefix>.<plural>.<group> and followed by a --- line; nothing is sent to a server.',
  examples: ['<%= config.bin %> export snapshot -f crd.yaml --prefix v1', '<%= config.bin %> export snapshot -f - --prefix today -o json < crds.yaml'],
  args: [],
  flags: [
    filenameFlag,
    { name: 'prefix', kind: 'string', description: "Prefix to use for the APIResourceSchema's name, before <resource>.<group>." },
    outputFlag(objectOutputs, 'Default: yaml.'),
  ],
  async run({ flags, io }) {
    const files = strings(flags.filename);
    const prefix = flags.prefix as string | undefined;
    const missing = [...(files?.length ? [] : ['--filename is required']), ...(prefix ? [] : ['--prefix is required'])];
    if (missing.length > 0) throw new UsageError(missing.length === 1 ? missing[0]! : `[${missing.join(', ')}]`);
    const format = outputOf(flags, objectOutputs) ?? { kind: 'yaml' };
    const [{ readCrdFiles }, { crdToSchema, renderSchemas }, { printObjects }] = await Promise.all([
      import('./crd-files.js'),
      import('./snapshot.js'),
      import('../common/output.js'),
    ]);
    const schemas = readCrdFiles(files).map((crd) => crdToSchema(crd, prefix!));
    if (format.kind === 'yaml' || format.kind === 'json') io.out(await renderSchemas(schemas, format.kind));
    else await printObjects(io, format, schemas);
  },
};

export const exportSpec: CommandSpec = {
  id: 'export',
  summary: 'Export CRDs from the current workspace as an API other workspaces can bind (APIResourceSchemas + an APIExport).',
  description:
    'Creates the APIExport NAME or rolls it to the new schemas, and prints its reference (<path>:<name>, for kcpt bind) and its virtual ' +
    'workspace URL. Without --prefix, schemas are named v<YYMMDD>-<content hash>.<plural>.<group>: an unchanged CRD keeps its schema.',
  examples: [
    '<%= config.bin %> export widgets -f crd.yaml',
    '<%= config.bin %> export shop -f orders.yaml -f carts.yaml -w :root:provider',
    '<%= config.bin %> export list',
    '<%= config.bin %> export init my-provider',
  ],
  args: [{ name: 'name', description: 'Name of the APIExport.', required: true }],
  flags: [
    filenameFlag,
    { name: 'prefix', kind: 'string', description: 'Prefix of the schema names instead of v<YYMMDD>-<content hash>.' },
    workspaceFlag,
    outputFlag(),
    ...connectionFlags,
  ],
  async run({ args, flags, io }) {
    if (!strings(flags.filename)?.length) throw new UsageError('--filename is required');
    const format = output(flags);
    const [{ withSession }, { runExport, checkExportName }] = await Promise.all([import('../common/session.js'), import('./export.js')]);
    checkExportName(args.name!);
    await withSession(flags, (s) =>
      runExport(s, io, { name: args.name!, files: strings(flags.filename), prefix: flags.prefix as string | undefined, output: format }),
    );
  },
};

export const exportListSpec: CommandSpec = {
  id: 'export list',
  summary: 'List the APIExports of the current workspace: resources, schemas, bindings per schema, virtual workspace URLs.',
  examples: ['<%= config.bin %> export list', '<%= config.bin %> export list -w :root:provider -o json'],
  args: [],
  flags: [workspaceFlag, outputFlag(), ...connectionFlags],
  async run({ flags, io }) {
    const format = output(flags);
    const [{ withSession }, { runExportList }] = await Promise.all([import('../common/session.js'), import('./export-list.js')]);
    await withSession(flags, (s) => runExportList(s, io, { output: format }));
  },
};

export const exportInitSpec: CommandSpec = {
  id: 'export init',
  summary: 'Create a starter API-provider project: a CRD, a sample object and a TypeScript controller for every consumer.',
  examples: ['<%= config.bin %> export init', '<%= config.bin %> export init my-provider', '<%= config.bin %> export init my-provider --kcpt-dependency ^0.1.0'],
  args: [{ name: 'dir', description: 'Directory to create (default: api-provider); must not exist or be empty.' }],
  flags: [
    outputFlag(),
    {
      name: 'kcpt-dependency',
      kind: 'string',
      description: "The project's kcpt dependency (default: file: this kcpt's directory, as a checkout or a tarball install is not in the registry); e.g. ^0.1.0 for the registry's.",
    },
  ],
  async run({ args, flags, io }) {
    const { runExportInit } = await import('./init.js');
    await runExportInit(io, { dir: args.dir, output: output(flags), kcptDependency: flags['kcpt-dependency'] as string | undefined });
  },
};

export const bindSpec: CommandSpec = {
  id: 'bind',
  summary: 'Bind an APIExport into the current workspace (kubectl kcp bind apiexport) and wait until it is bound.',
  description:
    "Fails at once when the APIBinding's conditions say why it cannot bind (no such export, a naming conflict), showing what it " +
    'waits for meanwhile; an APIBinding it created that did not bind is deleted again.',
  examples: [
    '<%= config.bin %> bind root:provider:widgets',
    '<%= config.bin %> bind root:my-service:my-export --name my-binding --accept-permission-claim secrets.core,configmaps.core',
    '<%= config.bin %> bind root:my-service:my-export --reject-all-permission-claims --timeout 1m',
  ],
  args: [{ name: 'export', description: 'The APIExport: <workspace path>:<export name>.' }],
  flags: [
    { name: 'name', kind: 'string', description: 'Name of the APIBinding to create (default: the export name).' },
    { name: 'timeout', kind: 'string', description: 'How long to wait for the APIBinding to be bound, e.g. 30s or 2m (default 30s).' },
    {
      name: 'accept-permission-claim',
      kind: 'string',
      multiple: true,
      description: 'Permission claims to accept: resource.group[,…] (core for the core group). Repeatable.',
    },
    { name: 'reject-permission-claim', kind: 'string', multiple: true, description: 'Permission claims to reject: resource.group[,…]. Repeatable.' },
    { name: 'accept-all-permission-claims', kind: 'boolean', description: 'Accept all permission claims from the APIExport.' },
    { name: 'reject-all-permission-claims', kind: 'boolean', description: 'Reject all permission claims from the APIExport.' },
    { name: 'ignore-existing', kind: 'boolean', description: 'Succeed when an APIBinding of that name for the same export already exists (waits until it is bound).' },
    workspaceFlag,
    outputFlag(objectOutputs, 'Then progress lines go to stderr.'),
    ...connectionFlags,
  ],
  async run({ args, flags, io }) {
    const format = outputOf(flags, objectOutputs);
    const { checkClaimFlagCombinations, claimsFromFlags, parseExportReference, parseTimeout } = await import('./bind-args.js');
    const claimFlags = {
      accept: strings(flags['accept-permission-claim']),
      reject: strings(flags['reject-permission-claim']),
      acceptAll: flags['accept-all-permission-claims'] === true,
      rejectAll: flags['reject-all-permission-claims'] === true,
    };
    // kcp's order: the missing argument, the flag combinations, the reference's path, then the claims.
    if (args.export) checkClaimFlagCombinations(claimFlags);
    const reference = parseExportReference(args.export);
    const claims = claimsFromFlags(claimFlags);
    const timeoutMs = parseTimeout(flags.timeout as string | undefined);
    const [{ withSession }, { runBind }] = await Promise.all([import('../common/session.js'), import('./bind.js')]);
    await withSession(flags, (s) =>
      runBind(s, io, { reference, name: flags.name as string | undefined, timeoutMs, claims, acceptAll: claimFlags.acceptAll, rejectAll: claimFlags.rejectAll, ignoreExisting: flags['ignore-existing'] === true, output: format }),
    );
  },
};

export const apisSpecs: CommandSpec[] = [exportSpec, exportSnapshotSpec, exportListSpec, exportInitSpec, bindSpec];
