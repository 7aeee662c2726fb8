/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition. The structure follows upstream so `kubectl explain crd.spec`
 * and strict field validation work; a version's `openAPIV3Schema` (JSONSchemaProps) is published as an open
 * object: it is validated by the CRD's own structural-schema rules, and pruning inside it would silently eat
 * schema keywords kube knows and we might not list.
 */
import {
  TIME,
  addLists,
  bool,
  field,
  int32,
  kindSchema,
  listOf,
  str,
  stringList,
  struct,
  withRequired,
  type Schema,
} from './helpers.js';

const AX = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const gvk = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' };

const names = (what: string): Schema =>
  field(`${AX}.CustomResourceDefinitionNames`, what, { withDefault: true });

export const apiextensionsSchemas: Record<string, Schema> = {
  [`${AX}.CustomResourceDefinition`]: withRequired(
    kindSchema({
      description:
        'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be ' +
        'in the format <.spec.name>.<.spec.group>.',
      gvk,
      properties: {
        spec: field(`${AX}.CustomResourceDefinitionSpec`, 'spec describes how the user wants the resources to appear', {
          withDefault: true,
        }),
        status: field(`${AX}.CustomResourceDefinitionStatus`, 'status indicates the actual state of the CustomResourceDefinition', {
          withDefault: true,
        }),
      },
    }),
    ['spec'],
  ),
  [`${AX}.CustomResourceDefinitionSpec`]: withRequired(
    struct('CustomResourceDefinitionSpec describes how a user wants their resource to appear', {
      conversion: field(`${AX}.CustomResourceConversion`, 'conversion defines conversion settings for the CRD.'),
      group: str(
        'group is the API group of the defined custom resource. The custom resources are served under ' +
          '`/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).',
        { default: '' },
      ),
      names: names('names specify the resource and kind names for the custom resource.'),
      preserveUnknownFields: bool(
        'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be ' +
          'preserved when persisting to storage. Only false is allowed in apiextensions.k8s.io/v1.',
      ),
      scope: str('scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.', {
        default: '',
      }),
      versions: listOf(
        `${AX}.CustomResourceDefinitionVersion`,
        'versions is the list of all API versions of the defined custom resource. Exactly one version must be the ' +
          'storage version. Versions are sorted by kube version priority in discovery.',
        { 'x-kubernetes-list-type': 'atomic' },
      ),
    }),
    ['group', 'names', 'scope', 'versions'],
  ),
  [`${AX}.CustomResourceConversion`]: withRequired(
    struct('CustomResourceConversion describes how to convert different versions of a CR.', {
      strategy: str('strategy specifies how custom resources are converted between versions. Allowed values are `None` and `Webhook`.', {
        default: '',
      }),
      webhook: field(`${AX}.WebhookConversion`, 'webhook describes how to call the conversion webhook (kcpt stores it but does not call it).'),
    }),
    ['strategy'],
  ),
  [`${AX}.WebhookConversion`]: withRequired(
    struct('WebhookConversion describes how to call a conversion webhook.', {
      clientConfig: field(`${AX}.WebhookClientConfig`, 'clientConfig is how to reach the webhook: a URL or a service.'),
      conversionReviewVersions: stringList('conversionReviewVersions is the ConversionReview versions the webhook accepts, by preference.'),
    }),
    ['conversionReviewVersions'],
  ),
  [`${AX}.WebhookClientConfig`]: struct('WebhookClientConfig contains the information to make a TLS connection with the webhook.', {
    caBundle: str('caBundle is a PEM encoded CA bundle which will be used to validate the webhook\'s server certificate.', { format: 'byte' }),
    service: field(`${AX}.ServiceReference`, 'service is a reference to the service for this webhook. Either service or url must be specified.'),
    url: str('url gives the location of the webhook, in standard URL form (`scheme://host:port/path`).'),
  }),
  [`${AX}.ServiceReference`]: withRequired(
    struct('ServiceReference holds a reference to Service.legacy.k8s.io', {
      name: str('name is the name of the service.', { default: '' }),
      namespace: str('namespace is the namespace of the service.', { default: '' }),
      path: str('path is an optional URL path at which the webhook will be contacted.'),
      port: int32('port is an optional service port at which the webhook will be contacted. Defaults to 443.'),
    }),
    ['namespace', 'name'],
  ),
  [`${AX}.CustomResourceDefinitionNames`]: withRequired(
    struct('CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition', {
      categories: stringList('categories is a list of grouped resources this custom resource belongs to (e.g. `all`).'),
      kind: str('kind is the serialized kind of the resource. It is normally CamelCase and singular.', { default: '' }),
      listKind: str('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
      plural: str('plural is the plural name of the resource to serve: `/apis/<group>/<version>/.../<plural>`. Must be all lowercase.', {
        default: '',
      }),
      shortNames: stringList('shortNames are short names for the resource, exposed in API discovery documents. Must be all lowercase.'),
      singular: str('singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.'),
    }),
    ['plural', 'kind'],
  ),
  [`${AX}.CustomResourceDefinitionVersion`]: withRequired(
    struct('CustomResourceDefinitionVersion describes a version for CRD.', {
      additionalPrinterColumns: listOf(
        `${AX}.CustomResourceColumnDefinition`,
        'additionalPrinterColumns specifies additional columns returned in Table output. If no columns are ' +
          'specified, a single column displaying the age of the custom resource is used.',
        { 'x-kubernetes-list-type': 'atomic' },
      ),
      deprecated: bool('deprecated indicates this version of the custom resource API is deprecated.'),
      deprecationWarning: str('deprecationWarning overrides the default warning returned to API clients.'),
      name: str('name is the version name, e.g. “v1”, “v2beta1”, etc.', { default: '' }),
      schema: field(`${AX}.CustomResourceValidation`, 'schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.'),
      selectableFields: listOf(
        `${AX}.SelectableField`,
        'selectableFields specifies paths to fields that may be used as field selectors. At most 8 are allowed.',
        { 'x-kubernetes-list-type': 'atomic' },
      ),
      served: { ...bool('served is a flag enabling/disabling this version from being served via REST APIs'), default: false },
      storage: {
        ...bool('storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.'),
        default: false,
      },
      subresources: field(`${AX}.CustomResourceSubresources`, 'subresources specify what subresources this version of the defined custom resource have.'),
    }),
    ['name', 'served', 'storage'],
  ),
  [`${AX}.CustomResourceValidation`]: struct('CustomResourceValidation is a list of validation methods for CustomResources.', {
    openAPIV3Schema: field(`${AX}.JSONSchemaProps`, 'openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.'),
  }),
  [`${AX}.JSONSchemaProps`]: {
    description:
      'JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/), restricted to ' +
      'structural schemas, with the x-kubernetes-* extensions.',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [`${AX}.CustomResourceColumnDefinition`]: withRequired(
    struct('CustomResourceColumnDefinition specifies a column for server side printing.', {
      description: str('description is a human readable description of this column.'),
      format: str('format is an optional OpenAPI type definition for this column. The `name` format marks the primary key column.'),
      jsonPath: str('jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.', {
        default: '',
      }),
      name: str('name is a human readable name for the column.', { default: '' }),
      priority: int32('priority is an integer defining the relative importance of this column compared to others. Columns with priority > 0 are shown in wide output.'),
      type: str('type is an OpenAPI type definition for this column: integer, number, string, boolean or date.', { default: '' }),
    }),
    ['name', 'type', 'jsonPath'],
  ),
  [`${AX}.SelectableField`]: withRequired(
    struct('SelectableField specifies the JSON path of a field that may be used with field selectors.', {
      jsonPath: str('jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value.', {
        default: '',
      }),
    }),
    ['jsonPath'],
  ),
  [`${AX}.CustomResourceSubresources`]: struct('CustomResourceSubresources defines the status and scale subresources for CustomResources.', {
    scale: field(`${AX}.CustomResourceSubresourceScale`, 'scale indicates the custom resource should serve a `/scale` subresource that returns an `autoscaling/v1` Scale object.'),
    status: {
      description:
        'status indicates the custom resource should serve a `/status` subresource. When enabled, requests to the main ' +
        'resource ignore changes to the status stanza and requests to /status change only the status stanza.',
      type: 'object',
    },
  }),
  [`${AX}.CustomResourceSubresourceScale`]: withRequired(
    struct('CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources.', {
      labelSelectorPath: str('labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`.'),
      specReplicasPath: str('specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`.', {
        default: '',
      }),
      statusReplicasPath: str('statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`.', {
        default: '',
      }),
    }),
    ['specReplicasPath', 'statusReplicasPath'],
  ),
  [`${AX}.CustomResourceDefinitionStatus`]: struct('CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition', {
    acceptedNames: names('acceptedNames are the names that are actually being used to serve discovery.'),
    conditions: listOf(`${AX}.CustomResourceDefinitionCondition`, 'conditions indicate state for particular aspects of a CustomResourceDefinition', {
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-list-type': 'map',
    }),
    storedVersions: stringList('storedVersions lists all versions of CustomResources that were ever persisted.'),
  }),
  [`${AX}.CustomResourceDefinitionCondition`]: withRequired(
    struct('CustomResourceDefinitionCondition contains details for the current condition of this pod.', {
      lastTransitionTime: field(TIME, 'lastTransitionTime last time the condition transitioned from one status to another.', { withDefault: true }),
      message: str('message is a human-readable message indicating details about last transition.'),
      reason: str('reason is a unique, one-word, CamelCase reason for the condition\'s last transition.'),
      status: str('status is the status of the condition. Can be True, False, Unknown.', { default: '' }),
      type: str('type is the type of the condition. Types include Established, NamesAccepted and Terminating.', { default: '' }),
    }),
    ['type', 'status'],
  ),
};

addLists(apiextensionsSchemas, AX, 'apiextensions.k8s.io', 'v1', ['CustomResourceDefinition']);
