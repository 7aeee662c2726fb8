/**
 * CRDs that kube refuses, with kube's texts, through the real kubectl: non-structural schemas, storage versions,
 * names, protected groups (KEP-1111 approval), printer columns and scale paths. Schema and column errors are
 * reported where kube reports them: at the top level (`spec.validation…`) when every version shares the value.
 */
import { describe, expect, it } from 'vitest';
import { type ClusterKubectl } from '../helpers/kubectl.js';
import { escapeRegExp, lines, useE2EServer } from '../helpers/suite.js';
import { applyCRD, conditions, crdObject, withFile, type Json } from './crds-fixtures.js';

const e2e = useE2EServer();

const dns1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with " +
  "an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and " +
  "end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const kep = 'https://github.com/kubernetes/enhancements/pull/1111';

describe('invalid CRDs are refused with kube\'s reasons and texts', () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);
  const refused = async (crd: Json): Promise<string[]> => {
    const result = await withFile(k, ['create'], crd, { reject: false });
    expect(result.exitCode, result.stdout).not.toBe(0);
    return lines(result.stderr);
  };
  const single = (name: string, error: string) => [`The CustomResourceDefinition "${name}" is invalid: ${error}`];
  const schemaOf = (spec: Json): Json => ({ type: 'object', properties: { spec } });

  it('a non-structural schema, at spec.validation when all versions share it and per version otherwise', async () => {
    const crd = crdObject({ plural: 'loose', kind: 'Loose', schema: schemaOf({ properties: { a: { type: 'string' } } }) });
    expect(await refused(crd)).toEqual(
      single('loose.example.com', 'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields'),
    );
    const twoVersions = crdObject({
      plural: 'loose', kind: 'Loose',
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schemaOf({ type: 'object' }) } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: schemaOf({ properties: { a: {} } }) } },
      ],
    });
    expect(await refused(twoVersions)).toEqual([
      'The CustomResourceDefinition "loose.example.com" is invalid:',
      '* spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[a].type: Required value: must not be empty for specified object fields',
      '* spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    ]);
    const badType = crdObject({ plural: 'loose', kind: 'Loose', schema: schemaOf({ type: 'dictionary' }) });
    expect(await refused(badType)).toEqual(
      single('loose.example.com', 'spec.validation.openAPIV3Schema.properties[spec].type: Unsupported value: "dictionary": supported values: "array", "boolean", "integer", "number", "object", "string"'),
    );
    const badDefault = crdObject({ plural: 'loose', kind: 'Loose', schema: schemaOf({ type: 'object', properties: { count: { type: 'integer', minimum: 1, default: 0 } } }) });
    expect(await refused(badDefault)).toEqual(
      single('loose.example.com', 'spec.validation.openAPIV3Schema.properties[spec].properties[count].default: Invalid value: 0: in body should be greater than or equal to 1'),
    );
  });

  it('exactly one storage version', async () => {
    const versions = (a: boolean, b: boolean) => [
      { name: 'v1', served: true, storage: a, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v2', served: true, storage: b, schema: { openAPIV3Schema: { type: 'object' } } },
    ];
    // kube prints the internal versions with Go's %#v (pointers as addresses): compare around the value.
    const storageError = new RegExp(
      `^\\* spec\\.versions: Invalid value: ${escapeRegExp('[]apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:')}(true|false).*\\}: must have exactly one version marked as storage version$`,
    );
    // kube records only the first storage version on create, so its status check complains as well.
    const both = await refused(crdObject({ plural: 'stores', kind: 'Store', versions: versions(true, true) }));
    expect(both[0]).toBe('The CustomResourceDefinition "stores.example.com" is invalid:');
    expect(both[1]).toMatch(storageError);
    expect(both.slice(2)).toEqual(['* status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2']);
    const none = await refused(crdObject({ plural: 'stores', kind: 'Store', versions: versions(false, false) }));
    expect(none[1]).toMatch(storageError);
    expect(none.slice(2)).toEqual(['* status.storedVersions: Invalid value: []string(nil): must have at least one stored version']);
  });

  it('a version objects may still be stored in cannot be removed', async () => {
    await applyCRD(k, crdObject({ plural: 'keepers', kind: 'Keeper' }));
    const onlyV2 = crdObject({ plural: 'keepers', kind: 'Keeper', versions: [{ name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] });
    const result = await withFile(k, ['apply'], onlyV2, { reject: false });
    expect(lines(result.stderr)).toEqual([
      'The CustomResourceDefinition "keepers.example.com" is invalid: status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
    ]);
  });

  it('names: metadata.name must be <plural>.<group>, names must be DNS labels, kind and listKind must differ', async () => {
    const misnamed = crdObject({ plural: 'widgets', kind: 'Widget' });
    (misnamed.metadata as Json).name = 'widget.example.com';
    expect(await refused(misnamed)).toEqual(
      single('widget.example.com', 'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group'),
    );
    expect(await refused(crdObject({ plural: 'Widgets', kind: 'Widget' }))).toEqual([
      'The CustomResourceDefinition "Widgets.example.com" is invalid:',
      `* metadata.name: Invalid value: "Widgets.example.com": ${subdomain}`,
      `* spec.names.plural: Invalid value: "Widgets": ${dns1035}`,
    ]);
    const badKind = crdObject({ plural: 'widgets', kind: 'Wid_get' });
    ((badKind.spec as Json).names as Json).listKind = 'Wid_get';
    expect(await refused(badKind)).toEqual([
      'The CustomResourceDefinition "widgets.example.com" is invalid:',
      // singular defaults to the lowercased kind
      `* spec.names.singular: Invalid value: "wid_get": ${dns1035}`,
      `* spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${dns1035}`,
      `* spec.names.listKind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${dns1035}`,
      '* spec.names.listKind: Invalid value: "Wid_get": kind and listKind may not be the same',
    ]);
    expect(await refused(crdObject({ group: 'example', plural: 'widgets', kind: 'Widget' }))).toEqual(
      single('widgets.example', 'spec.group: Invalid value: "example": should be a domain with at least one dot'),
    );
  });

  it('protected groups need the api-approved.kubernetes.io annotation', async () => {
    const group = 'widgets.k8s.io';
    expect(await refused(crdObject({ group, plural: 'things', kind: 'Thing' }))).toEqual(
      single(`things.${group}`, `metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see ${kep}`),
    );
    expect(await refused(crdObject({ group, plural: 'things', kind: 'Thing', annotations: { 'api-approved.kubernetes.io': 'yes please' } }))).toEqual(
      single(
        `things.${group}`,
        `metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes please": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see ${kep}`,
      ),
    );
    const url = 'https://github.com/kubernetes/kubernetes/pull/79724';
    await applyCRD(k, crdObject({ group, plural: 'things', kind: 'Thing', annotations: { 'api-approved.kubernetes.io': url } }));
    expect(await conditions(k, `things.${group}`)).toContain(`KubernetesAPIApprovalPolicyConformant True ApprovedAnnotation approved in ${url}`);
    await applyCRD(k, crdObject({ group, plural: 'gizmos', kind: 'Gizmo', annotations: { 'api-approved.kubernetes.io': 'unapproved, experimental' } }));
    expect(await conditions(k, `gizmos.${group}`)).toContain('KubernetesAPIApprovalPolicyConformant False UnapprovedAnnotation not approved: "unapproved, experimental"');
  });

  it('printer columns and scale paths', async () => {
    const columns = crdObject({ plural: 'columns', kind: 'Column', version: { additionalPrinterColumns: [{ name: 'Color', type: 'text', jsonPath: 'spec.color' }] } });
    expect(await refused(columns)).toEqual([
      'The CustomResourceDefinition "columns.example.com" is invalid:',
      '* spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
      '* spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.color": must be a simple json path starting with .',
    ]);
    const scale = crdObject({
      plural: 'scales', kind: 'Scaler',
      version: { subresources: { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '.spec.replicas', labelSelectorPath: '.metadata.labels' } } },
    });
    expect(await refused(scale)).toEqual([
      'The CustomResourceDefinition "scales.example.com" is invalid:',
      '* spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      '* spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
      '* spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ]);
  });
});

describe('what kcpt stores but does not enforce is said at apply time', () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);

  it("x-kubernetes-validations calling kube's typed libraries (quantity, …): no warning, they are evaluated", async () => {
    const rule = (r: string) => [{ rule: r, message: 'refused by CEL' }];
    const crd = crdObject({
      group: 'cel.example.com', plural: 'ruled', kind: 'Ruled',
      schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            'x-kubernetes-validations': rule('self.min <= self.max'),
            properties: {
              min: { type: 'integer' },
              max: { type: 'integer' },
              size: { type: 'string', maxLength: 16, 'x-kubernetes-validations': rule("isQuantity(self) && isIP('::1') && isCIDR('::/0') && isSemver('1.0.0') && strings.quote(self) != ''") },
              tags: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 16, 'x-kubernetes-validations': rule("self != ''") } },
            },
          },
        },
      },
    });
    const created = await withFile(k, ['create'], crd);
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe('customresourcedefinition.apiextensions.k8s.io/ruled.cel.example.com created');
    const plain = await withFile(k, ['create'], crdObject({ group: 'cel.example.com', plural: 'plain', kind: 'Plain' }));
    expect(plain.stderr).toBe('');
  });
});
