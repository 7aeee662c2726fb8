/** Pick one of a few choices: ↑/↓ (or k/j) move, Enter picks, Esc cancels. */
import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import type { KeySink } from '../keys.js';
import { visibleWindow } from '../model/tree.js';
import { accent } from '../theme.js';

export interface Choice<T> {
  label: string;
  detail?: string;
  value: T;
}

export interface ChoicePromptProps<T> {
  title: string;
  choices: Choice<T>[];
  onPick(value: T): void;
  onCancel(): void;
  /** Lines the list may use. */
  height: number;
  /** Receives this prompt's key handler (see KeySink). */
  keys: KeySink;
}

export function ChoicePrompt<T>({ title, choices, onPick, onCancel, height, keys }: ChoicePromptProps<T>) {
  const [at, setAt] = useState(0);
  // The highlighted index as of the last key of a burst (`jj⏎` picks the third choice).
  const picked = useRef(0);
  const go = (i: number) => {
    picked.current = Math.max(0, Math.min(choices.length - 1, i));
    setAt(picked.current);
  };
  keys.current = (input, key) => {
    if (key.escape) onCancel();
    else if (key.return && choices[picked.current]) onPick(choices[picked.current].value);
    else if (key.downArrow || input === 'j') return go(picked.current + 1);
    else if (key.upArrow || input === 'k') return go(picked.current - 1);
    else return;
    return true;
  };
  const first = useRef(0);
  const { start, end } = visibleWindow(choices.length, at, height - 1, first.current);
  first.current = start;
  return (
    <Box flexDirection="column">
      <Text color={accent} bold>
        {title}
      </Text>
      {choices.slice(start, end).map((c, i) => (
        <Text key={c.label} inverse={start + i === at} wrap="truncate">
          {`${start + i === at ? '›' : ' '} ${c.label}`}
          {c.detail ? <Text dimColor>{`  ${c.detail}`}</Text> : null}
        </Text>
      ))}
    </Box>
  );
}
