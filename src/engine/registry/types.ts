/**
 * A ResourceType describes one served resource: built-ins, CRDs and bound APIs are all ResourceTypes, and one
 * generic REST store serves every verb for all of them. Everything that differs per resource sits here.
 */
import type { PatchSchema } from '../machinery/patch/schema.js';
import type { FieldError } from '../machinery/status.js';

// The object shapes live below, in machinery (which reads and validates them); served resources are described here.
export type { KubeObject, ObjectMeta, OwnerReference, TableColumn, TablePrinter } from '../machinery/object-types.js';
import type { KubeObject, TableColumn, TablePrinter } from '../machinery/object-types.js';

export interface StrategyContext {
  /** Logical cluster name the request targets. */
  cluster: string;
  /** The authenticated user, for strategies that record creators. Absent for the server's own writes. */
  user?: { username: string; groups: string[]; uid?: string; extra?: Record<string, string[]> };
  /**
   * The server writes this on the user's behalf after authorizing it itself (a home workspace): the user is still
   * recorded as creator, but permission checks meant for the user's own requests are skipped.
   */
  onBehalfOfUser?: boolean;
  /**
   * kcp's deep SubjectAccessReview (header `X-Kcp-Internal-Deep-SubjectAccessReview` from a system:masters caller,
   * e.g. another shard checking `bind`): answered by RBAC in the cluster, without the workspace access check.
   */
  deepReview?: boolean;
  /** What the virtual workspace serving this request lets it write beyond its caller's own clearance. */
  grant?: WriteGrant;
}

/**
 * A write a virtual workspace allows on top of the caller's own rights (admission/write-authority.ts decides what it
 * covers): an initializer (terminator) removing itself, and only itself, from its LogicalCluster's status list.
 */
export interface WriteGrant {
  lifecycle: { list: 'initializers' | 'terminators'; name: string };
}

/**
 * Per-resource policy, modelled on k8s.io/apiserver's create/update strategies. Validation returns field errors
 * (never throws); the generic store turns them into a 422 Invalid.
 */
