/**
 * LimitRange and ResourceQuota policy: resource names kube accepts, non-negative (and, where counted, integer)
 * quantities, quota scopes, LimitRange's defaulting of container defaults from max/min, and the quota printer.
 */
import { ownValue, setOwnValue } from '../../machinery/own-properties.js';
import { fieldErrors, type FieldError } from '../../machinery/status.js';
import type { KubeObject, Strategy, TablePrinter } from '../../registry/types.js';
import { ageColumn, ageOf, column, nameColumn, nameOf } from '../printing.js';
import { record, str } from '../../machinery/field-values.js';
import { quantityFormatError, quantityValue } from '../../machinery/quantity.js';
import { fieldImmutable, goStringSlice, invalidRendered, isQualifiedName, keyPath } from '../value-rules.js';

const computeResources = ['cpu', 'memory', 'ephemeral-storage'];
const standardQuotaResources = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'services.nodeports', 'services.loadbalancers', ...computeResources,
  'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
]);
const standardResources = new Set([...standardQuotaResources, 'storage']);
const integerResources = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'services.nodeports', 'services.loadbalancers',
]);
const standardScopes = new Set([
  'Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity',
  'VolumeAttributesClass',
]);
const standardLimitTypes = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);

const isHugePages = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');

/** Resource names: qualified, and a bare name must be a standard one (for quotas: one quota knows how to count). */
function validateResourceName(name: string, path: string, forQuota: boolean): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
  if (errs.length > 0 || name.includes('/')) return errs;
  if (!standardResources.has(name) && !isHugePages(name)) {
    errs.push(fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  if (forQuota && !standardQuotaResources.has(name) && !isHugePages(name)) {
    errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for quota'));
  }
  return errs;
}

function validateQuantity(name: string, q: unknown, path: string): FieldError[] {
  const value = quantityValue(q);
  if (value === undefined) return [fieldErrors.invalid(path, q, quantityFormatError)];
  if (value < 0) return [fieldErrors.invalid(path, q, 'must be greater than or equal to 0')];
  const counted = integerResources.has(name) || name.startsWith('count/');
  if (counted && Math.abs(value - Math.round(value)) > 1e-9) return [fieldErrors.invalid(path, q, 'must be an integer')];
  return [];
}

function validateResourceList(list: unknown, path: string, forQuota: boolean): FieldError[] {
  return Object.entries(record(list)).flatMap(([name, q]) => [
    ...validateResourceName(name, keyPath(path, name), forQuota),
    ...validateQuantity(name, q, keyPath(path, name)),
  ]);
}

function validateQuotaSpec(spec: Record<string, unknown>): FieldError[] {
  const errs = validateResourceList(spec.hard, 'spec.hard', true);
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.map(String) : [];
  for (const scope of scopes) {
    if (!standardScopes.has(scope)) errs.push(invalidRendered('spec.scopes', goStringSlice(scopes), 'unsupported scope'));
  }
  const conflicting = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];
  for (const [a, b] of conflicting) {
    if (scopes.includes(a) && scopes.includes(b)) {
      errs.push(invalidRendered('spec.scopes', goStringSlice(scopes), 'conflicting scopes'));
    }
  }
  const expressions = record(spec.scopeSelector).matchExpressions;
  for (const [i, raw] of (Array.isArray(expressions) ? expressions : []).entries()) {
    const req = record(raw);
    const path = `spec.scopeSelector.matchExpressions[${i}]`;
    const scope = str(req.scopeName);
    const op = str(req.operator);
    const values = Array.isArray(req.values) ? req.values : [];
    if (!standardScopes.has(scope)) errs.push(fieldErrors.invalid(`${path}.scopeName`, scope, 'unsupported scope'));
    if (['In', 'NotIn'].includes(op) && values.length === 0) {
      errs.push(fieldErrors.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (['Exists', 'DoesNotExist'].includes(op) && values.length > 0) {
      errs.push(invalidRendered(`${path}.values`, goStringSlice(values), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(op)) {
      errs.push(fieldErrors.invalid(`${path}.operator`, op, 'not a valid selector operator'));
    }
  }
  return errs;
}

export const resourceQuotaStrategy: Strategy = {
  hasStatusSubresource: true,
  allowUnconditionalUpdate: true,
  prepareForCreate(obj) {
    // The quota controller owns status; a new quota starts without one.
    delete obj.status;
  },
  validate(obj) {
    const status = record(obj.status);
    return [
      ...validateQuotaSpec(record(obj.spec)),
      ...validateResourceList(status.hard, 'status.hard', true),
      ...validateResourceList(status.used, 'status.used', true),
    ];
  },
  validateUpdate(obj, old) {
    const scopes = (o: KubeObject) => [...new Set((record(o.spec).scopes as unknown[] | undefined ?? []).map(String))].sort();
    if (JSON.stringify(scopes(obj)) === JSON.stringify(scopes(old))) return [];
    return [invalidRendered('spec.scopes', goStringSlice(record(obj.spec).scopes), fieldImmutable)];
  },
};

/**
 * `cpu: 100m/1, memory: 0/1Gi` — used/hard per resource, requests and limits in separate columns. As kube's
 * printResourceQuota: the names come from spec.hard, both numbers from status (0 until the controller fills it).
 */
function quotaColumns(obj: KubeObject): [string, string] {
  const status = record(obj.status);
  const hard = record(status.hard);
  const used = record(status.used);
  const requests: string[] = [];
  const limits: string[] = [];
  for (const name of Object.keys(record(record(obj.spec).hard)).sort()) {
    const parts = name.split('.');
    const entry = `${name}: ${String(ownValue(used, name) ?? '0')}/${String(ownValue(hard, name) ?? '0')}`;
    (parts.length > 1 && parts[0] === 'limits' ? limits : requests).push(entry);
  }
  return [requests.join(', '), limits.join(', ')];
}

export const resourceQuotaPrinter: TablePrinter = {
  columns: [
    nameColumn,
    ageColumn,
    column('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
  ],
  cells: (obj, now) => [nameOf(obj), ageOf(obj, now), ...quotaColumns(obj)],
};

/** SetDefaults_LimitRangeItem: a Container item's default limit falls back to max, its default request to min/default. */
function defaultLimitRangeItem(item: Record<string, unknown>): void {
  if (item.type !== 'Container') return;
  const def = { ...record(item.default) };
  const defReq = { ...record(item.defaultRequest) };
  for (const [k, v] of Object.entries(record(item.max))) if (!Object.hasOwn(def, k)) setOwnValue(def, k, v);
  for (const [k, v] of Object.entries(def)) if (!Object.hasOwn(defReq, k)) setOwnValue(defReq, k, v);
  for (const [k, v] of Object.entries(record(item.min))) if (!Object.hasOwn(defReq, k)) setOwnValue(defReq, k, v);
  if (Object.keys(def).length > 0) item.default = def;
  if (Object.keys(defReq).length > 0) item.defaultRequest = defReq;
}

function limitItems(obj: KubeObject): Record<string, unknown>[] {
  const limits = record(obj.spec).limits;
  return Array.isArray(limits) ? limits.map(record) : [];
}

export const limitRangeStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  defaults(obj) {
    for (const item of limitItems(obj)) defaultLimitRangeItem(item);
  },
  validate(obj) {
    const errs: FieldError[] = [];
    const seen = new Set<string>();
    limitItems(obj).forEach((item, i) => {
      const path = `spec.limits[${i}]`;
      const type = str(item.type);
      errs.push(...isQualifiedName(type).map((m) => fieldErrors.invalid(`${path}.type`, type, m)));
      if (isQualifiedName(type).length === 0 && !type.includes('/') && !standardLimitTypes.has(type)) {
        errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be a standard limit type or fully qualified'));
      }
      if (seen.has(type)) errs.push(fieldErrors.duplicate(`${path}.type`, type));
      seen.add(type);
      for (const field of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
        if (type === 'Pod' && (field === 'default' || field === 'defaultRequest')) {
          if (Object.keys(record(item[field])).length > 0) {
            errs.push(fieldErrors.forbidden(`${path}.${field}`, "may not be specified when `type` is 'Pod'"));
          }
          continue;
        }
        for (const [name, q] of Object.entries(record(item[field]))) {
          const at = keyPath(`${path}.${field}`, name);
          errs.push(...validateResourceName(name, at, false));
          const value = quantityValue(q);
          if (value === undefined) errs.push(fieldErrors.invalid(at, q, quantityFormatError));
        }
      }
      if (type === 'PersistentVolumeClaim' && !('storage' in record(item.min)) && !('storage' in record(item.max))) {
        errs.push(fieldErrors.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
      }
    });
    return errs;
  },
};
