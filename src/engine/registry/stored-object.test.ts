import { describe, expect, it } from 'vitest';
import { annotationsText, encodeStored } from './stored-object.js';

describe('annotationsText', () => {
  it('is the annotations object of canonical stored JSON, whatever its strings hold', () => {
    const annotations = { 'a.example.com/x': 'has } and { and "quotes" and \\ backslash', 'b.example.com/y': '' };
    const stored = encodeStored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', annotations, labels: { l: '}' } }, data: { k: '{' } });
    const text = annotationsText(stored);
    expect(text).toBeDefined();
    expect(JSON.parse(text!)).toEqual(annotations);
  });

  it('differs when any annotation differs, and is undefined without annotations first in metadata', () => {
    const of = (annotations?: Record<string, string>) => annotationsText(encodeStored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', ...(annotations ? { annotations } : {}) } }));
    expect(of({ a: '1' })).not.toBe(of({ a: '2' }));
    expect(of({ a: '1' })).toBe(of({ a: '1' }));
    expect(of()).toBeUndefined();
    // Not canonical (annotations after another key): not read from the text.
    expect(annotationsText('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","annotations":{"a":"1"}}}')).toBeUndefined();
    expect(annotationsText('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"a":"1"')).toBeUndefined();
  });
});