export interface Strategy {
  /** Resources with spec semantics bump metadata.generation on spec changes. */
  tracksGeneration?: boolean;
  /** True when a `status` subresource exists: writes to the main resource keep the stored status. */
  hasStatusSubresource?: boolean;
  /** Allow PUT with an empty resourceVersion (most built-ins: yes; CRs: no). */
  allowUnconditionalUpdate?: boolean;
  /** Name validation: DNS-1123 subdomain (default), label, or path-segment. */
  nameValidation?: 'subdomain' | 'label' | 'path-segment';
  /** Fill defaults on create and update (mutates). */
  defaults?(obj: KubeObject, ctx: StrategyContext): void;
  prepareForCreate?(obj: KubeObject, ctx: StrategyContext): void;
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  /** `old`: the stored object, on an update (custom resources ratchet schema errors on values left unchanged). */
  validate?(obj: KubeObject, ctx: StrategyContext, old?: KubeObject): FieldError[];
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
  /**
   * Validating admission, after schema validation as in kube-apiserver: rules that need other objects (workspace
   * types, the parent LogicalCluster). Throws a StatusError (kcp answers these with 403 Forbidden).
   */
  admit?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void;
  /**
   * Asynchronous work admission needs before a create, update or apply of `obj` (the request body): asking another
   * shard whether the user may do it. Throws a StatusError to refuse; otherwise `admit` finds the answer.
   */
  admitAhead?(obj: KubeObject, ctx: StrategyContext): Promise<void>;
  /**
   * Validating admission of a DELETE (a request's, or the server's own when `ctx.user` is absent): throws a
   * StatusError to refuse, e.g. an APIResourceSchema still named by an APIExport.
   */
  admitDelete?(obj: KubeObject, ctx: StrategyContext): void;
  /** For the status subresource: copy everything but status from old (default implementation does this). */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject): void;
  /**
   * Extra things that hold an object back from removal besides metadata.finalizers (a Namespace's
   * spec.finalizers): while non-empty, DELETE only marks the object with deletionTimestamp.
   */
  deletionBlockers?(obj: KubeObject): string[];
  /** Mutate an object being marked for deletion (a Namespace turns Terminating). */
  prepareForDelete?(obj: KubeObject): void;
  /** Warnings to return on create/update (as `Warning: 299` headers). */
  warnings?(obj: KubeObject, old?: KubeObject): string[];
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface ResourceType {
  group: string;
  /** Served version (one ResourceType per served group-version-resource). */
  version: string;
  /** Plural resource name, e.g. `configmaps`. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  /** Subresources served in addition to the main resource. */
  subresources?: {
    status?: boolean;
    scale?: ScaleSubresource;
    finalize?: boolean;
    /** ServiceAccounts' `token` (TokenRequest, create only). */
    token?: boolean;
  };
  strategy: Strategy;
  /**
   * Warnings every request to this group/version/resource gets, whatever its verb or answer (kube's CRD handler:
   * a deprecated custom resource version's deprecationWarning).
   */
  requestWarnings?: readonly string[];
  printer?: TablePrinter;
  /** Extra field selectors beyond metadata.name / metadata.namespace: label → value extractor. */
  fieldSelectors?: Record<string, (obj: KubeObject) => string | undefined>;
  /**
   * Storage key segment for this resource's objects (`<group or core>/<resource>`; bound APIs add the export
   * identity). Objects of every served version of one resource share it.
   */
  storagePrefix: string;
  /** The version objects are stored in (others are converted by rewriting apiVersion). */
  storageVersion: string;
  /** Name of this kind in the OpenAPI components (for the OpenAPI document builder, pruning and SSA type info). */
  openapiSchemaName?: string;
  /**
   * OpenAPI component schemas this type brings besides the shared ones (meta, Scale, …: machinery/openapi-schemas):
   * a built-in group's kinds and those they refer to, or a CRD version's schema (with `metadata` referring to
   * ObjectMeta). `openapiSchemaName` names one of them.
   */
  schemas?: Readonly<Record<string, Record<string, unknown>>>;
  /** Strategic-merge keys of a built-in kind's own fields; absent, only ObjectMeta's (custom resources refuse it). */
  patchSchema?: PatchSchema;
  /**
   * Custom resources (served from a CRD or, later, a bound APIResourceSchema): strategic merge patch answers 415,
   * unconditional updates are refused, and server-side apply reads list/map types from the CRD schema.
   */
  isCustomResource?: boolean;
  /** Opaque hash for legacy discovery's storageVersionHash. */
  storageVersionHash?: string;
  /**
   * For a resource served in a shape other than the one it is stored in (events.k8s.io/v1 Events live in the
   * core/v1 Event key space, `storagePrefix: 'core/events'`). `toStorage` turns a served-shape object into the
   * stored shape right before it is encoded; `fromStorage` turns a stored object back before it is returned (GET,
   * LIST items, watch events) and before it is handed to the strategy as `old`. Strategy hooks and the printer see the
   * served shape; field selectors run on stored objects, so their extractors must accept the stored shape (the
   * events ones accept both). Absent: stored shape = served shape, and stored bytes may be spliced as they are.
   */
  convert?: {
    toStorage(obj: KubeObject): KubeObject;
    fromStorage(obj: KubeObject): KubeObject;
    /** fromStorage on stored JSON text, returning JSON text: the same string when nothing changes (saves a stringify). */
    fromStorageText?(json: string): string;
    /**
     * Every writer of the type stores what fromStorage gives back (kcpt's own custom resources served in their
     * storage version: the schema is kcpt's, requests are pruned and defaulted, and its controllers write only
     * fields the schema has), so what the current server writes reads back as stored and its watchers can skip the
     * conversion. Objects stored by an earlier build (a schema that has changed since) are converted as ever.
     */
    storedAsRead?: boolean;
  };
  /**
   * Non-stored, create-only kinds (SelfSubjectAccessReview, TokenReview, …): computes the response object.
   * Such types are never written to storage.
   */
  virtualCreate?(obj: KubeObject, ctx: VirtualCreateContext): KubeObject | Promise<KubeObject>;
  /**
   * Only on `*` wildcard types of resources that logical clusters define for themselves (custom resources): whether
   * the objects stored under `cluster` belong to this group/version/resource there right now. Wildcard list and
   * watch skip the objects of clusters answering undefined. Absent: every cluster's objects belong (built-ins).
   */
  servedIn?(cluster: string): { namespaced: boolean } | undefined;
  /**
   * Only on `*` wildcard types whose objects can belong in a few known clusters (a virtual workspace's consumers):
   * those clusters, asked once per list. A wildcard list then reads only their key ranges, merged in key order,
   * instead of every cluster's keys; `servedIn` still decides per key (and alone for watch events). Absent: the
   * whole prefix is read.
   */
  servedClusters?(): Iterable<string>;
}

export interface VirtualCreateContext extends StrategyContext {
  namespace: string;
}

/** Group-version-kind and group-version-resource helpers. */
export function apiVersionOf(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}
