/**
 * Go's `%#v` rendering of the internal `[]apiextensions.CustomResourceDefinitionVersion`, which kube prints as the
 * value of `spec.versions` errors ("must have exactly one version marked as storage version"). Per-version fields
 * the v1 → internal conversion lifted to the top level are nil here, as they are in kube. Pointers print as
 * addresses in Go; kcpt prints stable made-up ones, so only their shape matches.
 */
import type { LiftedFields } from './crd-version-fields.js';
import { isPlainObject } from './types.js';

interface VersionLike {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: unknown;
  subresources?: unknown;
  additionalPrinterColumns?: unknown;
  selectableFields?: unknown;
}

const q = (s: unknown) => JSON.stringify(typeof s === 'string' ? s : '');

function pointer(type: string, present: boolean, n: number): string {
  return present ? `(*${type})(0xc000${(0x5a0000 + n * 0x1c8).toString(16)})` : `(*${type})(nil)`;
}

function columns(v: unknown): string {
  const type = 'apiextensions.CustomResourceColumnDefinition';
  if (!Array.isArray(v) || v.length === 0) return `[]${type}(nil)`;
  const items = v.map((c) => {
    const o = isPlainObject(c) ? c : {};
    const priority = typeof o.priority === 'number' ? o.priority : 0;
    return `${type}{Name:${q(o.name)}, Type:${q(o.type)}, Format:${q(o.format)}, Description:${q(o.description)}, Priority:${priority}, JSONPath:${q(o.jsonPath)}}`;
  });
  return `[]${type}{${items.join(', ')}}`;
}

function selectable(v: unknown): string {
  const type = 'apiextensions.SelectableField';
  if (!Array.isArray(v) || v.length === 0) return `[]${type}(nil)`;
  return `[]${type}{${v.map((f) => `${type}{JSONPath:${q(isPlainObject(f) ? f.jsonPath : '')}}`).join(', ')}}`;
}

export function goVersionsDump(versions: readonly VersionLike[], lifted: LiftedFields): string {
  const type = 'apiextensions.CustomResourceDefinitionVersion';
  const items = versions.map((v, i) => {
    const fields = [
      `Name:${q(v.name)}`,
      `Served:${v.served === true}`,
      `Storage:${v.storage === true}`,
      `Deprecated:${v.deprecated === true}`,
      `DeprecationWarning:${pointer('string', v.deprecationWarning !== undefined, i * 4)}`,
      `Schema:${pointer('apiextensions.CustomResourceValidation', !lifted.schema && v.schema != null, i * 4 + 1)}`,
      `Subresources:${pointer('apiextensions.CustomResourceSubresources', !lifted.subresources && v.subresources != null, i * 4 + 2)}`,
      `AdditionalPrinterColumns:${lifted.columns ? columns(undefined) : columns(v.additionalPrinterColumns)}`,
      `SelectableFields:${lifted.selectable ? selectable(undefined) : selectable(v.selectableFields)}`,
    ];
    return `${type}{${fields.join(', ')}}`;
  });
  return `[]${type}{${items.join(', ')}}`;
}

/** `%#v` of a []string: `[]string{"a", "b"}`, or `[]string(nil)` for a nil (empty) slice. */
export function goStringSlice(values: readonly string[]): string {
  return values.length === 0 ? '[]string(nil)' : `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** `%#v` of the internal apiextensions.ValidationRule, which kube prints as the value of a rule's compile errors. */
export function goValidationRuleDump(r: { rule?: unknown; message?: unknown; messageExpression?: unknown; reason?: unknown; fieldPath?: unknown; optionalOldSelf?: unknown }): string {
  const fields = [
    `Rule:${q(r.rule)}`,
    `Message:${q(r.message)}`,
    `MessageExpression:${q(r.messageExpression)}`,
    `Reason:${pointer('apiextensions.FieldValueErrorReason', r.reason !== undefined, 0)}`,
    `FieldPath:${q(r.fieldPath)}`,
    `OptionalOldSelf:${pointer('bool', r.optionalOldSelf !== undefined, 1)}`,
  ];
  return `apiextensions.ValidationRule{${fields.join(', ')}}`;
}
