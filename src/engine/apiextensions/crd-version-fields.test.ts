import { describe, expect, it } from 'vitest';
import { validateCRDSpec, type CRDLike } from './crd-validation.js';

const render = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { color: { type: 'string' }, replicas: { type: 'integer' } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  },
};
const otherSchema = {
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { hue: { type: 'string' } } } } },
};

type Version = NonNullable<NonNullable<CRDLike['spec']>['versions']>[number];

function crd(...versions: Partial<Version>[]): CRDLike {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: versions.map((v, i) => ({ name: `v${i + 1}`, served: true, storage: i === 0, schema, ...v })),
    },
  };
}

const badColumn = [{ name: 'Color', type: 'text', jsonPath: '.spec.color' }];
const badScale = { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '.status.replicas' } };

describe('per-version fields are validated at the paths kube reports (v1 → internal conversion)', () => {
  it('a valid CRD with columns, scale and selectable fields has no errors', () => {
    const v = {
      additionalPrinterColumns: [{ name: 'Color', type: 'string', jsonPath: '.spec.color' }],
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      selectableFields: [{ jsonPath: '.spec.color' }],
    };
    expect(render(validateCRDSpec(crd(v)))).toEqual([]);
    expect(render(validateCRDSpec(crd(v, v)))).toEqual([]);
  });

  it('identical values on every version are reported at the top level (spec.additionalPrinterColumns, spec.subresources)', () => {
    const v = { additionalPrinterColumns: badColumn, subresources: badScale };
    const expected = [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    ];
    expect(render(validateCRDSpec(crd(v)))).toEqual(expected);
    expect(render(validateCRDSpec(crd(v, v)))).toEqual(expected);
  });

  it('values that differ between versions are reported per version', () => {
    expect(render(validateCRDSpec(crd({}, { additionalPrinterColumns: badColumn, subresources: badScale })))).toEqual([
      'spec.versions[1].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.versions[1].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    ]);
  });

  it('zero values count as absent when comparing versions (Semantic.DeepEqual of the Go structs)', () => {
    const a = { additionalPrinterColumns: [{ name: 'C', type: 'text', jsonPath: '.spec.color' }] };
    const b = { additionalPrinterColumns: [{ name: 'C', type: 'text', jsonPath: '.spec.color', priority: 0, description: '' }] };
    expect(render(validateCRDSpec(crd(a, b)))[0]).toMatch(/^spec\.additionalPrinterColumns\[0\]\.type/);
  });

  it('selectable fields move to spec.selectableFields together with an identical schema', () => {
    const v = { selectableFields: [{ jsonPath: '.spec.size' }] };
    expect(render(validateCRDSpec(crd(v, v)))).toEqual([
      'spec.selectableFields[0].jsonPath: Invalid value: ".spec.size": is an invalid path: does not refer to a valid field',
    ]);
  });

  it('with different schemas, selectable fields are checked against their own version schema', () => {
    const errs = render(validateCRDSpec(crd({ selectableFields: [{ jsonPath: '.spec.color' }] }, { schema: otherSchema, selectableFields: [{ jsonPath: '.spec.color' }] })));
    expect(errs).toEqual([
      'spec.versions[1].selectableFields[0].jsonPath: Invalid value: ".spec.color": is an invalid path: does not refer to a valid field',
    ]);
  });

  it('identical schemas with different selectable fields: kube reports the schema as missing (its wording)', () => {
    expect(render(validateCRDSpec(crd({ selectableFields: [{ jsonPath: '.spec.color' }] }, {})))).toEqual([
      'spec.versions[0].selectableFields: Invalid value: "": selectableFields may only be set when version.schema.openAPIV3Schema is not included',
    ]);
  });
});
