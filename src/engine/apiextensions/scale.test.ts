import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import type { KubeObject, ScaleSubresource } from '../registry/types.js';
import { customResourceTypes } from './cr-types.js';
import type { CustomResourceDefinition } from './crd.js';
import {
  INVALID_SPEC_REPLICAS,
  applyScaleToObject,
  scaleForUpdate,
  scaleFromObject,
  validateScaleFields,
  validateScaleStatusFields,
  validateScaleSubresource,
} from './scale.js';

const SPEC: ScaleSubresource = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };
const render = (errs: { field: string; detail: string }[]) => errs.map((e) => `${e.field}: ${e.detail}`);

const cr = (extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {
    name: 'w1',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '42',
    creationTimestamp: '2024-05-01T11:55:00Z',
    labels: { app: 'web' },
    generation: 3,
  },
  spec: { replicas: 3 },
  status: { replicas: 2, selector: 'app=web' },
  ...extra,
});

/** The StatusError a call throws, for asserting code, reason and message together. */
function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return { code: e.code, reason: e.reason, message: e.message };
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('scaleFromObject (ScaleREST.Get / scaleFromCustomResource)', () => {
  it('renders autoscaling/v1 Scale with only name, namespace, uid, resourceVersion and creationTimestamp', () => {
    expect(scaleFromObject(cr(), SPEC)).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'w1', namespace: 'default', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2024-05-01T11:55:00Z' },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=web' },
    });
  });

  it('zero replicas serialize as spec: {} (omitempty); a missing status reads 0 and omits the selector', () => {
    const s = scaleFromObject(cr({ spec: { replicas: 0 }, status: undefined }), SPEC);
    expect(s.spec).toEqual({});
    expect(s.status).toEqual({ replicas: 0 });
  });

  it('cluster-scoped objects have no namespace; no selector path means no selector', () => {
    const obj = cr();
    delete obj.metadata!.namespace;
    const s = scaleFromObject(obj, { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' });
    expect(s.metadata).not.toHaveProperty('namespace');
    expect(s.status).toEqual({ replicas: 2 });
  });

  it('reads custom nested paths', () => {
    const obj = cr({ spec: { workers: { count: 5 } }, status: { workers: { ready: 4 }, sel: 'a=b' } });
    const s = scaleFromObject(obj, { specReplicasPath: '.spec.workers.count', statusReplicasPath: '.status.workers.ready', labelSelectorPath: '.status.sel' });
    expect([s.spec, s.status]).toEqual([{ replicas: 5 }, { replicas: 4, selector: 'a=b' }]);
  });

  it('a CR without spec replicas is 500 InternalError "the spec replicas field … does not exist"', () => {
    expect(statusOf(() => scaleFromObject(cr({ spec: {} }), SPEC))).toEqual({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist',
    });
  });

  it('a replicas value that is not an int64 is a plain 500 with the unstructured accessor message', () => {
    expect(statusOf(() => scaleFromObject(cr({ spec: { replicas: 1.5 } }), SPEC))).toEqual({
      code: 500,
      reason: '',
      message: '.spec.replicas accessor error: 1.5 is of the type float64, expected int64',
    });
    expect(statusOf(() => scaleFromObject(cr({ spec: 'x' }), SPEC)).message).toBe(
      '.spec.replicas accessor error: x is of the type string, expected map[string]interface{}',
    );
    expect(statusOf(() => scaleFromObject(cr({ status: { replicas: 1, selector: { a: 'b' } } }), SPEC)).message).toBe(
      '.status.selector accessor error: map[a:b] is of the type map[string]interface {}, expected string',
    );
  });
});

describe('scaleForUpdate (the Scale a PATCH applies to)', () => {
  it('marks absent spec replicas with the smallest int32 instead of failing', () => {
    expect(scaleForUpdate(cr({ spec: {} }), SPEC).spec).toEqual({ replicas: INVALID_SPEC_REPLICAS });
    expect(scaleForUpdate(cr(), SPEC).spec).toEqual({ replicas: 3 });
  });
});

