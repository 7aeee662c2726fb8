// Large YAML request bodies for the YAML benchmarks (yaml-body-pairs.js in process, yaml-body-server.js through a
// server): each shape built up to a size in bytes.

/** `head`, then `make(0)`, `make(1)`, … joined by `sep` until the text reaches `bytes`, then `tail`. */
export function fillTo(bytes, head, make, sep, tail = '') {
  const parts = [];
  let size = head.length;
  for (let i = 0; size < bytes; i++) {
    const part = make(i);
    parts.push(part);
    size += part.length + sep.length;
  }
  return head + parts.join(sep) + tail;
}

const value = (i) => `value ${i} ${'abcdefghij'.repeat(8)}`;

/** A ConfigMap as a person writes one: block style, ~100-byte values. */
export const blockConfigMap = (bytes, name = 'big') =>
  fillTo(bytes, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n`, (i) => `  key-${i}: "${value(i)}"`, '\n', '\n');

/** The block ConfigMap's data as an object of about the same size (its JSON twin). */
export function blockConfigMapData(bytes) {
  const data = {};
  for (let i = 0, size = 0; size < bytes; i++) {
    data[`key-${i}`] = value(i);
    size += 100 + String(i).length * 2;
  }
  return data;
}

/** Many small flow maps under a list. */
export const flowMaps = (bytes, name = 'big', kind = 'Things', apiVersion = 'example.com/v1') =>
  fillTo(bytes, `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: ${name}}\nitems: [`, (i) => `{a: ${i}, b: x}`, ', ', ']\n');
