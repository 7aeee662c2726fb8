/**
 * `kcpt ws tree`: the workspaces below the current one (or `-w`), drawn like kcp's plugin (treeprint: a `.` line,
 * then `├──`/`└──` branches; labels are workspace names, or `parent:child` paths with --full). Workspaces being
 * deleted are skipped; mounted ones are leaves labelled `<name> [mount]`. --wide adds `ws=<Workspace phase>` and
 * `lc=<LogicalCluster phase>` columns.
 *
 * Where the workspace index answers with every workspace (a user who enters everywhere), the whole tree comes from
 * that one request, and `lc=` is the Workspace's phase (the workspace controller moves both in one commit). Otherwise
 * (kcp, or a user who sees only what they may enter) it is listed level by level, children of a level concurrently.
 */
import type { Io } from '../common/io.js';
import type { KubeClient } from '../../client/http-client.js';
import { limiter, type Limiter } from '../../client/limiter.js';
import { printData, type OutputFormat } from '../common/output.js';
import type { Session } from '../common/session.js';
import { baseName, parseClusterUrl } from '../../client/workspace-path.js';
import { beingDeleted, listChildren, listEveryWorkspace, logicalClusterPhase, typeString, type Workspace } from '../../client/workspace-api.js';

export interface TreeOptions {
  full: boolean;
  wide: boolean;
  output?: OutputFormat;
}

export interface TreeNode {
  name: string;
  path: string;
  type?: string;
  phase?: string;
  logicalClusterPhase?: string;
  mount?: boolean;
  children: TreeNode[];
}

const concurrency = 16;

export async function showTree(session: Session, io: Io, opts: TreeOptions): Promise<void> {
  const server = session.config.connection.server;
  let current = parseClusterUrl(server)?.path;
  if (!current) {
    io.err(`Warning: current context URL ${JSON.stringify(server)} does not point directly to a kcp workspace (may be a mount). Showing tree from root.\n`);
    current = 'root';
  }
  const limit = limiter(concurrency);
  const root: TreeNode = { name: opts.full ? current : baseName(current), path: current, children: [] };
  const [fromIndex, phase] = await Promise.all([
    fillFromIndex(session.client, root, opts),
    opts.wide ? logicalClusterPhase(session.client, current) : undefined,
  ]);
  if (!fromIndex) await populate(session.client, root, opts, limit);
  if (opts.wide) root.logicalClusterPhase = phase;
  if (opts.output) {
    await printData(io, opts.output, root);
    return;
  }
  // kcp prints treeprint's string (which ends in a newline) with Println: the tree ends with an empty line.
  io.out(`${renderTree(root, opts.wide)}\n`);
}

/** Fills the tree below `root` from one listing of every workspace; false where the index cannot give that. */
async function fillFromIndex(client: KubeClient, root: TreeNode, opts: TreeOptions): Promise<boolean> {
  // Text output shows names and phases only: the index's Table is enough. Structured output carries each type.
  const every = await listEveryWorkspace(client, { slim: !opts.output });
  if (!every) return false;
  const byParent = new Map<string, { ws: Workspace; path: string }[]>();
  let known = root.path === 'root';
  for (const ws of every) {
    const path = ws.metadata.annotations?.['kcp.io/path'];
    const at = path?.lastIndexOf(':') ?? -1;
    if (!path || at < 0) return false;
    if (path === root.path) known = true;
    const parent = path.slice(0, at);
    const siblings = byParent.get(parent);
    if (siblings) siblings.push({ ws, path });
    else byParent.set(parent, [{ ws, path }]);
  }
  // A cluster name in the URL, or a workspace the index does not hold (a system cluster): list level by level.
  if (!known) return false;
  const attach = (node: TreeNode) => {
    node.children = (byParent.get(node.path) ?? [])
      .filter(({ ws }) => !beingDeleted(ws))
      // The order a per-level LIST gives: by name (storage key order).
      .sort(({ ws: a }, { ws: b }) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
      // The index names each workspace's path: no need to parse it out of spec.URL.
      .map(({ ws, path }) => childNode(node, ws, opts.full, path));
    for (const child of node.children) {
      if (opts.wide) child.logicalClusterPhase = child.phase;
      if (!child.mount) attach(child);
    }
  };
  attach(root);
  return true;
}

async function populate(client: KubeClient, node: TreeNode, opts: TreeOptions, limit: Limiter): Promise<void> {
  const children = await limit(() => listChildren(client, node.path));
  node.children = children
    .filter((ws) => !beingDeleted(ws))
    .map((ws) => childNode(node, ws, opts.full));
  await Promise.all(
    node.children.map(async (child) => {
      if (opts.wide && !child.mount) child.logicalClusterPhase = await limit(() => logicalClusterPhase(client, child.path));
      if (!child.mount) await populate(client, child, opts, limit);
    }),
  );
}

function childNode(parent: TreeNode, ws: Workspace, full: boolean, knownPath?: string): TreeNode {
  const label = full ? `${parent.name}:${ws.metadata.name}` : ws.metadata.name;
  const path = knownPath ?? parseClusterUrl(ws.spec?.URL ?? '')?.path;
  const type = typeString(ws.spec?.type);
  const phase = ws.status?.phase;
  if (!path) {
    if (ws.spec?.mount) return { name: `${label} [mount]`, path: `${parent.path}:${ws.metadata.name}`, type, phase, mount: true, children: [] };
    throw new Error(`current config context URL ${JSON.stringify(ws.spec?.URL ?? '')} does not point to workspace`);
  }
  return { name: label, path, type, phase, children: [] };
}

/** treeprint's drawing of one branch (the current workspace) under a `.` root. */
export function renderTree(root: TreeNode, wide: boolean): string {
  const lines = ['.'];
  const label = (n: TreeNode) => (wide ? `${n.name}\tws=${n.phase || '-'}\tlc=${n.logicalClusterPhase || 'Unknown'}` : n.name);
  const walk = (node: TreeNode, prefix: string, last: boolean) => {
    lines.push(`${prefix}${last ? '└── ' : '├── '}${label(node)}`);
    const childPrefix = prefix + (last ? '    ' : '│   ');
    node.children.forEach((c, i) => walk(c, childPrefix, i === node.children.length - 1));
  };
  walk(root, '', true);
  return `${lines.join('\n')}\n`;
}

