/**
 * The terminal's rows and columns, followed as it is resized: the browser lays itself out for them, so a resize
 * redraws it at the new size at once, not at the next key.
 */
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export interface TerminalSize {
  rows: number;
  columns: number;
}

/** `fixed`, when given, is used instead (tests draw at chosen sizes). */
export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout));
  useEffect(() => {
    const resized = () => setSize((was) => {
      const now = sizeOf(stdout);
      return now.rows === was.rows && now.columns === was.columns ? was : now;
    });
    stdout.on('resize', resized);
    // A resize between the first frame and this subscription.
    resized();
    return () => {
      stdout.off('resize', resized);
    };
  }, [stdout]);
  return fixed ?? size;
}

function sizeOf(stdout: NodeJS.WriteStream): TerminalSize {
  return { rows: stdout.rows || 24, columns: stdout.columns || 100 };
}
