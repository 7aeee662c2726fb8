/** The left pane: the visible slice of the tree rows, one line each: marker, name, type, coloured phase. */
import { Box, Text } from 'ink';
import type { Row } from '../model/tree.js';
import { accent, phaseColour } from '../theme.js';

export interface TreePaneProps {
  rows: Row[];
  start: number;
  end: number;
  cursor: number;
  width: number;
  height: number;
  filter: string;
}

export function TreePane({ rows, start, end, cursor, width, height, filter }: TreePaneProps) {
  const inner = Math.max(10, width - 4);
  const typeWidth = Math.min(14, Math.floor(inner / 4));
  const phaseWidth = 12;
  const nameWidth = Math.max(4, inner - typeWidth - phaseWidth - 2);
  const title = `Workspaces ${rows.length > end - start ? `${start + 1}-${end}/${rows.length}` : `(${rows.length})`}${filter ? ` /${filter}` : ''}`;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={accent} width={width} height={height + 2} paddingX={1}>
      <Text bold wrap="truncate">
        {title}
      </Text>
      {rows.slice(start, end).map((row, i) => {
        const at = start + i === cursor;
        const marker = row.node.mount ? '◆' : row.loading ? '…' : !row.expandable ? '·' : row.expanded ? '▾' : '▸';
        const label = `${'  '.repeat(row.depth)}${marker} ${row.node.name}${row.node.mount ? ' [mount]' : ''}`;
        const phase = row.node.deleting ? 'Deleting' : (row.node.phase ?? '');
        return (
          <Box key={row.node.path}>
            <Box width={nameWidth}>
              <Text inverse={at} wrap="truncate">
                {label}
              </Text>
            </Box>
            <Box width={typeWidth} marginLeft={1}>
              <Text dimColor wrap="truncate">
                {shortType(row.node.type)}
              </Text>
            </Box>
            <Box width={phaseWidth} marginLeft={1}>
              <Text color={phaseColour(row.node.phase, row.node.deleting)} wrap="truncate">
                {row.error ? 'error' : phase}
              </Text>
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

/** `root:universal` → `universal`: the tree has no room for the type's workspace; the details pane has it. */
function shortType(type: string | undefined): string {
  if (!type) return '';
  return type.slice(type.lastIndexOf(':') + 1);
}
