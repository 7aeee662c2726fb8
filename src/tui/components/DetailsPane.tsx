/** The right pane: everything about the selected workspace, live where the watches feed it. */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { APIBinding } from '../../cli/apis/apis-api.js';
import type { Workspace } from '../../cli/ws/workspace-api.js';
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
  serverUrl: string;
  width: number;
  height: number;
}

const ownerAnnotation = 'experimental.tenancy.kcp.io/owner';

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

export function DetailsPane({ node, workspace, details, bindings, bindingsError, serverUrl, width, height }: DetailsPaneProps) {
  const status = (workspace?.status ?? {}) as { phase?: string; conditions?: Condition[]; initializers?: string[] };
  const meta = workspace?.metadata as (Workspace['metadata'] & { creationTimestamp?: string }) | undefined;
  const phase = node.deleting ? 'Deleting' : (node.phase ?? status.phase);
  const lines: ReactNode[] = [];
  const field = (label: string, value: ReactNode, key = label) =>
    lines.push(
      <Text key={key} wrap="truncate">
        <Text dimColor>{label.padEnd(13)}</Text>
        {value}
      </Text>,
    );
  field('Path', node.path);
  field('Cluster', node.cluster ?? workspace?.spec?.cluster ?? '—');
  field('URL', node.url ?? workspace?.spec?.URL ?? `${serverUrl}/clusters/${node.path}`);
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
    <Text key="bindings-title" color={accent} bold>
      {`APIBindings${bindings ? ` (${bindings.length})` : ''}`}
    </Text>,
  );
  if (bindingsError) lines.push(<Text key="bindings-error" color="red" wrap="truncate">{bindingsError}</Text>);
  else if (!bindings) lines.push(<Text key="bindings-loading" dimColor>…</Text>);
  else if (bindings.length === 0) lines.push(<Text key="bindings-none" dimColor>none</Text>);
  for (const b of bindings ?? []) {
    const ref = b.spec?.reference?.export;
    lines.push(
      <Text key={`binding-${b.metadata.name}`} wrap="truncate">
        {`${b.metadata.name} `}
        <Text color={phaseColour(b.status?.phase)}>{b.status?.phase || 'Pending'}</Text>
        <Text dimColor>{` ← ${ref?.path ? `${ref.path}:` : ''}${ref?.name ?? ''}`}</Text>
      </Text>,
    );
  }
  return (
    <DetailsFrame width={width} height={height}>
      {lines.slice(0, height)}
    </DetailsFrame>
  );
}

/**
 * The pane's border, empty until given its lines: the browser's first frame draws it empty (the tree is what a person
 * waits for; the details follow in the next frame, a few milliseconds later).
 */
export function DetailsFrame({ width, height, children }: { width: number; height: number; children?: ReactNode }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" width={width} height={height + 2} paddingX={1} overflow="hidden">
      {children}
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
