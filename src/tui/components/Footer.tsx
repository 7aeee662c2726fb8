/** The bottom two lines: the status line (server gone, errors, results of actions) and the keys. */
import { Text } from 'ink';

export interface Status {
  tone: 'error' | 'info';
  text: string;
}

export const footerKeys = '↑↓ move  → expand  ← collapse  ⏎ use  c create  d delete  b bind  / filter  r refresh  ? help  q quit';

export function StatusLine({ status, offline }: { status?: Status; offline?: string }) {
  if (offline) {
    return (
      <Text color="yellow" wrap="truncate">
        {`⚠ server unreachable (${offline}); retrying, the tree resumes when it answers`}
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

export function KeysLine() {
  return (
    <Text dimColor wrap="truncate">
      {footerKeys}
    </Text>
  );
}
