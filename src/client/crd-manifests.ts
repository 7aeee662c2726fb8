/**
 * CustomResourceDefinitions as files hold them (multi-document YAML or JSON), read the one way `kcpt export -f`,
 * `kcpt testenv --crd` and kcpt/testing's workspace({ crds }) read them.
 */
import { loadAll } from 'js-yaml';
import { ClientError } from './errors.js';

type Json = Record<string, unknown>;

export interface CustomResourceDefinition {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: {
    group?: string;
    names?: Json & { plural?: string; kind?: string };
    scope?: string;
    versions?: CrdVersion[];
    conversion?: { strategy?: string; webhook?: { clientConfig?: { url?: string; service?: unknown; caBundle?: string }; conversionReviewVersions?: string[] } };
  };
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Json };
  subresources?: Json;
  additionalPrinterColumns?: Json[];
  selectableFields?: Json[];
}

/** A CRD read from a file, with where it came from for error messages. */
export interface SourcedCrd {
  crd: CustomResourceDefinition;
  source: string;
}

/** Every CRD in a multi-document YAML (or JSON) text; empty documents are skipped, anything but a CRD is an error. */
export function parseCrds(text: string, source: string): SourcedCrd[] {
  let docs: unknown[];
  try {
    docs = loadAll(text);
  } catch (err) {
    throw new ClientError(`error parsing ${source}: ${(err as Error).message.split('\n')[0]}`);
  }
  const out: SourcedCrd[] = [];
  docs.forEach((doc, i) => {
    if (doc === null || doc === undefined) return;
    const where = docs.length > 1 ? `${source} (document ${i + 1})` : source;
    const obj = doc as CustomResourceDefinition;
    if (typeof doc !== 'object' || Array.isArray(doc) || obj.kind !== 'CustomResourceDefinition' || obj.apiVersion !== 'apiextensions.k8s.io/v1') {
      const what = typeof doc === 'object' && doc && !Array.isArray(doc) ? `${obj.apiVersion ?? '<no apiVersion>'}, Kind=${obj.kind ?? '<no kind>'}` : typeof doc;
      throw new ClientError(`unexpected type for CRD in ${where}: ${what}; expected apiextensions.k8s.io/v1, Kind=CustomResourceDefinition`);
    }
    out.push({ crd: obj, source: where });
  });
  return out;
}
