/**
 * CustomResourceDefinitions and objects for the crds-*.test.ts suites: small builders that produce the YAML a user
 * would write, and the apply-then-wait-Established dance every suite starts with.
 */
import { stringify as toYaml } from 'yaml';
import { tempFile, type ClusterKubectl, type KubectlOptions } from '../helpers/kubectl.js';
import { lines } from '../helpers/suite.js';

export type Json = Record<string, unknown>;

export interface CRDOptions {
  group?: string;
  plural: string;
  kind: string;
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  scope?: 'Namespaced' | 'Cluster';
  /** Versions; by default one served storage version `v1` with `schema`. */
  versions?: Json[];
  schema?: Json;
  annotations?: Record<string, string>;
  /** Extra fields for the single default version (subresources, additionalPrinterColumns, selectableFields). */
  version?: Json;
}

/** A spec with color (enum), replicas (default 1, 0..10), size (pattern), tags (set), port (int-or-string). */
export const widgetSchema: Json = {
  type: 'object',
  description: 'A Widget is a test gadget.',
  properties: {
    spec: {
      type: 'object',
      description: 'Spec of the widget.',
      required: ['color'],
      properties: {
        color: { type: 'string', description: 'The color of the widget.', enum: ['red', 'green', 'blue'] },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        size: { type: 'string', pattern: '^[0-9]+(cm|m)$' },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        port: { 'x-kubernetes-int-or-string': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: {
      type: 'object',
      properties: { replicas: { type: 'integer' }, ready: { type: 'boolean' }, selector: { type: 'string' } },
    },
  },
};

/** A CRD's openAPIV3Schema with only `spec`, for rules written against it. */
export const specWith = (spec: Json): Json => ({ type: 'object', properties: { spec } });

export function crdObject(o: CRDOptions): Json {
  const group = o.group ?? 'example.com';
  const names: Json = { plural: o.plural, kind: o.kind };
  if (o.singular) names.singular = o.singular;
  if (o.shortNames) names.shortNames = o.shortNames;
  if (o.categories) names.categories = o.categories;
  const metadata: Json = { name: `${o.plural}.${group}` };
  if (o.annotations) metadata.annotations = o.annotations;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata,
    spec: {
      group,
      scope: o.scope ?? 'Namespaced',
      names,
      versions: o.versions ?? [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: o.schema ?? widgetSchema }, ...(o.version ?? {}) },
      ],
    },
  };
}

export const yaml = (obj: Json | Json[]): string =>
  Array.isArray(obj) ? obj.map((o) => toYaml(o)).join('---\n') : toYaml(obj);

/** `kubectl apply -f` the CRD, then `kubectl wait --for=condition=Established`. */
export async function applyCRD(k: ClusterKubectl, crd: Json, opts: KubectlOptions = {}): Promise<string> {
  const name = (crd.metadata as { name: string }).name;
  const file = await tempFile(`${name}.yaml`, yaml(crd));
  const applied = await k(['apply', '-f', file], opts);
  await k(['wait', '--for=condition=Established', `crd/${name}`, '--timeout=30s'], opts);
  return applied.stdout;
}

/** Runs kubectl with `obj` as a file (`-f <file>` appended), for create/apply/replace. */
export async function withFile(k: ClusterKubectl, args: string[], obj: Json | Json[], opts: KubectlOptions = {}) {
  const file = await tempFile('object.yaml', yaml(obj));
  return k([...args, '-f', file], opts);
}

/** `kubectl <args> -f <obj>` that must fail: kubectl's stderr, line by line (the exit code is asserted non-zero). */
export async function refusedLines(k: ClusterKubectl, args: string[], obj: Json): Promise<string[]> {
  const result = await withFile(k, args, obj, { reject: false });
  if (result.exitCode === 0) throw new Error(`kubectl ${args.join(' ')} succeeded: ${result.stdout}`);
  return lines(result.stderr);
}

export function widget(name: string, spec: Json, extra: Json = {}): Json {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra };
}

/** The conditions of a CRD as `type status reason message` lines. */
export async function conditions(k: ClusterKubectl, crdName: string): Promise<string[]> {
  const out = await k([
    'get', 'crd', crdName, '-o', 'jsonpath={range .status.conditions[*]}{.type} {.status} {.reason} {.message}{"\\n"}{end}',
  ]);
  return out.stdout.split('\n').filter((l) => l !== '');
}
