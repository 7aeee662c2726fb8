/**
 * CRD create/update validation, after apiextensions-apiserver pkg/apis/apiextensions/validation
 * (ValidateCustomResourceDefinition and validateCustomResourceDefinitionSpec), in kube's order and at kube's paths.
 *
 * kube validates the *internal* CRD: its v1 → internal conversion lifts a per-version schema, subresources or
 * printer columns to the top level when every version carries the same value. So the usual single-version CRD
 * reports schema problems at `spec.validation.openAPIV3Schema…`, not `spec.versions[0].schema…`; a CRD whose
 * versions differ keeps the per-version paths. Printer columns, scale and selectable fields follow the same rule
 * (crd-version-fields.ts).
 */
import { withRE2Budget } from './re2-bounded.js';
import { fieldErrors, type FieldError } from '../machinery/status.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../machinery/validation.js';
import { apiApprovalState, isProtectedGroup, APPROVAL_ANNOTATION } from './api-approval.js';
import { goStringSlice, goVersionsDump } from './go-dump.js';
import { validateCRDVersionFields } from './crd-version-fields.js';
import { validateStructuralSchema } from './structural.js';
import { countRules, MAX_RULES_PER_CRD } from './cel/compile.js';
import { child, index } from './types.js';

export interface CRDLike {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: {
    group?: string;
    scope?: string;
    names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    versions?: {
      name?: string;
      served?: boolean;
      storage?: boolean;
      deprecated?: boolean;
      deprecationWarning?: string;
      schema?: { openAPIV3Schema?: unknown };
      subresources?: unknown;
      additionalPrinterColumns?: unknown;
      selectableFields?: unknown;
    }[];
    conversion?: { strategy?: string; webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] } };
    preserveUnknownFields?: boolean;
  };
  status?: { storedVersions?: string[] };
}

/**
 * ValidateCustomResourceDefinition for a create (`old` undefined) or an update. The CRD's patterns are compiled
 * within one bound together (re2-bounded.ts).
 */
export function validateCRDSpec(crd: CRDLike, old?: CRDLike): FieldError[] {
  return withRE2Budget(() => validateCRD(crd, old));
}

function validateCRD(crd: CRDLike, old?: CRDLike): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const group = spec.group ?? '';
  const name = crd.metadata?.name ?? '';

  // ValidateObjectMeta's name function: the DNS-subdomain rule runs in the generic store before this.
  if (name !== `${names.plural ?? ''}.${group}`) {
    errs.push(fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }

  if (!group) errs.push(fieldErrors.required('spec.group'));
  else if (isDNS1123Subdomain(group).length > 0) errs.push(fieldErrors.invalid('spec.group', group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));

  if (!spec.scope) errs.push(fieldErrors.required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
    errs.push(fieldErrors.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }

  const versions = spec.versions ?? [];
  // Printer columns, scale paths and selectable fields: per-version ones inside the loop, lifted ones after the names.
  const versionFields = validateCRDVersionFields(versions);
  const liftedSchema = versionFields.liftedFields.schema;
  const topSchema = liftedSchema ? versions[0]?.schema?.openAPIV3Schema : undefined;
  if (topSchema === undefined || topSchema === null) {
    versions.forEach((v, i) => {
      const s = liftedSchema ? undefined : v.schema?.openAPIV3Schema;
      if (s === undefined || s === null) errs.push(fieldErrors.required(`spec.versions[${i}].schema.openAPIV3Schema`));
    });
  }

  // Rules are compiled only within kcpt's bound on their number (cel/compile.ts).
  const ruleCount = (liftedSchema ? [topSchema] : versions.map((v) => v.schema?.openAPIV3Schema)).reduce<number>((n, sc) => n + countRules(sc, MAX_RULES_PER_CRD), 0);
  const compileRules = ruleCount <= MAX_RULES_PER_CRD;
  if (!compileRules) {
    errs.push(
      fieldErrors.forbidden(
        topSchema ? 'spec.validation.openAPIV3Schema' : 'spec.versions',
        `kcpt compiles at most ${MAX_RULES_PER_CRD} x-kubernetes-validations rules per CustomResourceDefinition (this one has more)`,
      ),
    );
  }

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const vp = index('spec.versions', i);
    if (v.storage === true) storageCount++;
    if (seen.has(v.name ?? '')) unique = false;
    seen.add(v.name ?? '');
    const nameErrs = isDNS1035Label(v.name ?? '');
    if (nameErrs.length > 0) errs.push(fieldErrors.invalid(child(vp, 'name'), v.name ?? '', nameErrs.join(',')));
    for (const msg of deprecationWarningErrors(v.deprecated === true, v.deprecationWarning)) {
      errs.push(fieldErrors.invalid(child(vp, 'deprecationWarning'), v.deprecationWarning, msg));
    }
    const schema = liftedSchema ? undefined : v.schema?.openAPIV3Schema;
    if (schema !== undefined && schema !== null) errs.push(...validateStructuralSchema(schema, `${vp}.schema.openAPIV3Schema`, { compileRules }));
    errs.push(...(versionFields.perVersion[i] ?? []));
  });

  // kube prints the internal versions slice with Go's %#v; schema pointers are addresses, so no two runs match.
  const versionsValue = () => goVersionsDump(versions, versionFields.liftedFields);
  if (!unique) errs.push(invalidGoValue('spec.versions', versionsValue(), 'must contain unique version names'));
  if (storageCount !== 1) errs.push(invalidGoValue('spec.versions', versionsValue(), 'must have exactly one version marked as storage version'));

  if (!names.plural) errs.push(fieldErrors.required('spec.names.plural'));
  if (!names.singular) errs.push(fieldErrors.required('spec.names.singular'));
  if (!names.kind) errs.push(fieldErrors.required('spec.names.kind'));
  if (!names.listKind) errs.push(fieldErrors.required('spec.names.listKind'));
  errs.push(...validateNames(names, 'spec.names'));

  if (topSchema !== undefined && topSchema !== null) errs.push(...validateStructuralSchema(topSchema, 'spec.validation.openAPIV3Schema', { compileRules }));
  errs.push(...versionFields.lifted);

  errs.push(...validateConversion(spec.conversion));

  if (crd.status?.storedVersions) errs.push(...validateStoredVersions(crd.status.storedVersions, versions));
  errs.push(...validateAPIApproval(crd, old));
  if (spec.preserveUnknownFields === true && old?.spec?.preserveUnknownFields !== true) {
    errs.push(
      fieldErrors.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'),
    );
  }
  return errs;
}

