/**
 * API sharing core, with the real kubectl, in an organization of the file's own: its `provider` exports a Widget API
 * (APIResourceSchema + APIExport written as YAML), `c1` and `c2` bind it and use it like a CRD (isolated objects,
 * tables, explain, server-side apply, validation); a local CRD of the same group/resource in `c3` coexists with the
 * binding in `c4`; a CRD and a binding in one workspace are refused in conditions; binding needs `bind` on the
 * export; the export rolls forward to a new schema with objects kept; deleting a binding deletes its objects.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { apply, binding, exportOf, schema, waitBound, widget, widgetCRD, widgetRows } from './api-bindings-fixtures.js';
import { apiExport, resourceSchema } from './apis-fixtures.js';
import { condition, createWorkspace, eventually, getJson, ownOrganization, users, useTenancyServer, type Json } from './tenancy-fixtures.js';

// The shared server: the provider and the consumers are children of an organization of this file's own (the restart
// case is in api-sharing-restart.test.ts, with a server of its own).
const e2e = useTenancyServer();
const at = (path: string) => e2e.at(path);
const org = ownOrganization(e2e, 'api-bindings');
const orgPath = org.path;
const p = org.child;

beforeAll(async () => {
  await org.create();
  for (const ws of ['provider', 'c1', 'c2', 'c3', 'c4', 'c5']) await createWorkspace(at(orgPath), ws);
  await apply(at(p('provider')), schema('v1.widgets.example.com', 'How big the widget is.'));
  await apply(at(p('provider')), exportOf('v1.widgets.example.com'));
}, 120_000);

describe('an APIExport', () => {
  it('gets an identity: the kcp-system/<export> secret and status.identityHash = sha256 of its key', async () => {
    const provider = at(p('provider'));
    const exp = await eventually('the identity', async () => {
      const e = await getJson(provider, ['apiexport', 'widgets']);
      return e.status?.identityHash ? e : undefined;
    });
    expect(exp.spec.identity.secretRef).toEqual({ namespace: 'kcp-system', name: 'widgets' });
    expect(condition(exp, 'IdentityValid')).toBe('True');
    expect(exp.metadata.annotations['kcp.io/path']).toBe(p('provider'));
    const secret = await getJson(provider, ['secret', 'widgets', '-n', 'kcp-system']);
    const key = Buffer.from(secret.data.key as string, 'base64');
    expect(key.length).toBe(32);
    expect(exp.status.identityHash).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('is served as v1alpha1 too, with latestResourceSchemas', async () => {
    const v1 = await getJson(at(p('provider')), ['apiexports.v1alpha1.apis.kcp.io', 'widgets']);
    expect(v1.apiVersion).toBe('apis.kcp.io/v1alpha1');
    expect(v1.spec.latestResourceSchemas).toEqual(['v1.widgets.example.com']);
    expect(v1.spec.resources).toBeUndefined();
  });

  it('keeps a schema it names from being deleted, and schemas are immutable', async () => {
    const provider = at(p('provider'));
    const del = await provider(['delete', 'apiresourceschema', 'v1.widgets.example.com'], { reject: false });
    expect(del.stderr.trim()).toBe(
      'Error from server (Forbidden): apiresourceschemas.apis.kcp.io "v1.widgets.example.com" is forbidden: APIResourceSchema is in use by APIExport(s): widgets',
    );
    const patch = await provider(['patch', 'apiresourceschema', 'v1.widgets.example.com', '--type=merge', '-p', '{"spec":{"scope":"Cluster"}}'], { reject: false });
    expect(patch.exitCode).not.toBe(0);
    expect(patch.stderr).toContain('Spec is immutable');
  });
});

describe('binding in c1 and c2', () => {
  beforeAll(async () => {
    for (const ws of [p('c1'), p('c2')]) {
      await apply(at(ws), binding(p('provider')));
      await waitBound(at(ws));
    }
  }, 60_000);

  it('reports kcp status: Bound, conditions, boundResources with the schema and identity', async () => {
    const b = await getJson(at(p('c1')), ['apibinding', 'widgets']);
    const exp = await getJson(at(p('provider')), ['apiexport', 'widgets']);
    const lc = await getJson(at(orgPath), ['workspace', 'provider']);
    expect(b.status.phase).toBe('Bound');
    expect(b.status.apiExportClusterName).toBe(lc.spec.cluster);
    for (const type of ['Ready', 'APIExportValid', 'InitialBindingCompleted', 'BindingUpToDate']) expect(condition(b, type)).toBe('True');
    expect(b.status.boundResources).toEqual([
      {
        group: 'example.com',
        resource: 'widgets',
        schema: { name: 'v1.widgets.example.com', UID: expect.any(String), identityHash: exp.status.identityHash },
        storageVersions: ['v1'],
      },
    ]);
    expect(b.metadata.annotations['kcp.io/path']).toBe(p('c1'));
    const labelValue = (s: string) => {
      let n = BigInt(`0x${createHash('sha224').update(s).digest('hex')}`);
      let out = '';
      for (const digits = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'; n > 0n; n /= 62n) out = digits[Number(n % 62n)] + out;
      return out;
    };
    expect(b.metadata.labels['internal.apis.kcp.io/export']).toBe(labelValue(`${lc.spec.cluster}:widgets`));
    const table = await at(p('c1'))(['get', 'apibindings']);
    expect(table.stdout.split('\n')[0]!.split(/\s+/)).toEqual(['NAME', 'AGE', 'READY']);
  });

  it('serves the bound kind like a CRD: isolated objects, printer columns, explain, server-side apply, validation', async () => {
    const c1 = at(p('c1'));
    const c2 = at(p('c2'));
    await apply(c1, widget('one', 1));
    await apply(c2, widget('two', 2));
    expect(await widgetRows(c1)).toEqual(['one 1']);
    expect(await widgetRows(c2)).toEqual(['two 2']);
    expect((await c1(['get', 'widgets', '-n', 'default'])).stdout.split('\n')[0]!.split(/\s+/)).toEqual(['NAME', 'SIZE']);

    const explain = await c1(['explain', 'widgets.spec.size']);
    expect(explain.stdout).toContain('How big the widget is.');

    await apply(c1, widget('one', 5), ['--server-side']);
    expect(await widgetRows(c1)).toEqual(['one 5']);
    const managed = await getJson(c1, ['widget', 'one', '-n', 'default', '--show-managed-fields']);
    expect(managed.metadata.managedFields.map((m: Json) => m.manager)).toContain('kubectl');

    const bad = await apply(c1, widget('bad', 'big'), [], false);
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain('spec.size: Invalid value: "string": spec.size in body must be of type integer');

    const resources = await c1(['api-resources', '--api-group=example.com', '--no-headers']);
    expect(resources.stdout.trim().split(/\s+/)).toEqual(['widgets', 'example.com/v1', 'true', 'Widget']);
  });

  it('lists every consumer’s objects at the * wildcard as widgets:<identityHash>', async () => {
    const exp = await getJson(at(p('provider')), ['apiexport', 'widgets']);
    const items = await e2e.wildcardItems(`/clusters/*/apis/example.com/v1/widgets:${exp.status.identityHash}`);
    const names = items.map((i) => i.metadata.name).sort();
    expect(names).toEqual(expect.arrayContaining(['one', 'two']));
  });

  it('serves APIBinding v1alpha1 converted from the stored v1alpha2', async () => {
    const v1 = await getJson(at(p('c1')), ['apibindings.v1alpha1.apis.kcp.io', 'widgets']);
    expect(v1.apiVersion).toBe('apis.kcp.io/v1alpha1');
    expect(v1.spec.reference).toEqual({ export: { path: p('provider'), name: 'widgets' } });
  });

  it('refuses changing the export reference', async () => {
    const out = await at(p('c1'))(['patch', 'apibinding', 'widgets', '--type=merge', '-p', '{"spec":{"reference":{"export":{"name":"other"}}}}'], {
      reject: false,
    });
    expect(out.stderr.trim()).toBe('The APIBinding "widgets" is invalid: spec.reference: Invalid value: "object": APIExport reference must not be changed');
  });
});

describe('one owner per group/resource in a workspace', () => {
  it('a local CRD in c3 and a binding in c4 coexist with separate storage', async () => {
    const c3 = at(p('c3'));
    const c4 = at(p('c4'));
    await apply(c3, widgetCRD);
    await c3(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s']);
    await apply(c4, binding(p('provider')));
    await waitBound(c4);
    await apply(c3, widget('local', 3));
    await apply(c4, widget('bound', 4));
    expect(await widgetRows(c3)).toEqual(['local 3']);
    expect(await widgetRows(c4)).toEqual(['bound 4']);
  });

  it('a binding of what a local CRD serves is refused with NamingConflicts', async () => {
    const c3 = at(p('c3'));
    await apply(c3, binding(p('provider')));
    const b = await eventually('the conflict', async () => {
      const got = await getJson(c3, ['apibinding', 'widgets']);
      return condition(got, 'InitialBindingCompleted')?.includes('NamingConflicts') ? got : undefined;
    });
    expect(b.status.phase).toBe('Binding');
    expect(condition(b, 'Ready')).toBe(
      'False NamingConflicts Unable to bind APIs: naming conflict with CustomResourceDefinition "widgets.example.com" which serves widgets.example.com',
    );
    expect(await widgetRows(c3)).toEqual(['local 3']);
    await c3(['delete', 'apibinding', 'widgets']);
    expect(await widgetRows(c3)).toEqual(['local 3']);
  });

  it('a CRD of what a binding serves is not accepted (NamesAccepted=False) and never served', async () => {
    const c1 = at(p('c1'));
    await apply(c1, widgetCRD);
    const crd = await eventually('the CRD status', async () => {
      const got = await getJson(c1, ['crd', 'widgets.example.com']);
      return got.status?.conditions ? got : undefined;
    });
    expect(condition(crd, 'NamesAccepted')).toMatch(/^False \w+Conflict ".*" is already in use$/);
    expect(condition(crd, 'Established')?.startsWith('False')).toBe(true);
    expect(await widgetRows(c1)).toEqual(['one 5']);
    // Deleting the refused CRD leaves the binding's objects alone.
    await c1(['delete', 'crd', 'widgets.example.com']);
    expect(await widgetRows(c1)).toEqual(['one 5']);
  });
});

describe('permission to bind', () => {
  const u1 = users.user1;

  beforeAll(async () => {
    await at(p('c5'))(['create', 'clusterrolebinding', 'user-1-admin', '--clusterrole=cluster-admin', '--user=user-1']);
  });

  it('refuses a user without bind on the export with kcp’s message, and lets them once granted', async () => {
    const asUser = e2e.asUser(u1.token, p('c5'));
    const refused = await apply(asUser, binding(p('provider')), [], false);
    expect(refused.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "STDIN": apibindings.apis.kcp.io "widgets" is forbidden: unable to create APIBinding: no permission to bind to export ${p('provider')}:widgets`,
    );
    const provider = at(p('provider'));
    await apply(provider, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'bind-widgets' },
      rules: [{ apiGroups: ['apis.kcp.io'], resources: ['apiexports'], resourceNames: ['widgets'], verbs: ['bind'] }],
    });
    await provider(['create', 'clusterrolebinding', 'user-1-bind', '--clusterrole=bind-widgets', '--user=user-1']);
    await eventually('the grant', async () => ((await apply(asUser, binding(p('provider')), [], false)).exitCode === 0 ? true : undefined));
    await waitBound(asUser);
  });

  it('only the system writes the status of bindings', async () => {
    const out = await e2e.asUser(u1.token, p('c5'))(
      ['patch', 'apibinding', 'widgets', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":""}}'],
      { reject: false },
    );
    expect(out.exitCode).not.toBe(0);
    expect(out.stderr).toContain('forbidden');
  });

  it('reports an export that does not exist', async () => {
    const c5 = at(p('c5'));
    await apply(c5, binding(p('provider'), 'missing', 'nope'));
    const b = await eventually('APIExportValid', async () => {
      const got = await getJson(c5, ['apibinding', 'missing']);
      return condition(got, 'APIExportValid') ? got : undefined;
    });
    expect(condition(b, 'APIExportValid')).toBe(`False APIExportNotFound APIExport ${p('provider')}|nope not found`);
    expect(b.status.phase).toBe('');
  });
});

