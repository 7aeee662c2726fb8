import { describe, expect, it } from 'vitest';
import { boundStoragePrefix, exportLabelValue } from './names.js';

describe('apis names', () => {
  it('labels a binding with base62(sha224("<export cluster>:<export>")), kcp’s vector', () => {
    expect(exportLabelValue('root-org-workspaceName', 'someExport')).toBe('avKSFa3bDPry0NIAl3ECroTdaXPBY1dHReOilE');
  });

  it('stores bound objects under the export identity', () => {
    expect(boundStoragePrefix('example.com', 'widgets', 'abc')).toBe('example.com/widgets:abc');
    expect(boundStoragePrefix('', 'configmaps', 'abc')).toBe('core/configmaps:abc');
  });
});
