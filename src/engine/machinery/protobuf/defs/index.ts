/**
 * The Kubernetes message packages shared by every group, and which apiVersion/kind each top-level message is.
 * Plain data: looking a kind up does not load protobufjs or build the schema.
 */
import type { PackageDefs } from '../schema.js';
import { apiextensionsV1 } from './apiextensions.js';
import { authenticationV1, authorizationV1 } from './auth.js';
import { autoscalingV1 } from './autoscaling.js';
import { intstrPkg, metaV1, resourcePkg, runtimePkg } from './meta.js';

/**
 * The packages no built-in group owns: meta and the runtime envelope (every kind refers to them), Scale, and the
 * kinds served outside builtin/ (the review APIs, CustomResourceDefinition). Each built-in group brings its own.
 */
export const sharedProtobufPackages: readonly PackageDefs[] = [
  metaV1,
  runtimePkg,
  resourcePkg,
  intstrPkg,
  authorizationV1,
  authenticationV1,
  apiextensionsV1,
  autoscalingV1,
];

/** `<apiVersion>|<Kind>` → message, for the kinds a request body may hold (typed kinds, DeleteOptions). */
export function requestKindsOf(packages: readonly PackageDefs[]): ReadonlyMap<string, string> {
  return new Map(
    packages.flatMap((p) => (p.kinds ?? []).map((kind) => [`${p.apiVersion}|${kind}`, `${p.pkg}.${kind}`] as const)),
  );
}

/** Kinds only ever answered: Status (`v1` in every group-version) and meta.k8s.io's `as=` conversions. */
export const ANSWER_KINDS: ReadonlyMap<string, string> = new Map([
  ['v1|Status', 'meta.v1.Status'],
  ['meta.k8s.io/v1|PartialObjectMetadata', 'meta.v1.PartialObjectMetadata'],
  ['meta.k8s.io/v1beta1|PartialObjectMetadata', 'meta.v1.PartialObjectMetadata'],
  ['meta.k8s.io/v1|PartialObjectMetadataList', 'meta.v1.PartialObjectMetadataList'],
  ['meta.k8s.io/v1beta1|PartialObjectMetadataList', 'meta.v1.PartialObjectMetadataList'],
]);