describe('waiting for what a binding needs', () => {
  it('binds as soon as the missing export and then its missing schema appear', async () => {
    const c5 = at(p('c5'));
    const provider = at(p('provider'));
    await apply(c5, binding(p('provider'), 'gadgets', 'gadgets'));
    await eventually('APIExportNotFound', async () =>
      condition(await getJson(c5, ['apibinding', 'gadgets']), 'APIExportValid')?.includes('APIExportNotFound') ? true : undefined,
    );
    await apply(provider, apiExport({ name: 'gadgets', group: 'example.com', plural: 'gadgets' }));
    const waiting = await eventually(
      'the missing schema reported',
      async () => {
        const b = await getJson(c5, ['apibinding', 'gadgets']);
        return condition(b, 'APIExportValid')?.includes('InternalError') ? b : undefined;
      },
      10_000,
    );
    expect(condition(waiting, 'APIExportValid')).toBe(
      'False InternalError Invalid APIExport. Please contact the APIExport owner to resolve: APIResourceSchema "v1.gadgets.example.com" not found',
    );
    await apply(provider, resourceSchema({ group: 'example.com', plural: 'gadgets', kind: 'Gadget' }));
    // Well before the 30 s safety retry: the schema's creation wakes the binding.
    await c5(['wait', '--for=jsonpath={.status.phase}=Bound', 'apibinding/gadgets', '--timeout=10s']);
  });
});

