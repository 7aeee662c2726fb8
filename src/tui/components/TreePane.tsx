/** The left pane: the visible slice of the tree rows, one line each: marker, name, type, coloured phase. */
import { Box, Text } from 'ink';
import type { Row } from '../model/tree.js';
import { accent, phaseColour, type Colour } from '../theme.js';

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
  const widths: RowWidths = { name: nameWidth, type: typeWidth, phase: phaseWidth };
  // The columns and the spaces between them fill the pane's inner width at most (true from 30 columns up).
  const lineFits = nameWidth + typeWidth + phaseWidth + 2 <= inner;
  const title = `Workspaces ${rows.length > end - start ? `${start + 1}-${end}/${rows.length}` : `(${rows.length})`}${filter ? ` /${filter}` : ''}`;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={accent} width={width} height={height + 2} paddingX={1}>
      <Text bold wrap="truncate">
        {title}
      </Text>
      {rows.slice(start, end).map((row, i) => {
        const at = start + i === cursor;
        const marker = row.node.mount ? '◆' : row.loading ? '…' : !row.expandable ? '·' : row.expanded ? '▾' : '▸';
        const cells: RowCells = {
          label: `${'  '.repeat(row.depth)}${marker} ${row.node.name}${row.node.mount ? ' [mount]' : ''}`,
          type: shortType(row.node.type),
          phase: row.error ? 'error' : row.node.deleting ? 'Deleting' : (row.node.phase ?? ''),
          colour: phaseColour(row.node.phase, row.node.deleting),
          inverse: at,
        };
        return oneColumnPerCell(cells) && lineFits ? <LineRow key={row.node.path} cells={cells} widths={widths} /> : <BoxRow key={row.node.path} cells={cells} widths={widths} />;
      })}
    </Box>
  );
}

export interface RowCells {
  label: string;
  type: string;
  phase: string;
  colour: Colour;
  inverse: boolean;
}

export interface RowWidths {
  name: number;
  type: number;
  phase: number;
}

/** Printable ASCII and the row markers: one terminal column per character (names, types and phases are DNS labels). */
const narrowText = /^[\x20-\x7E◆…·▾▸]*$/;

function oneColumnPerCell({ label, type, phase }: RowCells): boolean {
  return narrowText.test(label) && narrowText.test(type) && narrowText.test(phase);
}

/**
 * A row as one line of text, its columns cut and padded here: one Ink node to lay out and draw per row instead of
 * seven, which is most of what the first frame costs. It draws exactly what BoxRow draws.
 */
export function LineRow({ cells, widths }: { cells: RowCells; widths: RowWidths }) {
  const label = fit(cells.label, widths.name);
  const type = fit(cells.type, widths.type);
  return (
    <Text>
      <Text inverse={cells.inverse}>{label}</Text>
      {' '.repeat(widths.name - label.length + 1)}
      <Text dimColor>{type}</Text>
      {' '.repeat(widths.type - type.length + 1)}
      <Text color={cells.colour}>{fit(cells.phase, widths.phase)}</Text>
    </Text>
  );
}

/** Ink's wrap="truncate" for text of one column per character: the first width−1 characters and an ellipsis. */
function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** A row whose text may hold wide or combining characters: Ink measures and truncates each column. */
export function BoxRow({ cells, widths }: { cells: RowCells; widths: RowWidths }) {
  return (
    <Box>
      <Box width={widths.name}>
        <Text inverse={cells.inverse} wrap="truncate">
          {cells.label}
        </Text>
      </Box>
      <Box width={widths.type} marginLeft={1}>
        <Text dimColor wrap="truncate">
          {cells.type}
        </Text>
      </Box>
      <Box width={widths.phase} marginLeft={1}>
        <Text color={cells.colour} wrap="truncate">
          {cells.phase}
        </Text>
      </Box>
    </Box>
  );
}

/** `root:universal` → `universal`: the tree has no room for the type's workspace; the details pane has it. */
function shortType(type: string | undefined): string {
  if (!type) return '';
  return type.slice(type.lastIndexOf(':') + 1);
}
