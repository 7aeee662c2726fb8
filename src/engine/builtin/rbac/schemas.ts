/**
 * rbac.authorization.k8s.io/v1. None of these lists merge by key in strategic merge patch: kube replaces rules and
 * subjects wholesale, which is what `atomic` (and the absence of patch markers) says.
 */
import {
  ATOMIC_LIST,
  addLists,
  field,
  kindSchema,
  listOf,
  str,
  stringList,
  struct,
  withRequired,
  type Schema,
} from '../../machinery/openapi-schemas/helpers.js';

const RBAC = 'io.k8s.api.rbac.v1';
const GROUP = 'rbac.authorization.k8s.io';
const gvk = (kind: string) => ({ group: GROUP, version: 'v1', kind });

const rules = (owner: string): Schema => listOf(`${RBAC}.PolicyRule`, `The permissions ${owner} grants.`, ATOMIC_LIST);

const roleRef = (what: string): Schema =>
  field(`${RBAC}.RoleRef`, `The role granted: ${what}. Cannot be changed after creation.`, { withDefault: true });

const subjects: Schema = listOf(`${RBAC}.Subject`, 'Who the role is granted to.', ATOMIC_LIST);

export const rbacSchemas: Record<string, Schema> = {
  [`${RBAC}.Role`]: kindSchema({
    description: 'A Role is a namespaced set of permissions that a RoleBinding can grant.',
    gvk: gvk('Role'),
    properties: { rules: rules('this Role') },
  }),
  [`${RBAC}.ClusterRole`]: kindSchema({
    description:
      'A ClusterRole is a cluster-wide set of permissions that a RoleBinding or ClusterRoleBinding can grant.',
    gvk: gvk('ClusterRole'),
    properties: {
      aggregationRule: field(
        `${RBAC}.AggregationRule`,
        'If set, rules are computed by a controller from the ClusterRoles it selects, and direct edits are lost.',
      ),
      rules: rules('this ClusterRole'),
    },
  }),
  [`${RBAC}.RoleBinding`]: kindSchema({
    description:
      'A RoleBinding grants a Role, or a ClusterRole limited to this namespace, to users, groups or service accounts.',
    gvk: gvk('RoleBinding'),
    properties: {
      roleRef: roleRef('a Role in this namespace or a ClusterRole'),
      subjects,
    },
    required: ['roleRef'],
  }),
  [`${RBAC}.ClusterRoleBinding`]: kindSchema({
    description: 'A ClusterRoleBinding grants a ClusterRole cluster-wide to users, groups or service accounts.',
    gvk: gvk('ClusterRoleBinding'),
    properties: {
      roleRef: roleRef('a ClusterRole'),
      subjects,
    },
    required: ['roleRef'],
  }),
  [`${RBAC}.PolicyRule`]: withRequired(
    struct('One permission: verbs allowed on resources or on non-resource URLs.', {
      apiGroups: stringList('API groups of the resources; "" is the core group and "*" means all.'),
      nonResourceURLs: stringList(
        'Non-resource URL paths such as /healthz; "*" is allowed only as the last segment. Only meaningful in ' +
          'ClusterRoles bound cluster-wide.',
      ),
      resourceNames: stringList('Object names the rule is limited to; empty means all.'),
      resources: stringList('Resources, optionally with subresources ("pods/log"); "*" means all.'),
      verbs: stringList('Verbs allowed, such as get, list, create; "*" means all.'),
    }),
    ['verbs'],
  ),
  [`${RBAC}.Subject`]: withRequired(
    struct(
      'A user, group or service account a binding applies to.',
      {
        apiGroup: str('API group of the subject: "" for ServiceAccount, rbac.authorization.k8s.io otherwise.'),
        kind: str('User, Group or ServiceAccount.', { default: '' }),
        name: str('Name of the subject.', { default: '' }),
        namespace: str('Namespace of a ServiceAccount subject; must be empty for users and groups.'),
      },
      { 'x-kubernetes-map-type': 'atomic' },
    ),
    ['kind', 'name'],
  ),
  [`${RBAC}.RoleRef`]: withRequired(
    struct(
      'Names the role a binding grants.',
      {
        apiGroup: str('Always rbac.authorization.k8s.io.', { default: '' }),
        kind: str('Role or ClusterRole.', { default: '' }),
        name: str('Name of the role.', { default: '' }),
      },
      { 'x-kubernetes-map-type': 'atomic' },
    ),
    ['apiGroup', 'kind', 'name'],
  ),
  [`${RBAC}.AggregationRule`]: struct('How to find the ClusterRoles whose rules are combined into this one.', {
    clusterRoleSelectors: listOf(
      'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector',
      'ClusterRoles matching any selector contribute their rules.',
      ATOMIC_LIST,
    ),
  }),
};

addLists(rbacSchemas, RBAC, GROUP, 'v1', ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
