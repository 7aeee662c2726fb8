/**
 * `kcpt ws create NAME`: kcp's `kubectl create workspace`. Creates the Workspace in the current workspace (or
 * `-w`), waits up to a minute for phase Ready with kcp's messages, then optionally creates a context for it
 * (--create-context) and/or enters it (--enter). kcp's plugin polls every 500 ms; a kcpt workspace is usually Ready
 * within milliseconds, so the wait watches the workspace instead and returns on the event that makes it Ready.
 */
import { ApiError } from '../../client/errors.js';
import { CliError } from '../common/errors.js';
import type { Io } from '../common/io.js';
import { printObjects, type OutputFormat } from '../common/output.js';
import { withProgress } from '../common/progress.js';
import type { Session } from '../common/session.js';
import { parseClusterUrl } from '../../client/workspace-path.js';
import { runCreateContext } from './create-context.js';
import { parseLabelSelector } from './label-selector.js';
import { useWorkspace } from './use.js';
import { createWorkspace, getWorkspace, parseTypeFlag, typeString, watchWorkspace, type TypeReference, type Workspace } from '../../client/workspace-api.js';

export interface CreateOptions {
  name: string;
  type?: string;
  enter: boolean;
  ignoreExisting: boolean;
  locationSelector?: string;
  createContext?: string;
  output?: OutputFormat;
  readyTimeoutMs?: number;
}

export async function createWorkspaceCommand(session: Session, io: Io, opts: CreateOptions): Promise<void> {
  const server = session.config.connection.server;
  const parsed = parseClusterUrl(server);
  if (!parsed) throw new CliError(`current URL "${server}" does not point to a workspace`);
  const parent = parsed.path;
  if (opts.ignoreExisting && opts.type && !(opts.type === 'root' || opts.type.startsWith('root:'))) {
    throw new CliError('--ignore-existing must not be used with non-absolute type path');
  }
  const type = opts.type ? parseTypeFlag(opts.type) : undefined;
  const body: Workspace = {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name: opts.name },
    spec: {
      ...(type ? { type } : {}),
      ...(opts.locationSelector ? { location: { selector: parseLabelSelector(opts.locationSelector) } } : {}),
    },
  };
  // With -o, the object is the output and the progress lines go to stderr.
  const say = (line: string) => (opts.output ? io.err(line) : io.out(line));

  let ws: Workspace;
  let preExisting = false;
  try {
    ws = await createWorkspace(session.client, parent, body);
  } catch (err) {
    if (!(err instanceof ApiError && err.alreadyExists && opts.ignoreExisting)) throw err;
    preExisting = true;
    ws = await getWorkspace(session.client, parent, opts.name);
  }
  const reference = `Workspace "${opts.name}" (type ${typeString(ws.spec?.type) ?? ''})`;
  const ready = () => ws.status?.phase === 'Ready';
  if (preExisting) {
    const existing = ws.spec?.type;
    if (type && ((existing?.name && existing.name !== type.name) || (existing?.path ?? '') !== (type.path ?? ''))) {
      throw new CliError(
        `workspace "${opts.name}" cannot be created with type ${typeString(type)}, it already exists with different type ${typeString(existing)}`,
      );
    }
    say(ready() ? `${reference} already exists.\n` : `${reference} already exists. Waiting for it to be ready...\n`);
  } else if (!ready()) {
    say(`${reference} created. Waiting for it to be ready...\n`);
  }

  if (!ready()) {
    ws = await withProgress(io, `Waiting for workspace "${opts.name}" to be ready`, () =>
      waitForReady(session, parent, ws, opts.readyTimeoutMs ?? 60_000),
    );
  }
  say(`${reference} is ready to use.\n`);
  if (opts.output) await printObjects(io, opts.output, ws);

  if (opts.createContext) {
    await runCreateContext(session.config, { ...io, out: say }, {
      name: opts.createContext,
      overwrite: opts.ignoreExisting,
      url: ws.spec?.URL,
      keepCurrent: !opts.enter,
    });
    return;
  }
  if (opts.enter) {
    await useWorkspace(session, opts.output ? { ...io, out: say } : io, { name: `:${parent}:${opts.name}`, short: false });
  }
}

/**
 * Watches the workspace from the resourceVersion of the object the create (or get) answered with, so no change in
 * between is missed, and returns it on the first event that shows it Ready. A watch the server ends is resumed from
 * the last event seen; one whose resourceVersion has been compacted away (410 Gone) resumes from a fresh GET.
 */
export async function waitForReady(session: Session, parent: string, seen: Workspace, timeoutMs: number): Promise<Workspace> {
  const name = seen.metadata.name;
  const deadline = Date.now() + timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = () => new CliError(`timed out waiting for workspace "${name}" to be ready: context deadline exceeded`);
  let resourceVersion = seen.metadata.resourceVersion;
  for (;;) {
    try {
      const timeoutSeconds = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
      for await (const { type, object } of watchWorkspace(session.client, parent, name, { resourceVersion, timeoutSeconds, signal })) {
        resourceVersion = object.metadata?.resourceVersion ?? resourceVersion;
        if (type === 'DELETED') throw new CliError(`workspace "${name}" was deleted before it became ready`);
        if (type !== 'BOOKMARK' && object.status?.phase === 'Ready') return object;
      }
    } catch (err) {
      if (signal.aborted) throw timedOut();
      if (!(err instanceof ApiError && err.status === 410)) throw err;
      const current = await getWorkspace(session.client, parent, name);
      if (current.status?.phase === 'Ready') return current;
      resourceVersion = current.metadata.resourceVersion;
    }
    if (Date.now() >= deadline) throw timedOut();
  }
}
