/**
 * A tree row is drawn as one line of text (LineRow, cheap for Ink to lay out) when its text is one column per
 * character, else as Ink boxes (BoxRow). Both must put the same characters, styles included, in the same cells.
 */
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import chalk from 'chalk';
import type { ReactElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RowWidths } from '../model/layout.js';
import { BoxRow, LineRow, type RowCells } from './TreePane.js';

const widths: RowWidths = { name: 20, type: 8, phase: 12 };

function drawn(row: ReactElement): string {
  // The pane's inner width: the row's columns and their two spaces.
  const app = render(<Box width={widths.name + widths.type + widths.phase + 2}>{row}</Box>);
  const frame = app.lastFrame() ?? '';
  app.unmount();
  return frame;
}

describe('tree rows', () => {
  let level: typeof chalk.level;
  beforeAll(() => {
    // Styles are part of what is compared: colours, dim and the cursor's inverse.
    level = chalk.level;
    chalk.level = 1;
  });
  afterAll(() => {
    chalk.level = level;
  });

  const base: RowCells = { label: '▸ team-a', type: 'universal', phase: 'Ready', colour: 'green', inverse: false };
  const cases: Record<string, RowCells> = {
    'a short row': base,
    'the selected row': { ...base, inverse: true },
    'a name exactly as wide as its column': { ...base, label: `▸ ${'n'.repeat(18)}` },
    'a name too long for its column (cut with …)': { ...base, label: `    ▾ ${'long-name-'.repeat(4)}`, inverse: true },
    'a type too long for its column': { ...base, type: 'organization' },
    'no type and no phase': { ...base, label: '· leaf', type: '', phase: '', colour: 'gray' },
    'a phase as wide as its column': { ...base, phase: 'Initializing', colour: 'yellow' },
  };
  for (const [what, cells] of Object.entries(cases)) {
    it(`as one line draws what the boxes draw: ${what}`, () => {
      const line = drawn(<LineRow cells={cells} widths={widths} />);
      expect(line).toBe(drawn(<BoxRow cells={cells} widths={widths} />));
      if (cells.phase) expect(line).toContain('\u001B[');
    });
  }
});
