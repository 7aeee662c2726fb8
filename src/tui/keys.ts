/**
 * Ink hands a burst of typed text (a paste, keys sent faster than a frame, tmux send-keys) to useInput as one string;
 * these split it back into single keys, Enter included, so `jj` moves twice and `name⏎` submits `name`.
 */
import type { Key } from 'ink';

/** Calls `handler` once per key of the burst; stops early when it returns true (the key changed what has focus). */
export function eachKey(input: string, key: Key, handler: (input: string, key: Key) => boolean | void): void {
  const special = key.ctrl || key.meta || key.escape || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow;
  if (input.length <= 1 || special) {
    handler(input, key);
    return;
  }
  for (const ch of input) {
    const stop = ch === '\r' || ch === '\n' ? handler('', { ...key, return: true }) : handler(ch, key);
    if (stop === true) return;
  }
}


/** Handles one key; true when it changed what has focus (the rest of a burst is dropped). */
export type KeyHandler = (input: string, key: Key) => boolean | void;

/**
 * Where the browser's one input subscription sends keys while a prompt is open. A prompt sets it while it renders,
 * so a key that arrives right after the prompt's first frame reaches it (a per-component useInput subscribes only
 * in an effect, after the frame is out, and would let such keys fall through).
 */
export interface KeySink {
  current?: KeyHandler;
}
