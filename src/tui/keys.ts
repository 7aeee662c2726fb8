/**
 * Ink hands a burst of typed text (a paste, keys sent faster than a frame, tmux send-keys) to useInput as one string;
 * these split it back into single keys, Enter included, so `jj` moves twice and `name⏎` submits `name`.
 */
import type { Key } from 'ink';

/** Calls `handler` once per key of the burst, in order. */
export function eachKey(input: string, key: Key, handler: (input: string, key: Key) => void): void {
  const special = key.ctrl || key.meta || key.escape || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow;
  if (input.length <= 1 || special) {
    handler(input, key);
    return;
  }
  for (const ch of input) {
    // Erasing keys keep their meaning inside a burst, as Ink gives them alone (DEL is its `delete`, BS its `backspace`).
    if (ch === '\r' || ch === '\n') handler('', { ...key, return: true });
    else if (ch === '\x7f') handler('', { ...key, delete: true });
    else if (ch === '\b') handler('', { ...key, backspace: true });
    else handler(ch, key);
  }
}


/** Handles one key; true when it changed what has focus (the keys after it wait for the next frame). */
export type KeyHandler = (input: string, key: Key) => boolean | void;

/**
 * Where the browser's one input subscription sends keys while a prompt is open. A prompt sets it while it renders,
 * so a key that arrives right after the prompt's first frame reaches it (a per-component useInput subscribes only
 * in an effect, after the frame is out, and would let such keys fall through).
 */
export interface KeySink {
  current?: KeyHandler;
}
