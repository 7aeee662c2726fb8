import { describe, expect, it } from 'vitest';
import type { TablePrinter } from '../registry/types.js';
import { printerShowingDeletion } from './workspace-index-table.js';

const printer: TablePrinter = {
  columns: [
    { name: 'Name', type: 'string' },
    { name: 'Phase', type: 'string' },
  ],
  cells: (obj) => [obj.metadata?.name ?? '', (obj.status as { phase?: string } | undefined)?.phase ?? null],
};

describe('printerShowingDeletion', () => {
  const shown = printerShowingDeletion(printer);
  const ws = (phase: string | undefined, deletionTimestamp?: string) => ({ metadata: { name: 'w', deletionTimestamp }, status: { phase } });

  it('prints a workspace whose deletion has begun as Deleting until the controller moved its phase', () => {
    expect(shown.cells(ws('Ready', '2026-11-24T10:00:00Z'), 0)).toEqual(['w', 'Deleting']);
    expect(shown.cells(ws(undefined, '2026-11-24T10:00:00Z'), 0)).toEqual(['w', 'Deleting']);
  });

  it('keeps the phase the controller wrote, and every live workspace as it is', () => {
    expect(shown.cells(ws('Terminating', '2026-11-24T10:00:00Z'), 0)).toEqual(['w', 'Terminating']);
    expect(shown.cells(ws('Ready'), 0)).toEqual(['w', 'Ready']);
    expect(shown.cells(ws('Initializing'), 0)).toEqual(['w', 'Initializing']);
  });

  it('leaves a printer without a Phase column alone', () => {
    const bare: TablePrinter = { columns: [{ name: 'Name', type: 'string' }], cells: (obj) => [obj.metadata?.name ?? ''] };
    expect(printerShowingDeletion(bare)).toBe(bare);
  });
});
