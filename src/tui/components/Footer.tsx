/** Below the panes: the selected workspace's URL, the status line (server gone, errors, results of actions), the keys. */
import { Box, Text } from 'ink';
import type { Offline } from '../hooks/useLiveTree.js';
import { urlLabel } from '../model/layout.js';

export interface Status {
  tone: 'error' | 'info';
  text: string;
}

/**
 * The URL on lines of its own, no border around it: copied with the mouse it comes whole (a URL wider than the screen
 * continues on the next line, cut where the screen ends). `lines` is model/layout.ts's cut of `URL  <url>`.
 */
export function UrlLine({ lines }: { lines: string[] }) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      {lines.map((line, i) =>
        i === 0 && line.startsWith(urlLabel) ? (
          <Text key={i}>
            <Text dimColor>{urlLabel}</Text>
            {line.slice(urlLabel.length)}
          </Text>
        ) : (
          <Text key={i}>{line}</Text>
        ),
      )}
    </Box>
  );
}

export function StatusLine({ status, offline }: { status?: Status; offline?: Offline }) {
  if (offline) {
    return (
      <Text color="yellow" wrap="truncate">
        {`⚠ Reconnecting to the server (try ${offline.failedTries}, unreachable since ${clockTime(offline.since)}); the tree resumes when it answers: ${offline.reason}`}
      </Text>
    );
  }
  if (!status) return <Text> </Text>;
  return (
    <Text color={status.tone === 'error' ? 'red' : 'green'} wrap="truncate">
      {status.text}
    </Text>
  );
}

/** The keys, on as many lines as the screen's width needs (model/layout.ts wraps them). */
export function KeysLine({ lines }: { lines: string[] }) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      {lines.map((line, i) => (
        <Text key={i} dimColor>
          {line}
        </Text>
      ))}
    </Box>
  );
}

/** `13:51:20`, local time. */
function clockTime(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}
