/**
 * The JSON-lines snapshot format: one header line, then one line per stored key. Values that are JSON objects (every
 * Kubernetes object) are written as `object` so the file reads like the objects it holds; anything else (the server's
 * bookkeeping rows) as the `value` string. Stored bytes are compact JSON.stringify output, so `object` round-trips to
 * the same bytes. A SQLite store file is the other snapshot format (whole store, SQLite servers); it is told apart by
 * its magic header.
 */
import type { KeyValue } from '../storage/store.js';

export const SNAPSHOT_KIND = 'KcptSnapshot';
export const SNAPSHOT_VERSION = 1;
/** The first 16 bytes of every SQLite database file. */
export const SQLITE_MAGIC = 'SQLite format 3\0';

export type SnapshotScope = 'store' | 'workspace';

export interface SnapshotHeader {
  kind: typeof SNAPSHOT_KIND;
  version: typeof SNAPSHOT_VERSION;
  scope: SnapshotScope;
  /** The store revision every entry was read at. */
  revision: number;
  createdAt: string;
  /** Scope `workspace`: the subtree's top workspace. */
  workspace?: {
    path: string;
    /** Its logical cluster. */
    cluster: string;
    /** The cluster holding its Workspace object (its parent's). */
    parentCluster: string;
  };
  /** Scope `workspace`: every logical cluster of the subtree → its canonical path. */
  clusters?: Record<string, string>;
}

export interface Snapshot {
  header: SnapshotHeader;
  entries: KeyValue[];
}

export function headerLine(header: SnapshotHeader): string {
  return `${JSON.stringify(header)}\n`;
}

export function entryLine(entry: KeyValue): string {
  const { key, revision, createRevision, value } = entry;
  const line: Record<string, unknown> = { key, revision, createRevision };
  if (value.startsWith('{')) {
    try {
      line.object = JSON.parse(value);
    } catch {
      line.value = value;
    }
  } else line.value = value;
  return `${JSON.stringify(line)}\n`;
}

export class SnapshotFormatError extends Error {}

/** Parses a JSON-lines snapshot; every problem names its line. */
export function parseSnapshot(text: string): Snapshot {
  const parser = new SnapshotParser();
  for (const line of text.split('\n')) parser.line(line);
  return parser.finish();
}

/**
 * A snapshot read line by line, as it arrives (a restore upload is never held whole): the header first, then the
 * entries. Every problem names its line.
 */
export class SnapshotParser {
  private header: SnapshotHeader | undefined;
  private readonly entries: KeyValue[] = [];
  private number = 0;

  line(text: string): void {
    this.number += 1;
    if (this.number === 1) {
      if (text.startsWith(SQLITE_MAGIC)) {
        throw new SnapshotFormatError('this is a whole-store SQLite snapshot: restore it into a stopped root directory (kcpt snapshot restore FILE --root-directory DIR)');
      }
      this.header = parseHeader(text);
      return;
    }
    const trimmed = text.trim();
    if (trimmed !== '') this.entries.push(parseEntry(trimmed, this.number, this.header!.revision));
  }

  finish(): Snapshot {
    if (!this.header) throw new SnapshotFormatError('the file is empty: not a kcpt snapshot');
    return { header: this.header, entries: this.entries };
  }
}

function parseJsonLine(line: string, number: number): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw new SnapshotFormatError(`line ${number}: not JSON (${(error as Error).message}); is the file truncated?`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SnapshotFormatError(`line ${number}: expected a JSON object`);
  return parsed as Record<string, unknown>;
}

function parseHeader(line: string): SnapshotHeader {
  if (line.trim() === '') throw new SnapshotFormatError('the file is empty: not a kcpt snapshot');
  const h = parseJsonLine(line, 1);
  if (h.kind !== SNAPSHOT_KIND) throw new SnapshotFormatError(`line 1: not a kcpt snapshot (kind ${JSON.stringify(h.kind)}, expected ${SNAPSHOT_KIND})`);
  if (h.version !== SNAPSHOT_VERSION) throw new SnapshotFormatError(`line 1: snapshot version ${String(h.version)} is not supported (this kcpt reads version ${SNAPSHOT_VERSION})`);
  if (h.scope !== 'store' && h.scope !== 'workspace') throw new SnapshotFormatError(`line 1: unknown scope ${JSON.stringify(h.scope)}`);
  if (!isRevision(h.revision)) throw new SnapshotFormatError('line 1: revision must be a non-negative integer');
  if (h.scope === 'workspace') {
    const ws = h.workspace as SnapshotHeader['workspace'];
    if (!ws || typeof ws.path !== 'string' || typeof ws.cluster !== 'string' || typeof ws.parentCluster !== 'string') {
      throw new SnapshotFormatError('line 1: a workspace snapshot needs workspace.path, workspace.cluster and workspace.parentCluster');
    }
    const clusters = h.clusters as Record<string, unknown> | undefined;
    if (!clusters || typeof clusters !== 'object' || !Object.values(clusters).every((p) => typeof p === 'string') || !Object.hasOwn(clusters, ws.cluster)) {
      throw new SnapshotFormatError('line 1: a workspace snapshot needs clusters (cluster name → path), including its own');
    }
  }
  return h as unknown as SnapshotHeader;
}

function parseEntry(line: string, number: number, snapshotRevision: number): KeyValue {
  const e = parseJsonLine(line, number);
  if (typeof e.key !== 'string' || !e.key.startsWith('/')) throw new SnapshotFormatError(`line ${number}: key must be a string starting with /`);
  if (!isRevision(e.revision) || !isRevision(e.createRevision)) throw new SnapshotFormatError(`line ${number}: revision and createRevision must be non-negative integers`);
  if (e.revision > snapshotRevision) throw new SnapshotFormatError(`line ${number}: revision ${e.revision} is after the snapshot's revision ${snapshotRevision}`);
  let value: string;
  if (e.object !== undefined) {
    if (!e.object || typeof e.object !== 'object' || Array.isArray(e.object)) throw new SnapshotFormatError(`line ${number}: object must be a JSON object`);
    value = JSON.stringify(e.object);
  } else if (typeof e.value === 'string') value = e.value;
  else throw new SnapshotFormatError(`line ${number}: an entry needs an object or a value`);
  return { key: e.key, revision: e.revision, createRevision: e.createRevision, value };
}

function isRevision(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0;
}
