/** A one-line text input inside Ink: printable keys type, Backspace erases, Enter submits, Esc cancels. */
import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import type { KeySink } from '../keys.js';
import { accent } from '../theme.js';

export interface TextPromptProps {
  label: string;
  initial?: string;
  onSubmit(value: string): void;
  onCancel(): void;
  /** Called on every change (the filter applies as it is typed). */
  onChange?(value: string): void;
  hint?: string;
  /** Receives this prompt's key handler (see KeySink). */
  keys: KeySink;
}

export function TextPrompt({ label, initial = '', onSubmit, onCancel, onChange, hint, keys }: TextPromptProps) {
  const [value, setValue] = useState(initial);
  // The value as of the last key of a burst (state updates land after the whole burst).
  const typed = useRef(initial);
  const update = (next: string) => {
    typed.current = next;
    setValue(next);
    onChange?.(next);
  };
  keys.current = (input, key) => {
    if (key.escape || key.return) {
      if (key.escape) onCancel();
      else onSubmit(typed.current);
      return true;
    }
    if (key.backspace || key.delete) return update(typed.current.slice(0, -1));
    if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.tab) return;
    if (input) update(typed.current + input);
  };
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={accent} bold>
          {label}
        </Text>{' '}
        {value}
        <Text inverse> </Text>
      </Text>
      {hint ? <Text dimColor>{hint}</Text> : null}
    </Box>
  );
}
