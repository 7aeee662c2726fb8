/**
 * Every fixture in testdata/kubectl-fixtures.json was produced by the real kubectl (see generate-fixtures.ts):
 * the patch is either hand-written or exactly what `kubectl apply` / `kubectl edit` sent, and the expected object
 * (or error) is what `kubectl patch --local` computed with the apimachinery code kube-apiserver runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StatusError } from '../status.js';
import { applyJsonPatch } from './jsonPatch.js';
import type { JsonObject } from './json.js';
import { applyMergePatch } from './mergePatch.js';
import { patchSchemaFor } from '../../builtin/test-support.js';
import { applyStrategicMergePatch } from './strategic.js';
import type { KubectlFixture } from './testdata/generate-fixtures.js';

const file = new URL('./testdata/kubectl-fixtures.json', import.meta.url);
const { fixtures } = JSON.parse(readFileSync(file, 'utf8')) as { fixtures: KubectlFixture[] };

function apply(f: KubectlFixture): JsonObject {
  const live = f.live as JsonObject;
  if (f.type === 'json') return applyJsonPatch(live, f.patch);
  if (f.type === 'merge') return applyMergePatch(live, f.patch);
  return applyStrategicMergePatch(live, f.patch, patchSchemaFor(f.group, f.kind));
}

/** kubectl hides managedFields in its output; nothing else is normalised. */
function comparable(obj: JsonObject): JsonObject {
  const copy = structuredClone(obj);
  if (copy.metadata && typeof copy.metadata === 'object') delete (copy.metadata as JsonObject).managedFields;
  return copy;
}

/**
 * kubectl errors whose status code we chose ourselves; kube-apiserver wraps apply failures of JSON patch in a 422
 * and answers 400 for the strategic merge patch format errors listed in interpretStrategicMergePatchError.
 */
function expectedCode(f: KubectlFixture): number {
  if (f.type === 'json') return 422;
  return 400;
}

/** Where kcpt answers differently from kube on purpose, for inputs kubectl itself never sends. */
const DELIBERATE_DEVIATIONS: Record<string, { code: number; message: string; why: string }> = {
  'smp $deleteFromPrimitiveList that is not a list': {
    code: 400,
    message: 'invalid patch format of primitive list',
    why: 'kube silently ignores the malformed directive; we tell the client what is wrong',
  },
};

describe('patches as real kubectl applies them', () => {
  it('has fixtures from kubectl apply and kubectl edit', () => {
    expect(fixtures.filter((f) => f.source === 'apply').length).toBeGreaterThan(10);
    expect(fixtures.filter((f) => f.source === 'edit').length).toBeGreaterThan(2);
  });

  for (const [name, deviation] of Object.entries(DELIBERATE_DEVIATIONS)) {
    it(`deviation: ${name} (${deviation.why})`, () => {
      const f = fixtures.find((x) => x.name === name)!;
      expect(() => apply(f)).toThrow(expect.objectContaining({ code: deviation.code, message: deviation.message }));
    });
  }

  for (const f of fixtures.filter((x) => x.expected !== undefined && !(x.name in DELIBERATE_DEVIATIONS))) {
    it(`${f.source}: ${f.name}`, () => {
      const live = structuredClone(f.live);
      expect(comparable(apply(f))).toEqual(comparable(f.expected as JsonObject));
      expect(f.live).toEqual(live);
    });
  }

  for (const f of fixtures.filter((x) => x.error !== undefined)) {
    it(`${f.source}: ${f.name} → ${f.error!.split('\n')[0]}`, () => {
      let thrown: unknown;
      try {
        apply(f);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(StatusError);
      const status = thrown as StatusError;
      expect(status.code).toBe(expectedCode(f));
      // Same wording as kubectl's apimachinery, in the message or (for 422s) in the cause kubectl prints.
      const texts = [status.message, ...(status.details?.causes ?? []).map((c) => c.message)];
      expect(texts.some((t) => t?.includes(f.error!))).toBe(true);
    });
  }
});
