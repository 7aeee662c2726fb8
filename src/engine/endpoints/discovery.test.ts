import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../builtin/index.js';
import { StaticCatalog } from '../registry/catalog.js';
import { aggregatedDiscovery, legacyAPIGroupList, legacyResourceList } from './discovery.js';

/** `<groupVersion>/<resource>[/<subresource>]` of every resource a document lists, as client-go flattens them. */
function aggregatedNames(catalog: StaticCatalog): string[] {
  const names: string[] = [];
  for (const legacyCore of [true, false]) {
    for (const group of aggregatedDiscovery(catalog, legacyCore, 'v2').items) {
      for (const v of group.versions) {
        const gv = group.metadata.name ? `${group.metadata.name}/${v.version}` : v.version;
        for (const r of v.resources as { resource: string; subresources?: { subresource: string }[] }[]) {
          names.push(`${gv}/${r.resource}`, ...(r.subresources ?? []).map((s) => `${gv}/${r.resource}/${s.subresource}`));
        }
      }
    }
  }
  return names.sort();
}

function legacyNames(catalog: StaticCatalog): string[] {
  const gvs = ['v1', ...legacyAPIGroupList(catalog).groups.flatMap((g) => g.versions.map((v) => v.groupVersion))];
  return gvs
    .flatMap((gv) => {
      const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
      return (legacyResourceList(catalog, group!, version!)!.resources as { name: string }[]).map((r) => `${gv}/${r.name}`);
    })
    .sort();
}

describe('discovery', () => {
  // client-go's ServerGroupsAndResources gives the same answer whichever format the server speaks.
  it('lists the same resources and subresources aggregated and legacy (namespaces/finalize included)', () => {
    const catalog = new StaticCatalog(builtinResourceTypes(), 't');
    const aggregated = aggregatedNames(catalog);
    expect(aggregated).toEqual(legacyNames(catalog));
    expect(aggregated).toContain('v1/namespaces/finalize');
    expect(aggregated).toContain('v1/serviceaccounts/token');
  });
});
