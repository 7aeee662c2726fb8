/**
 * CustomResourceDefinitions given to `workspace({ crds })`: objects as they are, or files (YAML with any number of
 * documents, or JSON; parsed as `kcpt export -f` parses them) read once and remembered, since a suite installs the
 * same file in every test's workspace.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseCrds } from '../client/crd-manifests.js';

export interface KubeManifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; [k: string]: unknown };
  [k: string]: unknown;
}

const fileCache = new Map<string, Promise<KubeManifest[]>>();

/** The CRD objects of `sources`, in order; a file contributes every CRD it holds and must hold nothing else. */
export async function loadCRDs(sources: readonly (KubeManifest | string)[]): Promise<KubeManifest[]> {
  const loaded = await Promise.all(sources.map((s) => (typeof s === 'string' ? readCRDFile(s) : Promise.resolve([s]))));
  return loaded.flat();
}

function readCRDFile(file: string): Promise<KubeManifest[]> {
  const absolute = path.resolve(file);
  let loaded = fileCache.get(absolute);
  if (!loaded) {
    loaded = readFile(absolute, 'utf8').then((text) => parseCrds(text, file).map(({ crd }) => crd as KubeManifest));
    fileCache.set(absolute, loaded);
    // A file that failed to read or parse may be fixed and tried again.
    loaded.catch(() => fileCache.delete(absolute));
  }
  return loaded;
}
