// The App custom resource of bench/cel-pairs.js and bench/cel-create-pairs.js.
/** An App CRD's schema, with (or without) six typical kubebuilder XValidation rules. */
export function appSchema(withRules) {
  const v = (rules) => (withRules ? { 'x-kubernetes-validations': rules } : {});
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        ...v([
          { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
          { rule: "!has(self.image) || self.image.matches('^[a-z0-9./:-]+$')", message: 'image must be a lowercase reference' },
          { rule: 'self.ports.all(p, p.port > 0 && p.port < 65536)', message: 'ports must be valid' },
        ]),
        properties: {
          minReplicas: { type: 'integer' },
          maxReplicas: { type: 'integer' },
          image: { type: 'string', maxLength: 256 },
          mode: { type: 'string', enum: ['fast', 'safe'], ...v([{ rule: 'self == oldSelf', message: 'mode is immutable' }]) },
          ports: {
            type: 'array',
            maxItems: 16,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } } },
          },
          labels: { type: 'object', maxProperties: 32, additionalProperties: { type: 'string', maxLength: 63 }, ...v([{ rule: "self.all(k, k.size() <= 63)" }]) },
        },
      },
      status: { type: 'object', properties: { phase: { type: 'string', maxLength: 16, ...v([{ rule: "self in ['Pending', 'Running', 'Done']" }]) } } },
    },
  };
}

/** An App that passes every rule. */
export const appObject = {
  apiVersion: 'example.com/v1',
  kind: 'App',
  metadata: { name: 'app-1', namespace: 'default' },
  spec: { minReplicas: 1, maxReplicas: 3, image: 'registry.example.com/app:1.2.3', mode: 'safe', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], labels: { team: 'a', tier: 'web' } },
  status: { phase: 'Running' },
};

