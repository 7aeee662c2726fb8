import { describe, expect, it } from 'vitest';
import { sliceStatus, withShardEndpoint } from './endpoint-slice-controller.js';

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

describe('endpoint URLs of several shards', () => {
  const mine = 'https://shard-1:6443/services/apiexport/abc123/widgets';
  const other = { url: 'https://shard-2:6443/services/apiexport/abc123/widgets' };

  it('adds and removes only this shard’s URL, keeping the others', () => {
    expect(withShardEndpoint([other], mine, true)).toEqual([other, { url: mine }]);
    expect(withShardEndpoint([other, { url: mine }], mine, true)).toEqual([other, { url: mine }]);
    expect(withShardEndpoint([{ url: mine }, other], mine, false)).toEqual([other]);
  });

  it('drops the URL of a shard that no longer exists', () => {
    const gone = { url: 'https://gone:6443/services/apiexport/abc123/widgets' };
    const status = sliceStatus({ status: { endpoints: [other, gone] } }, target, true, false, base, ['https://shard-2:6443', base]);
    expect(status.endpoints).toEqual([other]);
    expect(sliceStatus({ status: { endpoints: [other, gone] } }, target, true, false, base).endpoints).toEqual([other, gone]);
  });

  it('the export’s shard keeps the URLs other shards published while it hosts no binding', () => {
    const status = sliceStatus({ status: { endpoints: [other] } }, target, true, false, base);
    expect(status.endpoints).toEqual([other]);
    expect(sliceStatus({ status: { endpoints: [other] } }, target, true, true, base).endpoints).toEqual([other, { url: `${base}/services/apiexport/abc123/widgets` }]);
  });
});
