/**
 * import() of what the CLI bundle leaves outside (ESM-only ora and @inquirer/prompts, node:http). bin/run.js may
 * compile the bundle through node:vm to use a V8 code cache (code-cache.ts), and on Node 20 an import() in code
 * compiled that way has no loader to call (it needs --experimental-vm-modules), so bin/run.js, an ordinary ES
 * module, sets its own import() here before the bundle runs anything.
 */
type Importer = (specifier: string) => Promise<unknown>;

let importer: Importer = (specifier) => import(specifier);

export function setImporter(fn: Importer): void {
  importer = fn;
}

export function importExternal<T>(specifier: string): Promise<T> {
  return importer(specifier) as Promise<T>;
}
