import { describe, expect, it } from 'vitest';
import { configMaps } from '../builtin/core/resources.js';
import { watchRenderOptions, WatchEventWriter } from './render.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const PARTIAL = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
const PB = 'application/vnd.kubernetes.protobuf';

function writer(accept: string): WatchEventWriter {
  return new WatchEventWriter(configMaps, watchRenderOptions(configMaps, { accept, query: new URLSearchParams() }));
}

function cm(name: string, value: string): string {
  return JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: '7' }, data: { k: value } });
}

/** The JSON lines of a JSON watch stream's frame. */
function lines(frame: Buffer): { type: string; object: Record<string, unknown> } {
  const text = frame.toString('utf8');
  expect(text.endsWith('\n')).toBe(true);
  return JSON.parse(text) as { type: string; object: Record<string, unknown> };
}

describe('WatchEventWriter', () => {
  it('encodes an event once for every watcher in the same form: one shared Buffer', () => {
    const a = writer('application/json');
    const b = writer('application/json');
    const json = cm('one', 'x');
    const frame = a.event('ADDED', json);
    expect(b.event('ADDED', json)).toBe(frame);
    expect(lines(frame)).toEqual({ type: 'ADDED', object: JSON.parse(json) });
  });

  it('never hands a watcher a frame of another event type, another object or another form', () => {
    const json = writer('application/json');
    const partial = writer(PARTIAL);
    const proto = writer(PB);
    const one = cm('one', 'x');
    const added = json.event('ADDED', one);
    const modified = json.event('MODIFIED', one);
    expect(lines(modified).type).toBe('MODIFIED');
    expect(lines(added).type).toBe('ADDED');
    // Same length, same type, different content.
    expect(lines(json.event('MODIFIED', cm('one', 'y'))).object).toMatchObject({ data: { k: 'y' } });
    expect(lines(partial.event('MODIFIED', one)).object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'one', namespace: 'default', resourceVersion: '7' },
    });
    const frame = proto.event('MODIFIED', one);
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    expect(frame.subarray(4).includes(Buffer.from('MODIFIED'))).toBe(true);
    expect(json.event('MODIFIED', one).toString('utf8').startsWith('{"type":"MODIFIED"')).toBe(true);
  });

  it('gives each Table watcher its own first row with the column definitions', () => {
    const early = writer(TABLE);
    const first = lines(early.event('ADDED', cm('one', 'x'))).object;
    expect((first.columnDefinitions as unknown[]).length).toBeGreaterThan(0);
    const next = cm('one', 'y');
    expect(lines(early.event('MODIFIED', next)).object.columnDefinitions ?? []).toEqual([]);
    // A watcher that joins now sees that same event first: its row must carry the columns.
    const late = writer(TABLE);
    expect((lines(late.event('MODIFIED', next)).object.columnDefinitions as unknown[]).length).toBeGreaterThan(0);
  });
});