describe('rolling the export forward and deleting bindings', () => {
  it('points every binding at the new schema with objects kept', async () => {
    const provider = at(p('provider'));
    await apply(provider, schema('v2.widgets.example.com', 'Size in units.'));
    await apply(provider, exportOf('v2.widgets.example.com'));
    for (const ws of [p('c1'), p('c2'), p('c4')]) {
      await eventually(`${ws} on v2`, async () => {
        const b = await getJson(at(ws), ['apibinding', 'widgets']);
        return b.status.boundResources?.[0]?.schema.name === 'v2.widgets.example.com' ? b : undefined;
      });
    }
    expect(await widgetRows(at(p('c1')))).toEqual(['one 5']);
    expect(await widgetRows(at(p('c2')))).toEqual(['two 2']);
    await eventually('the new schema served', async () =>
      (await at(p('c1'))(['explain', 'widgets.spec.size'])).stdout.includes('Size in units.') ? true : undefined,
    );
    // The old schema is free now.
    await provider(['delete', 'apiresourceschema', 'v1.widgets.example.com']);
  });

  it('deleting a binding deletes its objects in that workspace only', async () => {
    const c2 = at(p('c2'));
    await c2(['delete', 'apibinding', 'widgets', '--timeout=30s']);
    const gone = await c2(['get', 'widgets', '-n', 'default'], { reject: false });
    expect(gone.exitCode).not.toBe(0);
    expect(gone.stderr).toMatch(/doesn't have a resource type "widgets"|could not find the requested resource/);
    await apply(c2, binding(p('provider')));
    await waitBound(c2);
    expect(await widgetRows(c2)).toEqual([]);
    expect(await widgetRows(at(p('c1')))).toEqual(['one 5']);
  });

  it('deleting a workspace deletes the objects of its bindings', async () => {
    const exp = await getJson(at(p('provider')), ['apiexport', 'widgets']);
    const wildcard = async () => {
      const items = await e2e.wildcardItems(`/clusters/*/apis/example.com/v1/widgets:${exp.status.identityHash}`);
      return items.map((i) => i.metadata.name as string).sort();
    };
    expect(await wildcard()).toContain('bound');
    await at(orgPath)(['delete', 'workspace', 'c4', '--timeout=60s']);
    await eventually('c4 gone', async () => ((await at(orgPath)(['get', 'workspace', 'c4'], { reject: false })).exitCode !== 0 ? true : undefined), 60_000);
    expect(await wildcard()).toEqual(['one']);
  });
});
