/** `?`: every key the browser knows, in the right pane. */
import { Box, Text } from 'ink';
import { accent } from '../theme.js';

export const keyHelp: [string, string][] = [
  ['↑/↓  k/j', 'move (PgUp/PgDn a page, g/G first/last)'],
  ['→  l  space', 'expand (lists the children; again: step in)'],
  ['←  h', 'collapse, or go to the parent'],
  ['Enter', "use the workspace (as 'kcpt ws use') and exit"],
  ['c', 'create a child workspace (name, then type)'],
  ['d', 'delete the workspace (type its name to confirm)'],
  ['b', 'bind an APIExport into the workspace'],
  ['/', 'filter the loaded rows by name (Esc clears)'],
  ['r', 'refresh: relist every open level and the details'],
  ['?', 'this help (any key closes it)'],
  ['q  Esc  Ctrl-C', 'quit without switching'],
];

export function HelpPane({ width, height }: { width: number; height: number }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={accent} width={width} height={height + 2} paddingX={1}>
      <Text bold color={accent}>
        Keys
      </Text>
      {keyHelp.map(([keys, what]) => (
        <Text key={keys} wrap="truncate">
          <Text bold>{keys.padEnd(16)}</Text>
          {what}
        </Text>
      ))}
    </Box>
  );
}
