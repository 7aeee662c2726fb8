import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../registry/types.js';
import { coreEvents } from '../core/resources.js';
import { eventsV1Events, fromCoreEvent, toCoreEvent } from './resources.js';
import { headers, runCreate, runUpdate } from '../test-support.js';

const now = Date.parse('2024-01-01T01:00:00Z');

const oldStyle: KubeObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web-1.17a', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
  reason: 'Pulled',
  message: ' Successfully pulled image \n',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-01-01T00:10:00Z',
  lastTimestamp: '2024-01-01T00:55:00Z',
  count: 4,
  type: 'Normal',
  eventTime: null,
  reportingComponent: '',
  reportingInstance: '',
};

const newStyle: KubeObject = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name: 'cm.1', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' },
  eventTime: '2024-01-01T00:30:00.000000Z',
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-0',
  action: 'Reconcile',
  reason: 'Synced',
  regarding: { kind: 'ConfigMap', namespace: 'default', name: 'cm' },
  note: 'synced it',
  type: 'Normal',
};

describe('events.k8s.io/v1 ↔ core/v1 conversion', () => {
  it('maps the renamed fields both ways', () => {
    const core = toCoreEvent(newStyle);
    expect(core).toMatchObject({
      apiVersion: 'v1',
      involvedObject: { kind: 'ConfigMap', name: 'cm' },
      message: 'synced it',
      reportingComponent: 'example.com/controller',
      reportingInstance: 'controller-0',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
    });
    expect(core).not.toHaveProperty('regarding');
    expect(core).not.toHaveProperty('note');
    expect(fromCoreEvent(core)).toEqual({
      ...newStyle,
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
  });

  it('shows an old core event through events.k8s.io with its deprecated fields', () => {
    const v1 = fromCoreEvent(oldStyle);
    expect(v1).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      regarding: oldStyle.involvedObject,
      note: oldStyle.message,
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2024-01-01T00:10:00Z',
      deprecatedLastTimestamp: '2024-01-01T00:55:00Z',
      deprecatedCount: 4,
      eventTime: null,
    });
    expect(v1).not.toHaveProperty('reportingController');
    expect(toCoreEvent(v1)).toEqual(oldStyle);
  });

  it('share one key space and storage version hash', () => {
    expect(eventsV1Events.storagePrefix).toBe(coreEvents.storagePrefix);
    expect(eventsV1Events.storageVersionHash).toBe(coreEvents.storageVersionHash);
    expect(coreEvents.storageVersionHash).toBe('r2yiGXH7wu8=');
  });
});

describe('event validation', () => {
  it('core/v1 keeps the legacy rules: the involved object must be in the event’s namespace', () => {
    expect(runCreate(coreEvents, oldStyle).errors).toEqual([]);
    const elsewhere = { ...oldStyle, metadata: { ...oldStyle.metadata, namespace: 'other' } };
    expect(runCreate(coreEvents, elsewhere).errors).toEqual([
      'involvedObject.namespace: Invalid value: "default": does not match event.namespace',
    ]);
  });

  it('a new-style event (eventTime set) names its missing reporter in the API’s own field', () => {
    const { reportingController: _, ...unreported } = newStyle;
    const required = (field: string) => [`${field}: Required value`, `${field}: Invalid value: "": name part must be non-empty`];
    expect(runCreate(eventsV1Events, unreported).errors.slice(0, 2)).toEqual(required('reportingController'));
    const core = toCoreEvent(unreported);
    expect(runCreate(coreEvents, core).errors.slice(0, 2)).toEqual(required('reportingComponent'));
  });

  it('events.k8s.io/v1 also requires eventTime, a known type and no deprecated fields on create', () => {
    expect(runCreate(eventsV1Events, newStyle).errors).toEqual([]);
    const { errors } = runCreate(eventsV1Events, {
      ...newStyle,
      eventTime: undefined,
      type: 'Odd',
      deprecatedCount: 3,
      reportingController: undefined,
    });
    expect(errors).toEqual([
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: Odd',
      'count: Invalid value: "": needs to be unset',
    ]);
  });

  it('events.k8s.io/v1 updates may change the series but not what happened', () => {
    const created = runCreate(eventsV1Events, newStyle).obj;
    const series = { count: 2, lastObservedTime: '2024-01-01T00:40:00.000000Z' };
    expect(runUpdate(eventsV1Events, created, { ...created, series }).errors).toEqual([]);
    expect(runUpdate(eventsV1Events, created, { ...created, series: { count: 1 } }).errors).toEqual([
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
    ]);
    expect(runUpdate(eventsV1Events, created, { ...created, note: 'rewritten' }).errors).toEqual([
      'message: Invalid value: "rewritten": field is immutable',
    ]);
  });
});

describe('event printing and selectors', () => {
  it('prints LAST SEEN TYPE REASON OBJECT MESSAGE, wide adds SUBOBJECT SOURCE FIRST SEEN COUNT NAME', () => {
    expect(headers(coreEvents)).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(headers(coreEvents, true)).toEqual([
      'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME',
    ]);
    expect(coreEvents.printer?.cells(oldStyle, now)).toEqual([
      '5m', 'Normal', 'Pulled', 'pod/web-1', 'spec.containers{web}', 'kubelet, node-1', 'Successfully pulled image', '50m', 4, 'web-1.17a',
    ]);
  });

  it('prints new-style events from eventTime and series, in either shape', () => {
    const expected = ['30m', 'Normal', 'Synced', 'configmap/cm', '', 'example.com/controller, controller-0', 'synced it', '30m', 1, 'cm.1'];
    expect(eventsV1Events.printer?.cells(newStyle, now)).toEqual(expected);
    expect(coreEvents.printer?.cells(toCoreEvent(newStyle), now)).toEqual(expected);
    const repeated = { ...newStyle, series: { count: 7, lastObservedTime: '2024-01-01T00:58:00Z' } };
    expect(eventsV1Events.printer?.cells(repeated, now).slice(0, 1)).toEqual(['2m']);
    expect(eventsV1Events.printer?.cells(repeated, now)[8]).toBe(7);
  });

  it('selects by involvedObject on core/v1 and by regarding on events.k8s.io/v1, on the stored shape', () => {
    const stored = toCoreEvent(newStyle);
    expect(coreEvents.fieldSelectors?.['involvedObject.name']?.(stored)).toBe('cm');
    expect(coreEvents.fieldSelectors?.source?.(stored)).toBe('example.com/controller');
    expect(coreEvents.fieldSelectors?.source?.(oldStyle)).toBe('kubelet');
    expect(eventsV1Events.fieldSelectors?.['regarding.kind']?.(stored)).toBe('ConfigMap');
    expect(eventsV1Events.fieldSelectors?.reportingController?.(stored)).toBe('example.com/controller');
    expect(Object.keys(eventsV1Events.fieldSelectors ?? {})).not.toContain('involvedObject.name');
  });
});
