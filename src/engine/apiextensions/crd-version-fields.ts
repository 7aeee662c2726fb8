/**
 * Validation of a v1 CRD's per-version printer columns, scale subresource and selectable fields, reported at the
 * field paths kube reports them.
 *
 * kube validates the internal CRD type, and its v1 → internal conversion
 * (Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec) moves a per-version field
 * to the top level when every version has the same value; selectable fields move only when the schemas move too.
 * So in the common single-version CRD a bad column is `spec.additionalPrinterColumns[0].type`, not
 * `spec.versions[0]…`, and a version whose selectable fields stayed behind while its schema moved up is told its
 * schema is missing (kube's wording, kept as is).
 */
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { validatePrinterColumns } from './printer-columns.js';
import { validateScaleSubresource } from './scale.js';
import { validateSelectableFields } from './selectable-fields.js';
import { isPlainObject } from './types.js';

export interface CRDVersionFields {
  schema?: unknown;
  subresources?: unknown;
  additionalPrinterColumns?: unknown;
  selectableFields?: unknown;
}

/** JSON with sorted keys, for comparing normalised values. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isPlainObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> => (isPlainObject(v) ? v : {});

// Each normaliser maps a version's JSON onto the Go struct it decodes to, so Semantic.DeepEqual's view of
// "identical" is reproduced: zero values equal absent ones, nil slices equal empty ones, nil pointers do not.
const normalisers = {
  schema: (v: CRDVersionFields) => (v.schema === undefined || v.schema === null ? null : canonical(v.schema)),
  subresources: (v: CRDVersionFields) => {
    if (v.subresources === undefined || v.subresources === null) return null;
    const s = obj(v.subresources);
    const scale = s.scale === undefined || s.scale === null ? null : obj(s.scale);
    return canonical({
      status: s.status === undefined || s.status === null ? null : true,
      scale: scale && {
        specReplicasPath: str(scale.specReplicasPath),
        statusReplicasPath: str(scale.statusReplicasPath),
        labelSelectorPath: scale.labelSelectorPath === undefined || scale.labelSelectorPath === null ? null : str(scale.labelSelectorPath),
      },
    });
  },
  columns: (v: CRDVersionFields) =>
    canonical(
      list(v.additionalPrinterColumns).map((c) => {
        const o = obj(c);
        return { name: str(o.name), type: str(o.type), format: str(o.format), description: str(o.description), priority: typeof o.priority === 'number' ? o.priority : 0, jsonPath: str(o.jsonPath) };
      }),
    ),
  selectable: (v: CRDVersionFields) => canonical(list(v.selectableFields).map((f) => ({ jsonPath: str(obj(f).jsonPath) }))),
};

function identical(versions: readonly CRDVersionFields[], normalise: (v: CRDVersionFields) => string | null): boolean {
  // One version is identical to itself: no canonical text of its schema (a tenant's 0.8 MB schema cost ~60 ms of
  // the event loop here, twice over, on every CRD write).
  if (versions.length <= 1) return true;
  const first = normalise(versions[0]);
  return versions.slice(1).every((v) => normalise(v) === first);
}

const openAPIV3Schema = (schema: unknown) => (isPlainObject(schema) ? schema.openAPIV3Schema : undefined);

/** Which per-version fields kube's conversion moves to the top level (so they are gone from every version). */
export interface LiftedFields {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
  selectable: boolean;
}

export function liftedFields(versions: readonly CRDVersionFields[]): LiftedFields {
  const schema = versions.length > 0 && identical(versions, normalisers.schema);
  return {
    schema,
    subresources: versions.length > 0 && identical(versions, normalisers.subresources),
    columns: versions.length > 0 && identical(versions, normalisers.columns),
    selectable: schema && identical(versions, normalisers.selectable),
  };
}

export interface VersionFieldErrors {
  /** Errors at `spec.versions[i]…` for each version i, reported inside kube's per-version loop. */
  perVersion: FieldError[][];
  /** Errors at the lifted top-level paths, reported after the names. */
  lifted: FieldError[];
  liftedFields: LiftedFields;
}

/** Errors for the per-version fields of `spec.versions`, split the way kube orders them. */
export function validateCRDVersionFields(versions: readonly CRDVersionFields[]): VersionFieldErrors {
  const lift = liftedFields(versions);
  const perVersion: FieldError[][] = versions.map(() => []);
  const lifted: FieldError[] = [];
  if (versions.length === 0) return { perVersion, lifted, liftedFields: lift };

  versions.forEach((v, i) => {
    const vp = `spec.versions[${i}]`;
    const errs = perVersion[i]!;
    if (!lift.subresources) errs.push(...validateScaleSubresource(v.subresources, `${vp}.subresources`));
    if (!lift.columns) errs.push(...validatePrinterColumns(v.additionalPrinterColumns, `${vp}.additionalPrinterColumns`));
    const fields = list(v.selectableFields);
    if (!lift.selectable && fields.length > 0) {
      // A lifted schema is no longer on the version, whatever the version's JSON says.
      const schema = lift.schema ? undefined : openAPIV3Schema(v.schema);
      if (schema === undefined || schema === null) {
        errs.push(fieldErrors.invalid(`${vp}.selectableFields`, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
      } else errs.push(...validateSelectableFields(fields, schema, `${vp}.selectableFields`));
    }
  });

  const first = versions[0] ?? {};
  if (lift.subresources) lifted.push(...validateScaleSubresource(first.subresources, 'spec.subresources'));
  if (lift.columns) lifted.push(...validatePrinterColumns(first.additionalPrinterColumns, 'spec.additionalPrinterColumns'));
  const fields = list(first.selectableFields);
  if (lift.selectable && fields.length > 0) {
    if (first.schema === undefined || first.schema === null) {
      lifted.push(fieldErrors.invalid('spec.selectableFields', '', 'selectableFields may only be set when validations.schema is included'));
    } else lifted.push(...validateSelectableFields(fields, openAPIV3Schema(first.schema), 'spec.selectableFields'));
  }
  return { perVersion, lifted, liftedFields: lift };
}
