/**
 * kcp serves Workspace, WorkspaceType and Shard from CRDs; kcpt builds them the same way, from compact CRD objects
 * of its own, through the CRD machinery (validation, defaults such as `status.phase: Scheduling`, printer columns,
 * the status subresource, OpenAPI and server-side apply typing). Tenancy admission wraps their strategies.
 */
import { customResourceTypes } from '../apiextensions/cr-types.js';
import { bool, condition, labelSelector, list, obj, str, stringMap, systemCRD, type PrinterColumn, type Schema } from '../apiextensions/system-crds.js';
import type { ResourceType } from '../registry/types.js';
import { CORE_KCP_GROUP, NAME_PATTERN, PATH_PATTERN, TENANCY_GROUP, TYPE_NAME_PATTERN } from '../machinery/kcp-names.js';

const typeReference = (description: string): Schema =>
  obj(
    description,
    {
      name: str('Name of the WorkspaceType.', { pattern: TYPE_NAME_PATTERN }),
      path: str('Absolute path of the workspace that holds the type, e.g. root:org.', { pattern: PATH_PATTERN }),
    },
    { required: ['name'] },
  );

const initializerName = {
  type: 'string',
  pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(:[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(:[a-z0-9][a-z0-9]([-a-z0-9]*[a-z0-9])?))|(system:.+)$',
};

const workspaceSchema: Schema = obj(
  'A Workspace is a Kubernetes-cluster-like endpoint with its own discovery, OpenAPI and APIs, backed by a logical cluster.',
  {
    metadata: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 63, pattern: NAME_PATTERN } } },
    spec: obj(
      'Desired state of the workspace.',
      {
        URL: str('Where the workspace is served, set by the system: <external URL>/clusters/<path>.'),
        cluster: str('Name of the logical cluster the workspace is stored under, set by the system.'),
        location: obj('Where the workspace may be scheduled.', { selector: labelSelector }),
        type: typeReference(
          'The workspace type. Defaults to the parent type’s defaultChildWorkspaceType; immutable after creation.',
        ),
      },
      { default: {} },
    ),
    status: obj(
      'Observed state of the workspace.',
      {
        conditions: list('Current processing state of the workspace.', condition),
        initializers: list('Initializers that must finish before the workspace is ready.', initializerName),
        phase: str('Scheduling, Initializing, Ready, Unavailable, Terminating or Deleting.', {
          default: 'Scheduling',
          enum: ['Scheduling', 'Initializing', 'Ready', 'Unavailable', 'Terminating', 'Deleting'],
        }),
        terminators: list('Terminators that must finish before the workspace is deleted.', initializerName),
      },
      { default: {} },
    ),
  },
  { required: ['spec'] },
);

const allowedTypes = (description: string): Schema =>
  obj(description, {
    none: bool('No type matches.'),
    types: list('Types that match; a type matches every type it extends too.', typeReference('A workspace type.'), { minItems: 1 }),
  });

const policyRule = obj(
  'An RBAC policy rule.',
  Object.fromEntries(
    ['apiGroups', 'nonResourceURLs', 'resourceNames', 'resources', 'verbs'].map((f) => [
      f,
      list(f, { type: 'string' }, { 'x-kubernetes-list-type': 'atomic' }),
    ]),
  ),
  { required: ['verbs'] },
);

