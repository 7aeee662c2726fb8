/**
 * Checks every hand-written field number and type against the descriptors kubectl 1.32 itself was compiled with.
 * gogo-generated Go code embeds each generated.proto as a gzipped FileDescriptorProto, so the kubectl binary is an
 * authoritative, offline copy of k8s.io/api and apimachinery v0.32's schemas. Skipped when the binary is absent
 * (set KCPT_KUBECTL_1_32 to its path, or have the gcloud dispatcher's kubectl.1.32 next to `kubectl` on PATH).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, constants as zlibConstants } from 'node:zlib';
import descriptorExt from 'protobufjs/ext/descriptor/index.js';
import protobufjs from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { kubeProtobuf } from '../../builtin/protobuf.js';
import { coordinationV1 } from '../../builtin/coordination/protobuf.js';
import { authenticationV1, authorizationV1 } from './defs/auth.js';
import { coreV1 } from '../../builtin/core/protobuf.js';
import { eventsV1 } from '../../builtin/events/protobuf.js';
import { autoscalingV1 } from './defs/autoscaling.js';
import { intstrPkg, metaV1, resourcePkg, runtimePkg } from './defs/meta.js';
import { rbacV1 } from '../../builtin/rbac/protobuf.js';

const UPSTREAM_PKG: Record<string, string> = {
  'meta.v1': 'k8s.io.apimachinery.pkg.apis.meta.v1',
  runtime: 'k8s.io.apimachinery.pkg.runtime',
  resource: 'k8s.io.apimachinery.pkg.api.resource',
  intstr: 'k8s.io.apimachinery.pkg.util.intstr',
  'core.v1': 'k8s.io.api.core.v1',
  'rbac.v1': 'k8s.io.api.rbac.v1',
  'authorization.v1': 'k8s.io.api.authorization.v1',
  'authentication.v1': 'k8s.io.api.authentication.v1',
  'coordination.v1': 'k8s.io.api.coordination.v1',
  'events.v1': 'k8s.io.api.events.v1',
  'autoscaling.v1': 'k8s.io.api.autoscaling.v1',
};
// apiextensions is not compiled into kubectl: defs/apiextensions.ts was checked against the module's generated.proto.
const PACKAGES = [metaV1, runtimePkg, resourcePkg, intstrPkg, coreV1, rbacV1, authorizationV1, authenticationV1, coordinationV1, eventsV1, autoscalingV1];
// FieldDescriptorProto.Type numbers for the scalars we use.
const SCALAR_TYPE: Record<number, string> = { 3: 'int64', 5: 'int32', 8: 'bool', 9: 'string', 12: 'bytes' };
/** Upstream fields we leave out on purpose (the decoder skips them as unknown fields). */
const DELIBERATELY_SKIPPED: string[] = [];
/**
 * Fields of k8s.io/api and apimachinery newer than kubectl 1.32's (client-go v0.37 has them): checked against Go by
 * encode-golden.test.ts instead.
 */
const NEWER_THAN_KUBECTL = [
  'meta.v1.ListMeta.shardInfo: upstream has no field 5',
  'meta.v1.ShardInfo: no upstream message',
  'authentication.v1.TokenRequestSpec.attestations: upstream has no field 5',
  'authentication.v1.AttestationValue: no upstream message',
];

function findKubectl132(): string | undefined {
  const env = process.env.KCPT_KUBECTL_1_32;
  if (env) return existsSync(env) ? env : undefined;
  for (const d of (process.env.PATH ?? '').split(':')) {
    const p = join(d, 'kubectl');
    if (!d || !existsSync(p)) continue;
    const sibling = join(dirname(realpathSync(p)), 'kubectl.1.32');
    if (existsSync(sibling)) return sibling;
  }
  return undefined;
}

interface UpField {
  name: string;
  number: number;
  label: number;
  type: number;
  typeName?: string;
}
interface UpMessage {
  name: string;
  field: UpField[];
  nestedType: UpMessage[];
  options?: { mapEntry?: boolean };
}

