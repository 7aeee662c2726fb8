/**
 * The apis.kcp.io kinds as kcp defines them (system CRDs served in every logical cluster): APIResourceSchema and
 * APIExportEndpointSlice in v1alpha1; APIExport and APIBinding in v1alpha1 and v1alpha2, stored as v1alpha2.
 * The schemas carry kcp's fields and the printer columns kcp's CRDs declare.
 */
import {
  bool,
  condition,
  labelSelector,
  list,
  obj,
  str,
  stringList,
  systemCRD,
  type Schema,
  type SystemDefinition,
} from '../apiextensions/system-crds.js';
import type { CustomResourceDefinition } from '../apiextensions/crd.js';
import { PATH_PATTERN } from '../machinery/kcp-names.js';
import { APIS_GROUP } from './names.js';

const preserve = (description: string): Schema => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
const conditions = list('Current processing state.', condition);
const age = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const ready = { name: 'Ready', type: 'string', jsonPath: `.status.conditions[?(@.type=="Ready")].status` };

const names = obj(
  'The names the resource is served with (a CRD’s names).',
  {
    plural: str('Plural resource name.'),
    singular: str('Singular name.'),
    kind: str('Kind.'),
    listKind: str('Kind of lists.'),
    shortNames: stringList('Short names.'),
    categories: stringList('Categories, e.g. all.'),
  },
  { required: ['plural', 'kind'] },
);

const resourceSchemaVersion = obj(
  'One version of the resource, as in a CRD.',
  {
    name: str('Version name, e.g. v1.', { pattern: '^v[1-9][0-9]*([a-z]+[1-9][0-9]*)?$', minLength: 1 }),
    served: bool('Whether the version is served.'),
    storage: bool('Whether objects are stored in this version (exactly one).'),
    deprecated: bool('Whether the version is deprecated.'),
    deprecationWarning: str('Warning returned to clients of a deprecated version.'),
    schema: preserve('The OpenAPI v3 schema of the version (a CRD version’s openAPIV3Schema).'),
    subresources: preserve('Subresources (status, scale).'),
    additionalPrinterColumns: list('Extra printer columns.', preserve('A printer column.')),
    selectableFields: list('Fields usable in field selectors.', obj('A selectable field.', { jsonPath: str('JSON path.') }, { required: ['jsonPath'] })),
  },
  { required: ['name', 'served', 'storage'] },
);

const resourceSchema = obj('An immutable snapshot of a CRD’s API, exported through APIExports.', {
  spec: obj(
    'The API. Immutable.',
    {
      group: str('API group.'),
      names,
      scope: str('Cluster or Namespaced.', { enum: ['Cluster', 'Namespaced'] }),
      versions: list('Versions of the resource.', resourceSchemaVersion, { minItems: 1 }),
      nameValidation: str('How object names are validated: DNS1123Subdomain or PathSegmentName.', {
        enum: ['DNS1123Subdomain', 'PathSegmentName'],
      }),
      conversion: preserve('How versions are converted: strategy None or Webhook.'),
    },
    { required: ['group', 'names', 'scope', 'versions'] },
  ),
});

const exportReference = obj(
  'Where the APIExport is.',
  {
    path: str('Path of the export’s workspace; empty means this workspace.', { pattern: PATH_PATTERN }),
    name: str('Name of the APIExport.', { minLength: 1 }),
  },
  { required: ['name'] },
);

const identity = obj('The identity of the export: a secret whose key hashes to status.identityHash.', {
  secretRef: obj('The secret.', { namespace: str('Namespace.'), name: str('Name.') }),
});

const maximalPermissionPolicy = obj('Limits what users may do with the bound resources in consumer workspaces.', {
  local: obj('Check RBAC in the export’s workspace with prefixed user and groups.', {}),
});

const v1alpha1Claim = (extra: Schema = {}): Schema =>
  obj('A claim on resources in consumer workspaces.', {
    group: str('API group ("" for core).'),
    resource: str('Resource.'),
    identityHash: str('Identity of the export that serves the resource (empty for built-ins).'),
    all: bool('Claims every object of the resource.'),
    resourceSelector: list('Claims these objects.', obj('An object.', { name: str('Name.'), namespace: str('Namespace.') })),
    ...extra,
  });

const v1alpha2Claim = (extra: Schema = {}): Schema =>
  obj(
    'A claim on resources in consumer workspaces.',
    {
      group: str('API group ("" for core).'),
      resource: str('Resource.'),
      identityHash: str('Identity of the export that serves the resource (empty for built-ins).'),
      verbs: stringList('Verbs the provider may use on the claimed objects.'),
      ...extra,
    },
    { required: ['resource'] },
  );

const exportResource = obj(
  'A resource the export provides.',
  {
    name: str('Plural resource name.', { minLength: 1 }),
    group: str('API group.'),
    schema: str('Name of the APIResourceSchema in this workspace.', { minLength: 1 }),
    storage: obj('How bound objects are stored.', { crd: obj('Stored like a CRD’s objects.', {}), virtual: preserve('Served from a virtual resource.') }, { default: { crd: {} } }),
  },
  { required: ['name', 'schema'] },
);

const exportStatus = obj('Observed state of the export.', {
  identityHash: str('Lowercase hex SHA-256 of the identity key.'),
  conditions,
  virtualWorkspaces: list('Deprecated URLs of the export’s virtual workspace.', obj('A URL.', { url: str('URL.') })),
});