const workspaceTypeSchema: Schema = obj('A WorkspaceType defines what workspaces of this type get and where they may live.', {
  metadata: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 63, pattern: NAME_PATTERN } } },
  spec: obj('Desired behaviour of workspaces of this type.', {
    additionalWorkspaceLabels: stringMap('Labels added to every workspace of this type when it is created.'),
    authenticationConfigurations: list('Extra authentication configurations.', obj('A reference.', { name: str('Name.') }, { required: ['name'] })),
    defaultAPIBindingLifecycle: str('InitializeOnly or Maintain.', { enum: ['InitializeOnly', 'Maintain'] }),
    defaultAPIBindings: list(
      'APIs bound in every new workspace of this type.',
      obj('An APIExport reference.', { export: str('Name of the APIExport.'), path: str('Path of its workspace.', { pattern: PATH_PATTERN }) }, { required: ['export'] }),
    ),
    defaultChildWorkspaceType: { ...typeReference('Type of child workspaces created without one; not inherited.'), default: { name: 'universal', path: 'root' } },
    extend: obj('Types this type extends (and becomes an alias of).', { with: list('Extended types.', typeReference('A workspace type.')) }),
    initializer: bool('Workspaces of this type wait for an initializer named <path>:<name>.'),
    initializerPermissions: list('Rules granted to the initializer in the content proxy.', policyRule),
    limitAllowedChildren: allowedTypes('Constraints on child workspaces.'),
    limitAllowedParents: allowedTypes('Constraints on the parent workspace.'),
    terminator: bool('Deleting workspaces of this type waits for a terminator named <path>:<name>.'),
    terminatorPermissions: list('Rules granted to the terminator in the content proxy.', policyRule),
  }),
  status: obj('Observed state of the type.', {
    conditions: list('Conditions.', condition),
    virtualWorkspaces: list(
      'URLs of the initializing and terminating virtual workspaces of this type.',
      obj('A virtual workspace URL.', { type: str('initializing or terminating.', { enum: ['initializing', 'terminating'] }), url: str('URL.', { minLength: 1 }) }, { required: ['url'] }),
    ),
  }),
});

const shardSchema: Schema = obj(
  'A Shard is a kcp server that hosts logical clusters.',
  {
    spec: obj(
      'Where the shard is reached.',
      {
        baseURL: str('Address of the shard itself.', { minLength: 1 }),
        externalURL: str('Address clients use (a front-proxy in front of several shards); defaults to baseURL.'),
        virtualWorkspaceURL: str('Address of its virtual workspaces; defaults to baseURL.'),
      },
      { required: ['baseURL'] },
    ),
    status: obj('Observed state of the shard.', {
      capacity: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
      conditions: list('Conditions.', condition),
    }),
  },
  { required: ['spec'] },
);

interface Definition {
  group: string;
  plural: string;
  kind: string;
  shortNames?: string[];
  schema: Schema;
  columns?: PrinterColumn[];
}

const definitions: Record<'workspaces' | 'workspacetypes' | 'shards', Definition> = {
  workspaces: {
    group: TENANCY_GROUP,
    plural: 'workspaces',
    kind: 'Workspace',
    shortNames: ['ws'],
    schema: workspaceSchema,
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.spec.type.name', description: 'Type of the workspace' },
      { name: 'Region', type: 'string', jsonPath: ".metadata.labels['region']", description: 'The region this workspace is in' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'The current phase (e.g. Scheduling, Initializing, Ready, Deleting)' },
      { name: 'URL', type: 'string', jsonPath: '.spec.URL', description: 'URL to access the workspace' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  workspacetypes: { group: TENANCY_GROUP, plural: 'workspacetypes', kind: 'WorkspaceType', schema: workspaceTypeSchema },
  shards: {
    group: CORE_KCP_GROUP,
    plural: 'shards',
    kind: 'Shard',
    schema: shardSchema,
    columns: [
      { name: 'Region', type: 'string', jsonPath: ".metadata.labels['region']", description: 'The region this shard is in' },
      { name: 'URL', type: 'string', jsonPath: '.spec.baseURL', description: 'Type URL to directly connect to the shard' },
      { name: 'External URL', type: 'string', jsonPath: '.spec.externalURL', description: 'The URL exposed in logical clusters created on that shard' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  },
};

/**
 * The served type of one tenancy kind, before tenancy admission is wrapped around its strategy. `storedAsRead`: see
 * ResourceType.convert (only for a kind whose writers are known to store what a read returns).
 */
export function tenancyResourceType(kind: keyof typeof definitions, opts: { storedAsRead?: boolean } = {}): ResourceType {
  const d = definitions[kind];
  const crd = systemCRD({ ...d, versions: [{ name: 'v1alpha1', schema: d.schema, columns: d.columns }] });
  const [rt] = customResourceTypes(crd, opts);
  return rt!;
}
