/**
 * The left pane: the visible slice of the tree rows, one line each: marker and name, type, coloured phase. The names
 * come first: the columns are fitted by model/layout.ts, which gives way on the phase and the type before a name.
 */
import { Box, Text } from 'ink';
import { treeColumns, paneChrome, type RowText, type RowWidths } from '../model/layout.js';
import type { Row } from '../model/tree.js';
import { accent, phaseColour, type Colour } from '../theme.js';

export interface TreePaneProps {
  rows: Row[];
  /** What each row shows (rowText of each), the widths of every row, not only the visible ones, set the columns. */
  texts: RowText[];
  start: number;
  end: number;
  cursor: number;
  width: number;
  height: number;
  filter: string;
}

/** A row's text: indentation, marker and name; the type without its workspace; the phase (or why it has none). */
export function rowText(row: Row): RowText {
  const marker = row.node.mount ? '◆' : row.loading ? '…' : !row.expandable ? '·' : row.expanded ? '▾' : '▸';
  return {
    label: `${'  '.repeat(row.depth)}${marker} ${row.node.name}${row.node.mount ? ' [mount]' : ''}`,
    type: shortType(row.node.type),
    phase: row.error ? 'error' : row.node.deleting ? 'Deleting' : (row.node.phase ?? ''),
  };
}

export function TreePane({ rows, texts, start, end, cursor, width, height, filter }: TreePaneProps) {
  const inner = Math.max(1, width - paneChrome);
  const widths = treeColumns(texts, inner);
  const title = `Workspaces ${rows.length > end - start ? `${start + 1}-${end}/${rows.length}` : `(${rows.length})`}${filter ? ` /${filter}` : ''}`;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={accent} width={width} height={height + 2} paddingX={1} overflow="hidden">
      <Text bold wrap="truncate">
        {title}
      </Text>
      {rows.slice(start, end).map((row, i) => {
        const cells: RowCells = {
          ...texts[start + i],
          colour: phaseColour(row.node.phase, row.node.deleting),
          inverse: start + i === cursor,
        };
        return oneColumnPerCell(cells) ? <LineRow key={row.node.path} cells={cells} widths={widths} /> : <BoxRow key={row.node.path} cells={cells} widths={widths} />;
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
      {widths.type ? ' '.repeat(widths.name - label.length + 1) : null}
      {widths.type ? <Text dimColor>{type}</Text> : null}
      {widths.phase ? ' '.repeat((widths.type ? widths.type - type.length : widths.name - label.length) + 1) : null}
      {widths.phase ? <Text color={cells.colour}>{fit(cells.phase, widths.phase)}</Text> : null}
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
      {widths.type ? (
        <Box width={widths.type} marginLeft={1}>
          <Text dimColor wrap="truncate">
            {cells.type}
          </Text>
        </Box>
      ) : null}
      {widths.phase ? (
        <Box width={widths.phase} marginLeft={1}>
          <Text color={cells.colour} wrap="truncate">
            {cells.phase}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}

/** `root:universal` → `universal`: the tree has no room for the type's workspace; the details pane has it. */
function shortType(type: string | undefined): string {
  if (!type) return '';
  return type.slice(type.lastIndexOf(':') + 1);
}
