import { describe, expect, it } from 'vitest';
import { applyConfiguration } from './apply-handler.js';

const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' } }, data: { k: 'v', n: '1' } };

describe('applyConfiguration', () => {
  it('reads a JSON configuration and the same configuration as YAML (block or flow) alike', () => {
    const yamlBlock = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: b\ndata:\n  k: v\n  n: "1"\n';
    // Flow YAML starts with `{` too but is not JSON: it must still be read as YAML.
    const yamlFlow = '{apiVersion: v1, kind: ConfigMap, metadata: {name: x, labels: {a: b}}, data: {k: v, n: "1"}}';
    for (const text of [JSON.stringify(config), `  \n${JSON.stringify(config, null, 2)}`, yamlBlock, yamlFlow]) {
      expect(applyConfiguration(Buffer.from(text)), text).toEqual(config);
    }
  });

  it('still refuses a JSON configuration nested too deep', () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":${'{"a":'.repeat(1200)}1${'}'.repeat(1200)}}`;
    expect(applyConfiguration(Buffer.from(deep))).toEqual({});
  });
});