/** Every message of every embedded k8s.io FileDescriptorProto, by full name without a leading dot. */
function upstreamMessages(binary: string): Map<string, UpMessage> {
  const buf = readFileSync(binary);
  const gzipHeader = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0x02, 0xff]); // Go's gzip.NewWriter default
  const out = new Map<string, UpMessage>();
  for (let i = buf.indexOf(gzipHeader); i >= 0; i = buf.indexOf(gzipHeader, i + 1)) {
    let d: Buffer;
    try {
      d = gunzipSync(buf.subarray(i, i + 4_000_000), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch {
      continue;
    }
    if (d[0] !== 0x0a || !d.subarray(2, 9).equals(Buffer.from('k8s.io/'))) continue;
    const fd = descriptorExt.FileDescriptorProto.decode(d) as unknown as { package: string; messageType: UpMessage[] };
    const walk = (msgs: UpMessage[], prefix: string) => {
      for (const m of msgs) {
        out.set(`${prefix}.${m.name}`, m);
        walk(m.nestedType, `${prefix}.${m.name}`);
      }
    };
    walk(fd.messageType, fd.package);
  }
  return out;
}

/** Our package-qualified name for an upstream `.k8s.io.api.core.v1.X` reference. */
function ours(upstreamTypeName: string): string {
  const name = upstreamTypeName.replace(/^\./, '');
  for (const [mine, up] of Object.entries(UPSTREAM_PKG)) if (name.startsWith(`${up}.`)) return `${mine}.${name.slice(up.length + 1)}`;
  return `?${name}`;
}

const kubectl = findKubectl132();

describe.skipIf(!kubectl)('field numbers match kubectl 1.32 embedded descriptors', () => {
  const upstream = kubectl ? upstreamMessages(kubectl) : new Map<string, UpMessage>();
  const root = kubeProtobuf.schema().root;

  it('found the descriptors', () => {
    expect(upstream.get('k8s.io.api.core.v1.Secret')).toBeDefined();
  });

  it('every field we define has upstream number, name, cardinality and type', () => {
    const problems: string[] = [];
    const skipped: string[] = [];
    for (const p of PACKAGES) {
      for (const msgName of Object.keys(p.messages)) {
        const where = `${p.pkg}.${msgName}`;
        const up = upstream.get(`${UPSTREAM_PKG[p.pkg]}.${msgName}`);
        if (!up) {
          problems.push(`${where}: no upstream message`);
          continue;
        }
        const type = root.lookupType(`.${where}`);
        for (const f of type.fieldsArray) {
          const u = up.field.find((x) => x.number === f.id);
          if (!u) {
            problems.push(`${where}.${f.name}: upstream has no field ${f.id}`);
            continue;
          }
          // Names equal the JSON names except BoundObjectReference's proto `uID` (JSON `uid`).
          if (u.name.toLowerCase() !== f.name.toLowerCase()) problems.push(`${where}.${f.name}: upstream calls ${f.id} ${u.name}`);
          const entry = u.typeName ? upstream.get(u.typeName.slice(1)) : undefined;
          const upIsMap = entry?.options?.mapEntry === true;
          const isMap = f instanceof protobufjs.MapField;
          if (upIsMap !== isMap) problems.push(`${where}.${f.name}: map mismatch`);
          if (!isMap && (u.label === 3) !== f.repeated) problems.push(`${where}.${f.name}: repeated mismatch`);
          const valueField = upIsMap ? entry?.field.find((x) => x.number === 2) : u;
          const upType = valueField?.typeName ? ours(valueField.typeName) : SCALAR_TYPE[valueField?.type ?? -1];
          const myType = f.resolvedType ? f.resolvedType.fullName.slice(1) : f.type;
          if (upType !== myType) problems.push(`${where}.${f.name}: type ${myType}, upstream ${upType}`);
        }
        for (const u of up.field) if (!type.fieldsArray.some((f) => f.id === u.number)) skipped.push(`${where}.${u.name}`);
      }
    }
    expect(problems).toStrictEqual(NEWER_THAN_KUBECTL);
    expect(skipped).toStrictEqual(DELIBERATELY_SKIPPED);
  });
});