/** field.Invalid with a value Go renders with %#v (already rendered). */
function invalidGoValue(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: `Invalid value: ${rendered}: ${detail}` };
}

/** validateDeprecationWarning. */
function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const out: string[] = [];
  if (warning.length > 256) out.push('must be <= 256 characters long');
  if (warning.length === 0) out.push('must not be an empty string');
  const at = [...warning].findIndex((ch) => /[\p{C}]/u.test(ch));
  if (at >= 0) out.push(`must only contain printable UTF-8 characters; non-printable character found at index ${at}`);
  return out;
}

type Names = NonNullable<NonNullable<CRDLike['spec']>['names']>;

/** ValidateCustomResourceDefinitionNames (also used for status.acceptedNames upstream). */
export function validateNames(names: Names, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const dns = (f: string, value: string | undefined, mixedCase: boolean) => {
    if (!value) return;
    const es = isDNS1035Label(mixedCase ? value.toLowerCase() : value);
    if (es.length === 0) return;
    errs.push(fieldErrors.invalid(child(p, f), value, mixedCase ? `may have mixed case, but should otherwise match: ${es.join(',')}` : es.join(',')));
  };
  dns('plural', names.plural, false);
  dns('singular', names.singular, false);
  dns('kind', names.kind, true);
  dns('listKind', names.listKind, true);
  (names.shortNames ?? []).forEach((s, i) => {
    const es = isDNS1035Label(s);
    if (es.length > 0) errs.push(fieldErrors.invalid(index(child(p, 'shortNames'), i), s, es.join(',')));
  });
  if (names.kind && names.kind === names.listKind) {
    errs.push(fieldErrors.invalid(child(p, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  }
  (names.categories ?? []).forEach((s, i) => {
    const es = isDNS1035Label(s);
    if (es.length > 0) errs.push(fieldErrors.invalid(index(child(p, 'categories'), i), s, es.join(',')));
  });
  return errs;
}

/** validateCustomResourceConversion, at the internal type's paths (`webhookClientConfig`). */
function validateConversion(conversion: NonNullable<CRDLike['spec']>['conversion']): FieldError[] {
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = conversion.strategy ?? '';
  if (!strategy) errs.push(fieldErrors.required('spec.conversion.strategy'));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(fieldErrors.notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  const webhook = conversion.webhook;
  if (strategy === 'Webhook') {
    if (!webhook?.clientConfig) errs.push(fieldErrors.required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
    const reviewVersions = webhook?.conversionReviewVersions ?? [];
    if (reviewVersions.length === 0) errs.push(fieldErrors.required('spec.conversion.conversionReviewVersions'));
  } else {
    if (webhook?.clientConfig) {
      errs.push(fieldErrors.forbidden('spec.conversion.webhookClientConfig', 'should not be set when strategy is not set to Webhook'));
    }
    if ((webhook?.conversionReviewVersions ?? []).length > 0) {
      errs.push(fieldErrors.forbidden('spec.conversion.conversionReviewVersions', 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errs;
}

/** ValidateCustomResourceDefinitionStoredVersions: a version objects may still be stored in cannot be dropped. */
function validateStoredVersions(stored: string[], versions: NonNullable<NonNullable<CRDLike['spec']>['versions']>): FieldError[] {
  const p = 'status.storedVersions';
  if (stored.length === 0) return [invalidGoValue(p, goStringSlice(stored), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    const name = v.name ?? '';
    if (v.storage === true && !stored.includes(name)) errs.push(invalidGoValue(p, goStringSlice(stored), `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) {
    errs.push(
      fieldErrors.invalid(
        `${p}[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

/** validateAPIApproval: an update that keeps the approval state is never refused. */
function validateAPIApproval(crd: CRDLike, old: CRDLike | undefined): FieldError[] {
  if (!isProtectedGroup(crd.spec?.group ?? '')) return [];
  const next = apiApprovalState(crd.metadata?.annotations);
  if (old && apiApprovalState(old.metadata?.annotations).state === next.state) return [];
  const path = `metadata.annotations[${APPROVAL_ANNOTATION}]`;
  switch (next.state) {
    case 'Missing':
      return [fieldErrors.required(path, next.reason)];
    case 'Invalid':
      return [fieldErrors.invalid(path, crd.metadata?.annotations?.[APPROVAL_ANNOTATION] ?? '', next.reason)];
    default:
      return [];
  }
}
