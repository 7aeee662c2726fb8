/**
 * Loads the CLI's CommonJS bundle (scripts/bundle-cli.mjs) with a V8 code cache: compiling the bundle and the
 * functions a command runs costs ~10–15 ms of a command's 150 ms budget on every run, and Node 20 has no
 * module.enableCompileCache (22+). So the bundle is compiled through node:vm with the bytecode an earlier run of the
 * same command left, and a run that had none (or whose cache V8 refused: another Node version or flags) leaves it
 * at exit, with every function that run compiled.
 *
 * The caches live in a directory of the user's own under os.tmpdir() (0700, owned by them, else none is used:
 * bytecode from someone else would run as this user), one file per bundle build (path, size, mtime), Node version
 * and command (the first two words of the command line), so each command's cache holds what that command runs;
 * at most 64 of them.
 * Anything going wrong here costs the cache, never the command.
 */
import { closeSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { privateTempDirectory } from './common/private-file.js';

/** require()s `file` (a CommonJS module) compiled with the code cache for `argv`'s command; returns its exports. */
export function requireWithCodeCache(file: string, argv: readonly string[]): unknown {
  const source = readFileSync(file, 'utf8');
  const cacheFile = cacheFileFor(file, argv);
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // First run of this command (or a cleaned tmpdir): compiled as usual, cached at exit.
    }
  }
  // CommonJS's own function wrapper (what Module.wrap adds), so the bundle runs as it would under require().
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`, { filename: file, cachedData });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) process.once('exit', () => writeCache(cacheFile, script));
  const module = { exports: {} as unknown, filename: file, id: file, loaded: false };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  return module.exports;
}

function cacheFileFor(file: string, argv: readonly string[]): string | undefined {
  const dir = privateTempDirectory('kcpt-code-cache');
  if (!dir) return undefined;
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return undefined;
  }
  // Command words only (lower-case letters and dashes): flag values and paths would only multiply the files.
  const command = argv.filter((a) => /^[a-z][a-z-]{0,30}$/.test(a)).slice(0, 2).join('-') || 'none';
  const build = `${fnv1a(path.resolve(file)).toString(36)}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
  return path.join(dir, `${build}-${process.version}-${process.arch}-${command}.v8cache`);
}

/** At most this many caches are kept (other builds, other commands): the oldest go when a new one is written. */
const maxCaches = 64;

/** Written whole under a temporary name, then renamed: concurrent runs never read half a cache. */
function writeCache(cacheFile: string, script: Script): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    pruneOldest(path.dirname(cacheFile));
    const data = script.createCachedData();
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, cacheFile);
  } catch {
    // No cache this time; the next run tries again.
    rmSync(temp, { force: true });
  }
}

function pruneOldest(dir: string): void {
  const names = readdirSync(dir);
  if (names.length < maxCaches) return;
  const byAge = names
    .map((name) => ({ file: path.join(dir, name), at: statSync(path.join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => a.at - b.at);
  for (const { file } of byAge.slice(0, names.length - maxCaches / 2)) rmSync(file, { force: true });
}

/** 32-bit FNV-1a of a string (names the bundle's path in the cache file name; not a security measure). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
