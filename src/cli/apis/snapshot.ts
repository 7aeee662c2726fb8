/**
 * kcp's `kubectl kcp crd snapshot`: CustomResourceDefinitions (multi-document YAML or JSON) → APIResourceSchemas
 * (apis.kcp.io/v1alpha1), one per CRD, named `<prefix>.<crd name>` (= `<prefix>.<plural>.<group>`). A schema is
 * an immutable copy of the CRD's API: group, names, scope, and per version served/storage/deprecation, the OpenAPI
 * schema (stored directly under `schema`, not under `openAPIV3Schema`), subresources, printer columns and
 * selectable fields. Pure: no files, no network; the commands read the files and print the result.
 */
import { createHash } from 'node:crypto';
import { isDNS1123Subdomain } from '../../engine/machinery/validation.js';
import { CliError } from '../common/errors.js';
import type { APIResourceSchema } from '../../client/apis-api.js';
import type { CrdVersion, SourcedCrd } from '../../client/crd-manifests.js';

type Json = Record<string, unknown>;

/** The schema for one CRD; errors read like kcp's (`error converting CRD: …`). */
export function crdToSchema({ crd, source }: SourcedCrd, prefix: string): APIResourceSchema {
  const fail = (msg: string): never => {
    throw new CliError(`error converting CRD: ${msg}`);
  };
  const crdName = crd.metadata?.name;
  if (!crdName) fail(`${source}: metadata.name is required`);
  const spec = crd.spec ?? {};
  if (!spec.group) fail(`${crdName}: spec.group is required`);
  if (!spec.names?.plural || !spec.names.kind) fail(`${crdName}: spec.names.plural and spec.names.kind are required`);
  if (!spec.scope) fail(`${crdName}: spec.scope is required`);
  const versions = spec.versions ?? [];
  if (versions.length === 0) fail(`${crdName}: spec.versions must have at least one version`);

  const name = `${prefix}.${crdName}`;
  const problems = isDNS1123Subdomain(name);
  if (problems.length > 0) {
    const errs = problems.map((p) => `metadata.name: Invalid value: "${name}": ${p}`);
    fail(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
  }

  const schema: APIResourceSchema = {
    apiVersion: 'apis.kcp.io/v1alpha1',
    kind: 'APIResourceSchema',
    metadata: { name },
    spec: {
      group: spec.group!,
      names: spec.names as APIResourceSchema['spec']['names'],
      scope: spec.scope!,
      versions: versions.map((v) => schemaVersion(v)),
    },
  };

  const conversion = spec.conversion;
  if (versions.length > 1 && !conversion) fail(`multiple versions specified for ${crdName} but no conversion strategy`);
  if (conversion) {
    if (conversion.strategy === 'Webhook') {
      const clientConfig = conversion.webhook?.clientConfig;
      if (clientConfig?.service) fail(`${crdName}: webhooks that refer to services are not supported, please use URL instead`);
      schema.spec.conversion = {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: clientConfig?.url, ...(clientConfig?.caBundle ? { caBundle: clientConfig.caBundle } : {}) },
          conversionReviewVersions: conversion.webhook?.conversionReviewVersions,
        },
      };
    } else {
      schema.spec.conversion = { strategy: conversion.strategy ?? 'None' };
    }
  }
  return schema;
}

function schemaVersion(v: CrdVersion): Json {
  const out: Json = { name: v.name, served: v.served ?? false, storage: v.storage ?? false };
  if (v.deprecated) out.deprecated = true;
  if (v.deprecationWarning) out.deprecationWarning = v.deprecationWarning;
  // kcp's APIResourceVersion always carries schema and subresources (non-pointer fields).
  out.schema = v.schema?.openAPIV3Schema ?? {};
  out.subresources = v.subresources ?? {};
  if (v.additionalPrinterColumns?.length) out.additionalPrinterColumns = v.additionalPrinterColumns;
  if (v.selectableFields?.length) out.selectableFields = v.selectableFields;
  return out;
}

/** kcp's output: each schema as a YAML or JSON document followed by a `---` line. */
export async function renderSchemas(schemas: APIResourceSchema[], format: 'yaml' | 'json'): Promise<string> {
  if (format === 'json') return schemas.map((s) => `${JSON.stringify(s, null, 4)}\n---\n`).join('');
  const { dump } = await import('js-yaml');
  return schemas.map((s) => `${dump(s, { lineWidth: -1, noRefs: true })}---\n`).join('');
}

/**
 * `kcpt export`'s default prefix: `v<YYMMDD>-<8 hex of the schema's content>`, kcp's own naming with a content hash
 * in place of a git sha, so an unchanged CRD maps to the same content hash and a changed one to a new schema name.
 */
export function defaultPrefix(schemaSpec: APIResourceSchema['spec'], now: Date): string {
  const yymmdd = now.toISOString().slice(2, 10).replaceAll('-', '');
  return `v${yymmdd}-${contentHash(schemaSpec)}`;
}

/** 8 hex characters of sha256 over the spec's canonical JSON (keys sorted), so key order in the file does not matter. */
export function contentHash(schemaSpec: APIResourceSchema['spec']): string {
  return createHash('sha256').update(canonicalJson(schemaSpec)).digest('hex').slice(0, 8);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Json)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Whether a schema name was made by defaultPrefix for content with this hash: `v<6 digits>-<hash>.<plural>.<group>`. */
export function isDefaultNameFor(schemaName: string, hash: string, crdName: string): boolean {
  const prefix = schemaName.slice(0, 16);
  return /^v\d{6}-[0-9a-f]{8}$/.test(prefix) && prefix.endsWith(hash) && schemaName === `${prefix}.${crdName}`;
}
