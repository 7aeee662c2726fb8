/**
 * Label and field selectors compiled into one predicate over objects, with a fast "matches everything" flag so
 * unfiltered lists and watches never parse stored JSON.
 */
import { compileFieldSelector, parseFieldSelector } from '../machinery/field-selector.js';
import { matches as labelsMatch, parseLabelSelector } from '../machinery/label-selector.js';
import type { KubeObject, ResourceType } from './types.js';

export interface ListPredicate {
  matchesEverything: boolean;
  matches(obj: KubeObject): boolean;
}

export const everything: ListPredicate = { matchesEverything: true, matches: () => true };

export function buildPredicate(rt: ResourceType, labelSelector?: string, fieldSelector?: string): ListPredicate {
  const labels = labelSelector?.trim() ? parseLabelSelector(labelSelector) : undefined;
  const fields = fieldSelector?.trim()
    ? compileFieldSelector(parseFieldSelector(fieldSelector), rt.fieldSelectors ?? {}, {
        namespaceField: rt.namespaced || !rt.isCustomResource,
      })
    : undefined;
  if (!labels && !fields) return everything;
  return {
    matchesEverything: false,
    matches(obj) {
      if (labels && !labelsMatch(labels, obj.metadata?.labels ?? {})) return false;
      if (fields && !fields.matches(obj)) return false;
      return true;
    },
  };
}

/** A virtual workspace's filter on top of a request's selectors. */
export function withFilter(predicate: ListPredicate, filter: ((obj: KubeObject) => boolean) | undefined): ListPredicate {
  if (!filter) return predicate;
  return { matchesEverything: false, matches: (obj) => filter(obj) && predicate.matches(obj) };
}
