#!/usr/bin/env node
// The unknown-fields walk of a CREATE body with and without the typed decode (Go types checked in the same pass),
// in ONE process, batches alternating: the CREATE row's ~1 KB ConfigMap against the built-in schemas, the same
// parsed object each time (it has no unknown fields, so the walk changes nothing; no JSON.parse in the figure). Run through tsx (it imports the TypeScript source):
//
//   npx tsx bench/typed-decode-walk.js [--pairs 40] [--batch 20000]
//
// Prints the median µs per walk of each side ("this" = typed decode + unknown fields, "other" = unknown fields only),
// their ratio and in how many pairs the typed walk was cheaper. Compare the difference with a whole CREATE's cost
// (bench/route-pairs.js --op create).
import { parseArgs } from 'node:util';
import { comparePairs } from './lib/pipeline-pairs.js';
import { configMap } from './lib/payload.js';
import { decodeBuiltin, pruneUnknownFields } from '../src/engine/machinery/unknown-fields.ts';
import { sharedSchemas } from '../src/engine/machinery/openapi-schemas/index.ts';
import { coreSchemas } from '../src/engine/builtin/core/schemas.ts';

const { values } = parseArgs({ options: { pairs: { type: 'string' }, batch: { type: 'string' } } });
const pairs = Number(values.pairs ?? 40);
const batch = Number(values.batch ?? 20000);
const schemas = { ...sharedSchemas, ...coreSchemas };
const schema = schemas['io.k8s.api.core.v1.ConfigMap'];
const body = configMap('bench-walk', 'default');
let sink = 0;
const typed = { run: () => (sink += decodeBuiltin(body, schema, schemas, 'ConfigMap').unknown.length) };
const untyped = { run: () => (sink += pruneUnknownFields(body, schema, schemas).length) };
await comparePairs({ self: typed, other: untyped, run: (s) => s.run(), pairs, batch, label: 'Walk' });
if (sink !== 0) throw new Error('the body was expected to have no unknown fields');
