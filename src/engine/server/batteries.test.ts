import { describe, expect, it } from 'vitest';
import { parseBatteries } from './batteries.js';

const sorted = (s: Set<string>) => [...s].sort();

describe('--batteries-included', () => {
  it('takes a full list as it is, and nothing as no batteries', () => {
    expect(sorted(parseBatteries(['admin', 'metrics-viewer']))).toEqual(['admin', 'metrics-viewer']);
    expect(sorted(parseBatteries([]))).toEqual([]);
  });

  it('applies +x,-y to the default admin,workspace-types', () => {
    expect(sorted(parseBatteries(['+user', '+metrics-viewer']))).toEqual(['admin', 'metrics-viewer', 'user', 'workspace-types']);
    expect(sorted(parseBatteries(['-workspace-types']))).toEqual(['admin']);
  });

  it("refuses mixing, unknown names and user without admin, with kcp's messages", () => {
    expect(() => parseBatteries(['admin', '+user'])).toThrow('--batteries-included must all be prefixed with + or - or none');
    expect(() => parseBatteries(['+user', 'admin'])).toThrow('--batteries-included must all be prefixed with + or - or none');
    expect(() => parseBatteries(['admin', 'cluster-workspace-types'])).toThrow('unknown battery: cluster-workspace-types');
    expect(() => parseBatteries(['user'])).toThrow('battery user enabled which requires admin as well');
    expect(() => parseBatteries(['+user', '-admin'])).toThrow('battery user enabled which requires admin as well');
  });
});
