import { describe, expect, it } from 'vitest';
import { sliceStatus } from './endpoint-slice-controller.js';

const target = { cluster: 'abc123', name: 'widgets', path: 'root:provider' };
const base = 'https://127.0.0.1:6443';

describe('endpoint slice status', () => {
  it('has the virtual workspace URL of the export’s cluster only while something binds the export', () => {
    const bound = sliceStatus({}, target, true, true, base);
    expect(bound.endpoints).toEqual([{ url: 'https://127.0.0.1:6443/services/apiexport/abc123/widgets' }]);
    expect(sliceStatus({}, target, true, false, base).endpoints).toBeUndefined();
  });

  it('says APIExportNotFound (and publishes nothing) while the export is missing', () => {
    const status = sliceStatus({}, target, false, false, base);
    expect((status.conditions as Array<Record<string, string>>)[0]).toMatchObject({
      type: 'APIExportValid',
      status: 'False',
      severity: 'Error',
      reason: 'APIExportNotFound',
      message: 'Error getting APIExport root:provider|widgets',
    });
    expect(status.endpoints).toBeUndefined();
  });

  it('keeps transition times of unchanged conditions', () => {
    const previous = { status: { conditions: [{ type: 'APIExportValid', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }] } };
    const status = sliceStatus(previous, target, true, false, base);
    expect((status.conditions as Array<Record<string, string>>)[0]!.lastTransitionTime).toBe('2020-01-01T00:00:00Z');
  });
});
