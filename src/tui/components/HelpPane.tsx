/**
 * `?`: every key the browser knows, across both panes. A description too long for the line continues under itself;
 * where the screen is too short for all of them, ↑/↓ (k/j) scroll and the title says which are shown.
 */
import { Box, Text } from 'ink';
import { wrapText } from '../model/layout.js';
import { accent } from '../theme.js';

export const keyHelp: [string, string][] = [
  ['↑/↓  k/j', 'move (PgUp/PgDn a page, g/G first/last)'],
  ['→  l  space', 'expand (lists the children; again: step in)'],
  ['←  h', 'collapse, or go to the parent'],
  ['Enter', "use the workspace (as 'kcpt ws use') and exit"],
  ['c', 'create a child workspace (name, then type)'],
  ['d', 'delete the workspace (type its name to confirm)'],
  ['b', 'bind an APIExport from any workspace you may enter (type to narrow)'],
  ['/', 'filter the loaded rows by name (Esc clears)'],
  ['r', 'refresh: relist every open level and the details'],
  ['?', 'this help (any other key closes it)'],
  ['q  Esc  Ctrl-C', 'quit without switching'],
];

const keysWidth = 16;

/** The entries shown from `first` on in a pane of `width` × `height` (borders included in neither). */
export function helpWindow(first: number, width: number, height: number): { start: number; end: number } {
  const describeWidth = Math.max(1, width - 4 - keysWidth);
  // Scrolled no further than the last screenful.
  let last = keyHelp.length;
  for (let used = 1; last > 0; last--) {
    used += wrapText(keyHelp[last - 1][1], describeWidth).length;
    if (used > height) break;
  }
  const start = Math.max(0, Math.min(first, last, keyHelp.length - 1));
  // The title takes a line.
  let used = 1;
  let end = start;
  while (end < keyHelp.length) {
    const lines = wrapText(keyHelp[end][1], describeWidth).length;
    if (used + lines > height && end > start) break;
    used += lines;
    end++;
  }
  return { start, end };
}

export function HelpPane({ first, width, height }: { first: number; width: number; height: number }) {
  const { start, end } = helpWindow(first, width, height);
  const describeWidth = Math.max(1, width - 4 - keysWidth);
  const all = start === 0 && end === keyHelp.length;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={accent} width={width} height={height + 2} paddingX={1} overflow="hidden">
      <Box flexDirection="column" flexShrink={0}>
        <Text bold color={accent} wrap="truncate">
          {all ? 'Keys' : `Keys ${start + 1}-${end} of ${keyHelp.length} (↑/↓ scroll)`}
        </Text>
        {keyHelp.slice(start, end).map(([keys, what]) => (
          <Box key={keys}>
            <Box width={keysWidth} flexShrink={0}>
              <Text bold>{keys}</Text>
            </Box>
            <Box flexDirection="column">
              {wrapText(what, describeWidth).map((line, i) => (
                <Text key={i}>{line}</Text>
              ))}
            </Box>
          </Box>
        ))}
      </Box>
    </Box>
  );
}
