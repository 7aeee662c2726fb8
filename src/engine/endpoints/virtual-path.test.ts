import { describe, expect, it } from 'vitest';
import { parseVirtualWorkspacePath } from './virtual-path.js';

describe('parseVirtualWorkspacePath', () => {
  it('names a lifecycle virtual workspace with one segment', () => {
    expect(parseVirtualWorkspacePath('/services/initializingworkspaces/root:org:init/clusters/*/apis')).toEqual({
      workspace: 'initializingworkspaces',
      name: 'root:org:init',
      remainder: '/clusters/*/apis',
    });
  });

  it('names the APIExport virtual workspace with the export workspace and the export', () => {
    expect(parseVirtualWorkspacePath('/services/apiexport/root:provider/widgets/clusters/*/api/v1/configmaps')).toEqual({
      workspace: 'apiexport',
      name: 'root:provider/widgets',
      remainder: '/clusters/*/api/v1/configmaps',
    });
    // An export may be called "clusters".
    expect(parseVirtualWorkspacePath('/services/apiexport/abc/clusters/clusters/c1/apis')?.name).toBe('abc/clusters');
  });

  it('refuses paths without the export name or the clusters part', () => {
    expect(parseVirtualWorkspacePath('/services/apiexport/root:provider/clusters/*/apis')).toBeUndefined();
    expect(parseVirtualWorkspacePath('/services/apiexport/root:provider/clusters')).toBeUndefined();
    expect(parseVirtualWorkspacePath('/clusters/root/api')).toBeUndefined();
  });
});
