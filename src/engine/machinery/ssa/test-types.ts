/** A small Deployment-like kind shared by the SSA unit tests (the real ConfigMap's is in builtin/test-support.ts). */
import { withObjectMeta, type TypeNode } from './type-info.js';

export const deploymentLikeType: TypeNode = withObjectMeta({
  kind: 'struct',
  fields: {
    spec: {
      kind: 'struct',
      fields: {
        replicas: { kind: 'scalar' },
        containers: {
          kind: 'list',
          listType: 'map',
          keys: ['name'],
          elem: {
            kind: 'struct',
            fields: {
              name: { kind: 'scalar' },
              image: { kind: 'scalar' },
              args: { kind: 'list', listType: 'atomic', elem: { kind: 'scalar' } },
              ports: {
                kind: 'list',
                listType: 'map',
                keys: ['containerPort', 'protocol'],
                elem: { kind: 'struct', fields: { containerPort: { kind: 'scalar' }, protocol: { kind: 'scalar' } } },
              },
            },
          },
        },
        tags: { kind: 'list', listType: 'set', elem: { kind: 'scalar' } },
        selector: { kind: 'map', mapType: 'atomic', elem: { kind: 'scalar' } },
        config: { kind: 'map' },
      },
    },
    status: { kind: 'struct', open: true, fields: { ready: { kind: 'scalar' } } },
  },
});
