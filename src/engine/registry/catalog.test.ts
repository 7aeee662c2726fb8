import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../builtin/groups.js';
import { StaticCatalog } from './catalog.js';
import type { ResourceType } from './types.js';

describe('StaticCatalog.find', () => {
  const builtins = builtinResourceTypes();
  const catalog = new StaticCatalog(builtins, 't');

  it('finds each type by its group, version and resource, and nothing by the parts of another', () => {
    for (const rt of builtins) expect(catalog.find(rt.group, rt.version, rt.resource)).toBe(rt);
    expect(catalog.find('', 'v1', 'configmaps')?.kind).toBe('ConfigMap');
    expect(catalog.find('rbac.authorization.k8s.io', 'v1', 'roles')?.kind).toBe('Role');
    expect(catalog.find('rbac.authorization.k8s.io', 'v1', 'configmaps')).toBeUndefined();
    expect(catalog.find('', 'v1', 'roles')).toBeUndefined();
    expect(catalog.find('', 'rbac.authorization.k8s.io/v1', 'roles')).toBeUndefined();
    expect(catalog.find('rbac.authorization.k8s.io', 'v2', 'roles')).toBeUndefined();
    expect(catalog.find('', 'v1', 'configmap')).toBeUndefined();
  });

  it('keeps the last of two types given for the same group, version and resource', () => {
    const cm = builtins.find((rt) => rt.group === '' && rt.resource === 'configmaps')!;
    const other: ResourceType = { ...cm, kind: 'OtherConfigMap' };
    expect(new StaticCatalog([cm, other], 'x').find('', 'v1', 'configmaps')).toBe(other);
  });
});
