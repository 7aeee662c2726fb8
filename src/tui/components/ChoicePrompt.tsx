/**
 * Pick one of a list: ↑/↓ move, Enter picks, Esc cancels. Without a filter k/j move too; with one (`filterable`),
 * typed text narrows the list to the choices whose label and detail hold every word typed, Backspace erases, and Esc
 * clears the filter before it cancels.
 */
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
  /** Lines the prompt may use. */
  height: number;
  /** Receives this prompt's key handler (see KeySink). */
  keys: KeySink;
  /** Typing narrows the list. */
  filterable?: boolean;
  /** A line under the title (what the list holds, what was left out). */
  note?: string;
}

/** The choices holding every word of `filter` in their label or detail, case aside. */
export function matching<T>(choices: Choice<T>[], filter: string): Choice<T>[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return choices;
  return choices.filter((c) => {
    const text = `${c.label} ${c.detail ?? ''}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

export function ChoicePrompt<T>({ title, choices, onPick, onCancel, height, keys, filterable = false, note }: ChoicePromptProps<T>) {
  const [at, setAt] = useState(0);
  const [filter, setFilter] = useState('');
  // The highlighted index and the filter as of the last key of a burst (`jj⏎` picks the third choice).
  const picked = useRef(0);
  const typed = useRef('');
  const shown = matching(choices, filter);
  const go = (i: number) => {
    picked.current = Math.max(0, Math.min(matching(choices, typed.current).length - 1, i));
    setAt(picked.current);
  };
  const narrow = (next: string) => {
    typed.current = next;
    setFilter(next);
    go(0);
  };
  keys.current = (input, key) => {
    if (key.escape) {
      if (filterable && typed.current) return narrow('');
      onCancel();
    } else if (key.return) {
      const choice = matching(choices, typed.current)[picked.current];
      if (!choice) return;
      onPick(choice.value);
    } else if (key.downArrow || (!filterable && input === 'j')) return go(picked.current + 1);
    else if (key.upArrow || (!filterable && input === 'k')) return go(picked.current - 1);
    else if (filterable && (key.backspace || key.delete)) return narrow(typed.current.slice(0, -1));
    else if (filterable && input && !key.ctrl && !key.meta && !key.tab) return narrow(typed.current + input);
    else return;
    return true;
  };
  const header = 1 + (note ? 1 : 0) + (filterable ? 1 : 0);
  const first = useRef(0);
  const { start, end } = visibleWindow(shown.length, at, height - header, first.current);
  first.current = start;
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text color={accent} bold wrap="truncate">
        {title}
      </Text>
      {note ? (
        <Text dimColor wrap="truncate">
          {note}
        </Text>
      ) : null}
      {filterable ? (
        <Text wrap="truncate">
          <Text color={accent}>filter: </Text>
          {filter}
          <Text inverse> </Text>
          <Text dimColor>{filter ? `  ${shown.length} of ${choices.length}` : '  type to narrow, ↑/↓ move, Enter picks, Esc cancels'}</Text>
        </Text>
      ) : null}
      {shown.slice(start, end).map((c, i) => (
        <Text key={c.label} inverse={start + i === at} wrap="truncate">
          {`${start + i === at ? '›' : ' '} ${c.label}`}
          {c.detail ? <Text dimColor>{`  ${c.detail}`}</Text> : null}
        </Text>
      ))}
      {filterable && shown.length === 0 ? <Text dimColor>{`nothing matches "${filter}"`}</Text> : null}
    </Box>
  );
}
