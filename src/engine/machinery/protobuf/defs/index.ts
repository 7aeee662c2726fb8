/**
 * Every package of Kubernetes messages we know, and which apiVersion/kind each top-level message is. Plain data:
 * looking a kind up does not load protobufjs or build the schema.
 */
import type { PackageDefs } from '../schema.js';
import { apiextensionsV1 } from './apiextensions.js';
import { authenticationV1, authorizationV1, coordinationV1 } from './auth.js';
import { autoscalingV1 } from './autoscaling.js';
import { coreV1 } from './core.js';
import { eventsV1 } from './events.js';
import { intstrPkg, metaV1, resourcePkg, runtimePkg } from './meta.js';
import { rbacV1 } from './rbac.js';

export const KUBE_PACKAGES: readonly PackageDefs[] = [
  metaV1,
  runtimePkg,
  resourcePkg,
  intstrPkg,
  coreV1,
  rbacV1,
  authorizationV1,
  authenticationV1,
  coordinationV1,
  eventsV1,
  apiextensionsV1,
  autoscalingV1,
];

/** `<apiVersion>|<Kind>` → message, for the kinds a request body may hold (built-in kinds, DeleteOptions). */
export const REQUEST_KINDS: ReadonlyMap<string, string> = new Map(
  KUBE_PACKAGES.flatMap((p) => (p.kinds ?? []).map((kind) => [`${p.apiVersion}|${kind}`, `${p.pkg}.${kind}`] as const)),
);

/** Kinds only ever answered: Status (`v1` in every group-version) and meta.k8s.io's `as=` conversions. */
export const ANSWER_KINDS: ReadonlyMap<string, string> = new Map([
  ['v1|Status', 'meta.v1.Status'],
  ['meta.k8s.io/v1|PartialObjectMetadata', 'meta.v1.PartialObjectMetadata'],
  ['meta.k8s.io/v1beta1|PartialObjectMetadata', 'meta.v1.PartialObjectMetadata'],
  ['meta.k8s.io/v1|PartialObjectMetadataList', 'meta.v1.PartialObjectMetadataList'],
  ['meta.k8s.io/v1beta1|PartialObjectMetadataList', 'meta.v1.PartialObjectMetadataList'],
]);

/** The message of a kind kube serves in protobuf (its built-in, typed kinds), or undefined (custom resources). */
export function protobufMessageOf(apiVersion: string, kind: string): string | undefined {
  const key = `${apiVersion}|${kind}`;
  return REQUEST_KINDS.get(key) ?? ANSWER_KINDS.get(key);
}

/** Whether kube serves this kind in protobuf. */
export function hasProtobufForm(apiVersion: string, kind: string): boolean {
  return protobufMessageOf(apiVersion, kind) !== undefined;
}
