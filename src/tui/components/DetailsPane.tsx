/**
 * The right pane: everything about the selected workspace, live where the watches feed it. A value too long for
 * the pane continues on the next lines, under itself; the URL has a line of its own below the panes (UrlLine).
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { APIBinding } from '../../client/apis-api.js';
import type { Workspace } from '../../client/workspace-api.js';
import type { WorkspaceDetails } from '../data/workspace-source.js';
import type { WorkspaceNode } from '../model/tree.js';
import { accent, phaseColour } from '../theme.js';

export interface DetailsPaneProps {
  node: WorkspaceNode;
  /** The Workspace as last seen (a watch event or the details request). */
  workspace?: Workspace;
  details?: WorkspaceDetails;
  bindings?: APIBinding[];
  bindingsError?: string;
  width: number;
  height: number;
}

const ownerAnnotation = 'experimental.tenancy.kcp.io/owner';
/** The labels' column: `Initializers` and a space. */
const labelWidth = 13;

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

export function DetailsPane({ node, workspace, details, bindings, bindingsError, width, height }: DetailsPaneProps) {
  const status = (workspace?.status ?? {}) as { phase?: string; conditions?: Condition[]; initializers?: string[] };
  const meta = workspace?.metadata as (Workspace['metadata'] & { creationTimestamp?: string }) | undefined;
  const phase = node.deleting ? 'Deleting' : (node.phase ?? status.phase);
  const lines: ReactNode[] = [];
  const field = (label: string, value: ReactNode, key = label) =>
    lines.push(
      <Box key={key} flexShrink={0}>
        <Box width={labelWidth} flexShrink={0}>
          <Text dimColor>{label}</Text>
        </Box>
        <Box flexGrow={1} flexShrink={1}>
          <Text wrap="wrap">{value}</Text>
        </Box>
      </Box>,
    );
  field('Path', node.path);
  field('Cluster', node.cluster ?? workspace?.spec?.cluster ?? '—');
  field('Type', node.type ?? '—');
  field('Phase', <Text color={phaseColour(phase, node.deleting)}>{phase ?? '—'}</Text>);
  field('Created', meta?.creationTimestamp ?? '—');
  field('Owner', ownerOf(meta?.annotations?.[ownerAnnotation]));
  field('Initializers', status.initializers?.length ? status.initializers.join(', ') : 'none');
  if (details?.workspaceError) field('Workspace', <Text color="red">{details.workspaceError}</Text>);
  for (const [i, c] of (status.conditions ?? []).entries()) {
    field(
      i === 0 ? 'Conditions' : '',
      <Text>
        <Text color={c.status === 'True' ? 'green' : 'yellow'}>{`${c.type}=${c.status}`}</Text>
        {c.reason ? ` ${c.reason}` : ''}
        {c.message ? <Text dimColor>{` ${c.message}`}</Text> : null}
      </Text>,
      `condition-${c.type}`,
    );
  }
  field('Children', details ? String(details.children ?? '—') : '…');
  const counts = details?.counts.map((c) => `${c.resource} ${c.count ?? '—'}`).join('  ');
  field('Objects', counts ?? '…');
  lines.push(
    <Text key="bindings-title" color={accent} bold wrap="truncate">
      {`APIBindings${bindings ? ` (${bindings.length})` : ''}`}
    </Text>,
  );
  if (bindingsError) lines.push(<Text key="bindings-error" color="red" wrap="wrap">{bindingsError}</Text>);
  else if (!bindings) lines.push(<Text key="bindings-loading" dimColor>…</Text>);
  else if (bindings.length === 0) lines.push(<Text key="bindings-none" dimColor>none</Text>);
  for (const b of bindings ?? []) {
    const ref = b.spec?.reference?.export;
    lines.push(
      <Text key={`binding-${b.metadata.name}`} wrap="wrap">
        {`${b.metadata.name} `}
        <Text color={phaseColour(b.status?.phase)}>{b.status?.phase || 'Pending'}</Text>
        <Text dimColor>{` ← ${ref?.path ? `${ref.path}:` : ''}${ref?.name ?? ''}`}</Text>
      </Text>,
    );
  }
  return (
    <DetailsFrame width={width} height={height}>
      {lines}
    </DetailsFrame>
  );
}

/** The selected workspace's URL: where its kubeconfig points, as the server has it or as kcpt builds it. */
export function workspaceUrl(node: WorkspaceNode, workspace: Workspace | undefined, serverUrl: string): string {
  return node.url ?? workspace?.spec?.URL ?? `${serverUrl}/clusters/${node.path}`;
}

/**
 * The pane's border, empty until given its lines: the browser's first frame draws it empty (the tree is what a person
 * waits for; the details follow in the next frame, a few milliseconds later).
 */
export function DetailsFrame({ width, height, children }: { width: number; height: number; children?: ReactNode }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" width={width} height={height + 2} paddingX={1} overflow="hidden">
      {/* At its own height (overflowing the frame, which cuts it), so that no line is squeezed to fit. */}
      <Box flexDirection="column" flexShrink={0}>
        {children}
      </Box>
    </Box>
  );
}

/** The owner annotation holds kcp's user info as JSON: show the user name. */
function ownerOf(annotation: string | undefined): string {
  if (!annotation) return '—';
  try {
    return (JSON.parse(annotation) as { username?: string }).username ?? annotation;
  } catch {
    return annotation;
  }
}
