#!/usr/bin/env node
// What validating a custom resource costs, in process: ajv compiling the CRD schema into JavaScript (`old`, the way
// kcpt validated until 2026-11-29: test/helpers/ajv-cr-oracle.ts) against the schema walker (`new`,
// src/engine/apiextensions/schema-walk.ts through compileCRSchema). Two rows:
//   wide   a tenant's CRD with --props string properties (12,000 ≈ 0.8 MB): preparing a fresh copy of the schema
//          and validating its first object — the event-loop turn every other tenant waits behind;
//   small  an ordinary CRD's object (ints, enums, a pattern, a list-map, an embedded template, labels) against a
//          schema prepared once: CPU µs per validate, over --n validations.
// The sides alternate (old, new, then new, old, …) --rounds times; prints every round and each side's median and
// range (CPU ms: the process's user+sys). Run it through tsx (it imports the TypeScript source):
//
//   npx tsx bench/crd-schema-pairs.js [--rounds 4] [--props 12000] [--n 20000] [--only wide,small]
import { parseArgs } from 'node:util';
import { compileCRSchema } from '../src/engine/apiextensions/cr-validator.ts';
import { ajvCRValidator } from '../test/helpers/ajv-cr-oracle.ts';
import { median, range } from './lib/util.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, props: { type: 'string' }, n: { type: 'string' }, only: { type: 'string' } } });
const rounds = Number(values.rounds ?? 4);
const width = Number(values.props ?? 12_000);
const n = Number(values.n ?? 20_000);
const only = values.only?.split(',');

const cpuMs = (f) => {
  const t = process.cpuUsage();
  const out = f();
  const d = process.cpuUsage(t);
  return { ms: (d.user + d.system) / 1000, out };
};

/** A fresh object each time: both sides cache by the schema object's identity. */
function wideSchema() {
  const props = {};
  for (let i = 0; i < width; i++) props[`field${i}`] = { type: 'string', description: `tenant field ${i}, a string of some length` };
  return { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: { type: 'object', properties: props } } };
}
const wideObject = { apiVersion: 'example.com/v1', kind: 'Wide', metadata: { name: 'w' }, spec: { field0: 'a', field5000: 'b', field11999: 'c' } };

const smallSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        image: { type: 'string', minLength: 1 },
        replicas: { type: 'integer', minimum: 0, maximum: 100 },
        mode: { type: 'string', enum: ['Always', 'OnFailure', 'Never'] },
        name: { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
        port: { 'x-kubernetes-int-or-string': true },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' }, protocol: { type: 'string', enum: ['TCP', 'UDP'] } } },
        },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        ratio: { type: 'number', nullable: true, minimum: 0, exclusiveMinimum: true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' }, observedGeneration: { type: 'integer' } } },
  },
};
const smallObject = {
  apiVersion: 'example.com/v1',
  kind: 'App',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: {
    image: 'nginx:1.27',
    replicas: 3,
    mode: 'Always',
    name: 'web-frontend',
    port: 'http',
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'https', port: 443 }],
    template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } },
    labels: { tier: 'frontend', team: 'a' },
    ratio: 0.5,
  },
  status: { ready: true, observedGeneration: 2 },
};

const rows = {
  wide: {
    unit: 'ms compile + first validate',
    old: () => {
      const schema = wideSchema();
      return cpuMs(() => ajvCRValidator(schema)(wideObject));
    },
    new: () => {
      const schema = wideSchema();
      return cpuMs(() => compileCRSchema(schema).validate(wideObject));
    },
  },
  small: {
    unit: `µs per validate (${n} validations)`,
    setup: () => ({ old: ajvCRValidator(smallSchema), new: compileCRSchema(smallSchema) }),
    old: (v) => per(() => v.old(smallObject)),
    new: (v) => per(() => v.new.validate(smallObject)),
  },
};
function per(f) {
  for (let i = 0; i < 1000; i++) f();
  const r = cpuMs(() => {
    let errs = 0;
    for (let i = 0; i < n; i++) errs += f().length;
    return errs;
  });
  if (r.out !== 0) throw new Error('the small object must validate');
  return { ms: (r.ms * 1000) / n };
}

for (const [name, row] of Object.entries(rows)) {
  if (only && !only.includes(name)) continue;
  const v = row.setup?.();
  const got = { old: [], new: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
    const line = [];
    for (const side of order) {
      const { ms, out } = row[side](v);
      if (Array.isArray(out) && out.length > 0) throw new Error(`${name}/${side}: ${JSON.stringify(out)}`);
      got[side].push(ms);
      line.push(`${side} ${ms.toFixed(name === 'small' ? 2 : 1)}`);
    }
    console.log(`${name} round ${r + 1}: ${line.join(', ')}`);
  }
  const fmt = (xs) => `${median(xs).toFixed(2)} (${range(xs)})`;
  console.log(`${name} [${row.unit}]: old ${fmt(got.old)}, new ${fmt(got.new)}, new/old ${(median(got.new) / median(got.old)).toFixed(3)}`);
}
