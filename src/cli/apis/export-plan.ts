/**
 * What `kcpt export NAME -f …` has to do, decided without the network: which APIResourceSchemas to create, which
 * existing ones to reuse, and the export's new `spec.resources`. Schemas are immutable, so a changed CRD gets a new
 * schema name (the default prefix carries a hash of the content) and the export is rolled to it; an unchanged CRD
 * maps to the schema already there, so running the command twice changes nothing.
 */
import { CliError } from '../common/errors.js';
import type { APIResourceSchema, ExportResource } from '../../client/apis-api.js';
import { contentHash, crdToSchema, defaultPrefix, isDefaultNameFor } from './snapshot.js';
import { type SourcedCrd } from '../../client/crd-manifests.js';

export interface ExportPlan {
  /** One schema per CRD, in file order, each either new or already in the workspace. */
  schemas: { schema: APIResourceSchema; exists: boolean }[];
  /** The export's resources after the command (exactly the CRDs given). */
  resources: ExportResource[];
  /** What changed in the export's resources, for the messages: resource → old and new schema. */
  changes: { resource: string; from?: string; to?: string }[];
}

export interface PlanInput {
  crds: SourcedCrd[];
  /** `--prefix`; when absent, `v<YYMMDD>-<content hash>` per CRD. */
  prefix?: string;
  existingSchemas: APIResourceSchema[];
  /** The export's current resources; undefined when the export does not exist yet. */
  currentResources?: ExportResource[];
  now: Date;
}

export function planExport(input: PlanInput): ExportPlan {
  const byName = new Map(input.existingSchemas.map((s) => [s.metadata.name, s]));
  const seen = new Map<string, string>();
  const schemas = input.crds.map((crd) => {
    const crdName = crd.crd.metadata?.name ?? '';
    let schema: APIResourceSchema;
    if (input.prefix !== undefined) {
      schema = crdToSchema(crd, input.prefix);
    } else {
      const draft = crdToSchema(crd, 'v000000-00000000');
      const hash = contentHash(draft.spec);
      const reuse = input.existingSchemas.find((s) => isDefaultNameFor(s.metadata.name, hash, crdName) && sameSpec(s, draft));
      schema = reuse ? { ...draft, metadata: { name: reuse.metadata.name } } : crdToSchema(crd, defaultPrefix(draft.spec, input.now));
    }
    const resource = `${schema.spec.names.plural}.${schema.spec.group}`;
    const earlier = seen.get(resource);
    if (earlier) throw new CliError(`${crd.source} and ${earlier} both define ${resource}; an export serves each resource once`);
    seen.set(resource, crd.source);
    const existing = byName.get(schema.metadata.name);
    if (existing && !sameSpec(existing, schema)) {
      throw new CliError(
        `apiresourceschema "${schema.metadata.name}" already exists with a different spec (schemas are immutable): export the changed CRD with another --prefix`,
      );
    }
    return { schema, exists: Boolean(existing) };
  });

  const resources: ExportResource[] = schemas.map(({ schema }) => ({
    group: schema.spec.group,
    name: schema.spec.names.plural,
    schema: schema.metadata.name,
    storage: { crd: {} },
  }));
  const key = (r: { group: string; name: string }) => `${r.name}.${r.group}`;
  const before = new Map((input.currentResources ?? []).map((r) => [key(r), r.schema]));
  const after = new Map(resources.map((r) => [key(r), r.schema]));
  const changes: ExportPlan['changes'] = [];
  for (const [resource, to] of after) if (before.get(resource) !== to) changes.push({ resource, from: before.get(resource), to });
  for (const [resource, from] of before) if (!after.has(resource)) changes.push({ resource, from });
  return { schemas, resources, changes };
}

/** Two schemas with the same spec (the server may add defaults, so compare what the CRD file defines). */
function sameSpec(existing: APIResourceSchema, wanted: APIResourceSchema): boolean {
  return contentHash(pick(existing.spec, wanted.spec)) === contentHash(wanted.spec);
}

/** `actual` restricted to the keys `template` has, recursively through objects and same-length arrays. */
function pick<T>(actual: T, template: T): T {
  if (Array.isArray(actual) && Array.isArray(template)) {
    return (actual.length === template.length ? actual.map((a, i) => pick(a, template[i])) : actual) as T;
  }
  if (!actual || !template || typeof actual !== 'object' || typeof template !== 'object' || Array.isArray(template)) return actual;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(template as object)) {
    out[k] = pick((actual as Record<string, unknown>)[k], (template as Record<string, unknown>)[k]);
  }
  return out as T;
}