describe('applyScaleToObject (scaleUpdatedObjectInfo.UpdatedObject)', () => {
  const scale = (replicas: unknown, meta: Record<string, unknown> = { name: 'w1', namespace: 'default' }): KubeObject => ({
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: meta,
    spec: { replicas },
  });

  it('writes spec replicas and leaves everything else, including the input, untouched', () => {
    const obj = cr();
    const updated = applyScaleToObject(obj, scale(7), SPEC);
    expect(updated.spec).toEqual({ replicas: 7 });
    expect(updated.status).toEqual(obj.status);
    expect(updated.metadata?.resourceVersion).toBe('42');
    expect(obj.spec).toEqual({ replicas: 3 });
  });

  it("creates intermediate maps on the way to the replicas field (SetNestedField)", () => {
    const updated = applyScaleToObject(cr({ spec: {} }), scale(2), { ...SPEC, specReplicasPath: '.spec.workers.count' });
    expect(updated.spec).toEqual({ workers: { count: 2 } });
  });

  it("uses the Scale's resourceVersion as the update precondition when it has one", () => {
    expect(applyScaleToObject(cr(), scale(1, { name: 'w1', resourceVersion: '40' }), SPEC).metadata?.resourceVersion).toBe('40');
  });

  it('400 when the CR has no spec replicas and the Scale did not set them', () => {
    const obj = cr({ spec: {} });
    expect(statusOf(() => applyScaleToObject(obj, scaleForUpdate(obj, SPEC), SPEC))).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'the spec replicas field ".spec.replicas" cannot be empty',
    });
  });

  it("a PUT without replicas means 0 (Go's zero value)", () => {
    expect(applyScaleToObject(cr(), { kind: 'Scale', metadata: { name: 'w1' } }, SPEC).spec).toEqual({ replicas: 0 });
  });

  it('negative replicas pass here: the CR strategy rejects them (validateScaleFields)', () => {
    expect(applyScaleToObject(cr(), scale(-1), SPEC).spec).toEqual({ replicas: -1 });
  });

  it("rejects replicas that do not decode into int32, with Go's json message", () => {
    const decode = (v: unknown) => statusOf(() => applyScaleToObject(cr(), scale(v), SPEC));
    expect(decode('3')).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: 'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32',
    });
    expect(decode(1.5).message).toContain('cannot unmarshal number 1.5 into Go struct field ScaleSpec.spec.replicas of type int32');
    expect(decode(3000000000).message).toContain('cannot unmarshal number 3000000000 into');
  });

  it("checks the body's namespace and name against the URL like kube's update handler", () => {
    expect(statusOf(() => applyScaleToObject(cr(), scale(1, { name: 'other' }), SPEC)).message).toBe(
      'the name of the object (other) does not match the name on the URL (w1)',
    );
    expect(statusOf(() => applyScaleToObject(cr(), scale(1, {}), SPEC)).message).toBe(
      'the name of the object (w1 based on URL) was undeterminable: name must be provided',
    );
    expect(statusOf(() => applyScaleToObject(cr(), scale(1, { name: 'w1', namespace: 'kube-system' }), SPEC)).message).toBe(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  });

  it('a malformed stored object is the accessor 500, before anything is written', () => {
    expect(statusOf(() => applyScaleToObject(cr({ spec: { replicas: 'two' } }), scale(1), SPEC)).code).toBe(500);
  });
});

describe('validateScaleFields (customResourceValidator.ValidateScaleSpec/Status)', () => {
  it('accepts valid and absent replicas', () => {
    expect(validateScaleFields(cr(), SPEC)).toEqual([]);
    expect(validateScaleFields(cr({ spec: {}, status: {} }), SPEC)).toEqual([]);
    expect(validateScaleFields(cr({ spec: { replicas: -1 } }), undefined)).toEqual([]);
  });

  it("reports at the path with its leading dot, in kube's words", () => {
    expect(render(validateScaleFields(cr({ spec: { replicas: -1 }, status: { replicas: 2147483648, selector: 5 } }), SPEC))).toEqual([
      '.spec.replicas: Invalid value: -1: should be a non-negative integer',
      '.status.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647',
      '.status.selector: Invalid value: "": .status.selector accessor error: 5 is of the type int64, expected string',
    ]);
    expect(render(validateScaleFields(cr({ spec: { replicas: 'x' } }), SPEC))).toEqual([
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64',
    ]);
  });

  it('status updates check only the status side', () => {
    expect(validateScaleStatusFields(cr({ spec: { replicas: -1 } }), SPEC)).toEqual([]);
  });

  it("are the CR strategy's, on every write (a PUT of …/scale with replicas -1 was stored until 2026-11-30)", () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {}, scale: SPEC }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
      status: { acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' } },
    } as unknown as CustomResourceDefinition;
    const [rt] = customResourceTypes(crd);
    const validate = (obj: KubeObject, old?: KubeObject) => render(rt!.strategy.validate!(obj, { cluster: 'c' }, old));
    expect(validate(cr())).toEqual([]);
    expect(validate(cr({ spec: { replicas: -1 } }))).toEqual(['.spec.replicas: Invalid value: -1: should be a non-negative integer']);
    // The update the scale subresource makes, and a status write over an object stored with them (not its writer's).
    expect(validate(cr({ spec: { replicas: -1 } }), cr())).toEqual(['.spec.replicas: Invalid value: -1: should be a non-negative integer']);
    expect(validate(cr({ spec: { replicas: -1 }, status: { replicas: 3 } }), cr({ spec: { replicas: -1 } }))).toEqual([]);
    expect(validate(cr({ status: { replicas: -2 } }), cr())).toEqual(['.status.replicas: Invalid value: -2: should be a non-negative integer']);
  });
});

describe('validateScaleSubresource (CRD side)', () => {
  const P = 'spec.subresources';
  const check = (scale: Record<string, unknown>) => render(validateScaleSubresource({ scale }, P));

  it('accepts .spec/.status paths and an optional selector under either', () => {
    expect(check({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' })).toEqual([]);
    expect(check({ specReplicasPath: '.spec.r', statusReplicasPath: '.status.r', labelSelectorPath: '.spec.selector' })).toEqual([]);
    expect(check({ specReplicasPath: '.spec.r', statusReplicasPath: '.status.r', labelSelectorPath: '' })).toEqual([]);
    expect(validateScaleSubresource({ status: {} }, P)).toEqual([]);
  });

  it("reports kube's messages", () => {
    expect(check({ statusReplicasPath: 'status.replicas', labelSelectorPath: '.metadata.labels' })).toEqual([
      `${P}.scale.specReplicasPath: Required value`,
      `${P}.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .`,
      `${P}.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status`,
    ]);
    expect(check({ specReplicasPath: '.status.replicas', statusReplicasPath: '.spec.replicas' })).toEqual([
      `${P}.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec`,
      `${P}.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status`,
    ]);
  });
});
