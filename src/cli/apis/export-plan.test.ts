import { describe, expect, it } from 'vitest';
import { renderExportTable } from './export-list.js';
import { planExport } from './export-plan.js';
import { parseCrds } from '../../client/crd-manifests.js';

const crd = (plural: string, type = 'integer') =>
  parseCrds(
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.demo.kcpt.dev }
spec:
  group: demo.kcpt.dev
  names: { kind: K${plural}, plural: ${plural} }
  scope: Namespaced
  versions:
  - { name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object, properties: { size: { type: ${type} } } } } }
`,
    `${plural}.yaml`,
  )[0]!;

const now = new Date('2026-11-24T06:00:00Z');

describe('export plan', () => {
  it('a new export: one new schema per CRD, resources pointing at them', () => {
    const plan = planExport({ crds: [crd('widgets'), crd('gadgets')], existingSchemas: [], now });
    expect(plan.schemas.map((s) => [s.schema.metadata.name.replace(/-[0-9a-f]{8}\./, '-HASH.'), s.exists])).toEqual([
      ['v261124-HASH.widgets.demo.kcpt.dev', false],
      ['v261124-HASH.gadgets.demo.kcpt.dev', false],
    ]);
    expect(plan.resources[0]).toEqual({ group: 'demo.kcpt.dev', name: 'widgets', schema: plan.schemas[0]!.schema.metadata.name, storage: { crd: {} } });
    expect(plan.changes.map((c) => [c.resource, c.from])).toEqual([
      ['widgets.demo.kcpt.dev', undefined],
      ['gadgets.demo.kcpt.dev', undefined],
    ]);
  });

  it('exporting the same CRD again (another day) reuses its schema and changes nothing', () => {
    const first = planExport({ crds: [crd('widgets')], existingSchemas: [], now });
    const existing = first.schemas.map((s) => ({ ...s.schema, spec: { ...s.schema.spec, extraDefaultedByServer: true } as never }));
    const again = planExport({ crds: [crd('widgets')], existingSchemas: existing, currentResources: first.resources, now: new Date('2026-12-01T00:00:00Z') });
    expect(again.schemas.map((s) => [s.schema.metadata.name, s.exists])).toEqual([[first.schemas[0]!.schema.metadata.name, true]]);
    expect(again.changes).toEqual([]);
  });

  it('a changed CRD gets a new schema and the export rolls to it; a CRD left out is removed', () => {
    const first = planExport({ crds: [crd('widgets'), crd('gadgets')], existingSchemas: [], now });
    const existing = first.schemas.map((s) => s.schema);
    const rolled = planExport({ crds: [crd('widgets', 'string')], existingSchemas: existing, currentResources: first.resources, now });
    expect(rolled.schemas[0]!.exists).toBe(false);
    expect(rolled.changes).toEqual([
      { resource: 'widgets.demo.kcpt.dev', from: first.resources[0]!.schema, to: rolled.schemas[0]!.schema.metadata.name },
      { resource: 'gadgets.demo.kcpt.dev', from: first.resources[1]!.schema },
    ]);
  });

  it('with --prefix, an existing schema of that name must have the same content (schemas are immutable)', () => {
    const v1 = planExport({ crds: [crd('widgets')], prefix: 'v1', existingSchemas: [], now });
    expect(v1.schemas[0]!.schema.metadata.name).toBe('v1.widgets.demo.kcpt.dev');
    expect(planExport({ crds: [crd('widgets')], prefix: 'v1', existingSchemas: [v1.schemas[0]!.schema], now }).schemas[0]!.exists).toBe(true);
    expect(() => planExport({ crds: [crd('widgets', 'string')], prefix: 'v1', existingSchemas: [v1.schemas[0]!.schema], now })).toThrow(
      'apiresourceschema "v1.widgets.demo.kcpt.dev" already exists with a different spec (schemas are immutable): export the changed CRD with another --prefix',
    );
  });

  it('refuses two files defining the same resource', () => {
    expect(() => planExport({ crds: [crd('widgets'), { ...crd('widgets'), source: 'copy.yaml' }], existingSchemas: [], now })).toThrow(
      'copy.yaml and widgets.yaml both define widgets.demo.kcpt.dev; an export serves each resource once',
    );
  });
});

describe('export list table', () => {
  it('one row per resource, older schemas still served by bindings, unknown counts as -', () => {
    const table = renderExportTable([
      {
        name: 'widgets',
        export: 'root:provider:widgets',
        virtualWorkspaceURL: 'https://h/services/apiexport/abc/widgets',
        endpointURLs: [],
        resources: [{ group: 'demo.kcpt.dev', resource: 'widgets', schema: 'v2.widgets.demo.kcpt.dev' }],
        bindings: 3,
        bindingsBySchema: { 'widgets.demo.kcpt.dev': { 'v2.widgets.demo.kcpt.dev': 2, 'v1.widgets.demo.kcpt.dev': 1 } },
      },
      {
        name: 'other',
        export: 'root:provider:other',
        virtualWorkspaceURL: 'https://h/services/apiexport/abc/other',
        endpointURLs: [],
        resources: [{ group: 'x.dev', resource: 'things', schema: 'v1.things.x.dev' }],
        bindings: null,
        bindingsBySchema: null,
      },
      {
        name: 'fresh',
        export: 'root:provider:fresh',
        virtualWorkspaceURL: 'https://h/services/apiexport/abc/fresh',
        endpointURLs: [],
        resources: [{ group: 'x.dev', resource: 'news', schema: 'v1.news.x.dev' }],
        bindings: 0,
        bindingsBySchema: {},
      },
    ]);
    expect(table).toBe(
      [
        'EXPORT    RESOURCE                SCHEMA                     BINDINGS',
        'widgets   widgets.demo.kcpt.dev   v2.widgets.demo.kcpt.dev   2',
        '                                  v1.widgets.demo.kcpt.dev   1 (not yet rolled to v2.widgets.demo.kcpt.dev)',
        'other     things.x.dev            v1.things.x.dev            -',
        'fresh     news.x.dev              v1.news.x.dev              0',
        '',
        'Virtual workspaces:',
        '  root:provider:widgets  https://h/services/apiexport/abc/widgets',
        '  root:provider:other  https://h/services/apiexport/abc/other',
        '  root:provider:fresh  https://h/services/apiexport/abc/fresh',
        '',
      ].join('\n'),
    );
  });
});
