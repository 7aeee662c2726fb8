// The ~1 KB ConfigMap used everywhere (baseline B.1 in docs/benchmarks.md/B.2: a ConfigMap-like JSON of 1,039 bytes whose
// data['config.yaml'] is a run of 'x'). The pad length is calibrated once against kcpt so that the object kcpt
// returns on GET (with the uid, creationTimestamp, resourceVersion and kcp.io/cluster annotation it adds) is
// ~1,039 bytes; LIST items and CREATE bodies use the same pad.

export const TARGET_BYTES = 1039;
export const DEFAULT_PAD = 700;

export function configMap(name, namespace, pad = DEFAULT_PAD, extraData = undefined) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'kcpt-bench', tier: 'backend' } },
    data: { ...(extraData ?? {}), 'config.yaml': 'x'.repeat(Math.max(0, pad)) },
  };
}

/** The B.1 row value: exactly the JSON the recipe stored (a ConfigMap-like object of 1,039 bytes). */
export function rawRowValue(i, pad = 700) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${String(i).padStart(5, '0')}`,
      namespace: 'default',
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100000 + i),
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'kcpt-bench', tier: 'backend' },
      annotations: { 'kcp.io/cluster': 'root' },
    },
    data: { 'config.yaml': 'x'.repeat(pad) },
  });
}

/** Pad that makes rawRowValue() exactly TARGET_BYTES long. */
export function rawRowPad() {
  const base = rawRowValue(0, 0).length;
  return TARGET_BYTES - base;
}