const apiExportV1alpha1 = obj('An API exported from this workspace for other workspaces to bind.', {
  spec: obj('The exported API.', {
    latestResourceSchemas: stringList('Names of the APIResourceSchemas exported, <prefix>.<resource>.<group>.'),
    identity,
    maximalPermissionPolicy,
    permissionClaims: list('Claims on resources in consumer workspaces.', v1alpha1Claim()),
  }),
  status: exportStatus,
});

const apiExportV1alpha2 = obj('An API exported from this workspace for other workspaces to bind.', {
  spec: obj('The exported API.', {
    resources: list('Resources the export provides.', exportResource),
    identity,
    maximalPermissionPolicy,
    permissionClaims: list('Claims on resources in consumer workspaces.', v1alpha2Claim()),
  }),
  status: exportStatus,
});

const endpointSlice = obj('The URLs under which an APIExport’s virtual workspace is served.', {
  spec: obj(
    'The export.',
    {
      export: exportReference,
      partition: str('Name of a Partition that restricts the shards.'),
    },
    { required: ['export'] },
  ),
  status: obj('The endpoints.', {
    conditions,
    endpoints: list('Virtual workspace URLs.', obj('An endpoint.', { url: str('URL.', { minLength: 1 }) }, { required: ['url'] })),
    shardSelector: str('Selector of the shards the endpoints cover.'),
  }),
});

const boundResource = obj('A resource bound from the export.', {
  group: str('API group.'),
  resource: str('Resource.'),
  schema: obj('The APIResourceSchema served.', { name: str('Name.'), UID: str('UID.'), identityHash: str('Export identity.') }),
  storageVersions: stringList('Versions objects were stored in.'),
});

/** `applied` is the scoped claim (claim + selector) kcp records for applied claims; v1alpha1 has no selector. */
const bindingStatus = (claim: Schema, applied: Schema = claim): Schema =>
  obj('Observed state of the binding.', {
    apiExportClusterName: str('Logical cluster of the export.'),
    boundResources: list('Resources bound.', boundResource),
    phase: str('"", Binding or Bound.', { enum: ['', 'Binding', 'Bound'] }),
    conditions,
    appliedPermissionClaims: list('Claims applied in this workspace.', applied),
    exportPermissionClaims: list('The claims the export makes.', claim),
  });

const acceptableState = { state: str('Accepted or Rejected.', { enum: ['Accepted', 'Rejected'] }) };
const claimSelector = obj('Which objects the claim covers.', {
  matchAll: bool('Every object.'),
  matchLabels: (labelSelector.properties as Schema).matchLabels,
  matchExpressions: (labelSelector.properties as Schema).matchExpressions,
});

const apiBindingV1alpha1 = obj('Binds an APIExport’s resources into this workspace.', {
  spec: obj(
    'The export to bind.',
    {
      reference: obj('The reference.', { export: exportReference }, { required: ['export'] }),
      permissionClaims: list('Answers to the export’s claims.', v1alpha1Claim(acceptableState)),
    },
    { required: ['reference'] },
  ),
  status: bindingStatus(v1alpha1Claim()),
});

const apiBindingV1alpha2 = obj('Binds an APIExport’s resources into this workspace.', {
  spec: obj(
    'The export to bind.',
    {
      reference: obj('The reference.', { export: exportReference }, { required: ['export'] }),
      permissionClaims: list('Answers to the export’s claims.', v1alpha2Claim({ selector: claimSelector, ...acceptableState })),
    },
    { required: ['reference'] },
  ),
  status: bindingStatus(v1alpha2Claim(), v1alpha2Claim({ selector: claimSelector })),
});

export const definitions = {
  apiresourceschemas: {
    group: APIS_GROUP,
    plural: 'apiresourceschemas',
    kind: 'APIResourceSchema',
    versions: [{ name: 'v1alpha1', schema: resourceSchema, columns: [age] }],
  },
  apiexports: {
    group: APIS_GROUP,
    plural: 'apiexports',
    kind: 'APIExport',
    versions: [
      { name: 'v1alpha1', schema: apiExportV1alpha1, columns: [{ name: 'Ready', type: 'string', jsonPath: `.status.conditions[?(@.type=="VirtualWorkspaceURLsReady")].status` }, age] },
      { name: 'v1alpha2', schema: apiExportV1alpha2, storage: true, columns: [age] },
    ],
  },
  apiexportendpointslices: {
    group: APIS_GROUP,
    plural: 'apiexportendpointslices',
    kind: 'APIExportEndpointSlice',
    versions: [
      {
        name: 'v1alpha1',
        schema: endpointSlice,
        columns: [
          { name: 'Export', type: 'string', jsonPath: '.spec.export.name' },
          { name: 'Partition', type: 'string', jsonPath: '.spec.partition' },
          age,
        ],
      },
    ],
  },
  apibindings: {
    group: APIS_GROUP,
    plural: 'apibindings',
    kind: 'APIBinding',
    versions: [
      { name: 'v1alpha1', schema: apiBindingV1alpha1, columns: [age, ready] },
      { name: 'v1alpha2', schema: apiBindingV1alpha2, storage: true, columns: [age, ready] },
    ],
  },
} satisfies Record<string, SystemDefinition>;

export type APIKind = keyof typeof definitions;

export function apisCRD(kind: APIKind): CustomResourceDefinition {
  return systemCRD(definitions[kind]);
}
