/**
 * Query and path parameters of kube REST operations. kubectl reads only their names (it checks the PATCH
 * operation for `fieldValidation` to decide whether the server validates), but the descriptions are what
 * `kubectl explain`-style tools and API browsers show, so they are short and accurate.
 */

export interface Parameter {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  schema: { type: 'string' | 'integer' | 'boolean'; uniqueItems: true };
}

function query(name: string, type: Parameter['schema']['type'], description: string): Parameter {
  return { description, in: 'query', name, schema: { type, uniqueItems: true } };
}

export function nameParam(kind: string): Parameter {
  return {
    description: `name of the ${kind}`,
    in: 'path',
    name: 'name',
    required: true,
    schema: { type: 'string', uniqueItems: true },
  };
}

export const namespaceParam: Parameter = {
  description: 'object name and auth scope, such as for teams and projects',
  in: 'path',
  name: 'namespace',
  required: true,
  schema: { type: 'string', uniqueItems: true },
};

export const pretty = query('pretty', 'string', "If 'true', the response is indented for reading.");

const dryRun = query(
  'dryRun',
  'string',
  'If present, the request is processed but not persisted. The only accepted value is All.',
);
const fieldManager = query(
  'fieldManager',
  'string',
  'Name of the actor making the change, recorded in managedFields. At most 128 printable characters; ' +
    'required for apply patches.',
);
const fieldValidation = query(
  'fieldValidation',
  'string',
  'How to treat unknown or duplicate fields in the body: Ignore drops them silently, Warn drops them with a ' +
    'Warning header (the default), Strict rejects the request with 400 BadRequest listing them.',
);
const force = query(
  'force',
  'boolean',
  'Apply patches only: take ownership of fields other managers own instead of failing with a conflict.',
);

const labelSelector = query('labelSelector', 'string', 'Only return objects whose labels match this selector.');
const fieldSelector = query('fieldSelector', 'string', 'Only return objects whose fields match this selector.');
const limit = query(
  'limit',
  'integer',
  'Maximum number of items to return; if more exist, metadata.continue holds a token for the next page.',
);
const continueParam = query(
  'continue',
  'string',
  'Token from a previous limited list, to fetch the next page. The other query parameters must not change.',
);
const resourceVersion = query(
  'resourceVersion',
  'string',
  'Read at, or not older than, this resourceVersion (see resourceVersionMatch). For watches, start after it.',
);
const resourceVersionMatch = query(
  'resourceVersionMatch',
  'string',
  'How resourceVersion applies to a list: Exact or NotOlderThan.',
);
const watch = query('watch', 'boolean', 'Stream change events instead of returning a list.');
const allowWatchBookmarks = query(
  'allowWatchBookmarks',
  'boolean',
  'Allow BOOKMARK events carrying only a resourceVersion. Ignored unless watching.',
);
const sendInitialEvents = query(
  'sendInitialEvents',
  'boolean',
  'With watch=true, start the stream with ADDED events for existing objects, then a BOOKMARK marking the end.',
);
const timeoutSeconds = query('timeoutSeconds', 'integer', 'End the list or watch call after this many seconds.');

const gracePeriodSeconds = query(
  'gracePeriodSeconds',
  'integer',
  'Seconds before the object is removed; 0 means immediately. Unset uses the default for the type.',
);
const ignoreStoreReadError = query(
  'ignoreStoreReadErrorWithClusterBreakingPotential',
  'boolean',
  'Delete an object even if its stored data cannot be decoded. Dangerous; needs extra permission.',
);
const orphanDependents = query(
  'orphanDependents',
  'boolean',
  'Deprecated, use propagationPolicy: if true, dependents are orphaned instead of deleted.',
);
const propagationPolicy = query(
  'propagationPolicy',
  'string',
  'What happens to dependents: Orphan, Background (garbage collector deletes them later) or Foreground ' +
    '(the owner waits until they are gone).',
);

export const listParams: Parameter[] = [
  allowWatchBookmarks,
  continueParam,
  fieldSelector,
  labelSelector,
  limit,
  resourceVersion,
  resourceVersionMatch,
  sendInitialEvents,
  timeoutSeconds,
  watch,
];

export const writeParams: Parameter[] = [dryRun, fieldManager, fieldValidation];

export const patchParams: Parameter[] = [dryRun, fieldManager, fieldValidation, force];

export const deleteParams: Parameter[] = [
  dryRun,
  gracePeriodSeconds,
  ignoreStoreReadError,
  orphanDependents,
  propagationPolicy,
];

export const deleteCollectionParams: Parameter[] = [
  continueParam,
  dryRun,
  fieldSelector,
  gracePeriodSeconds,
  ignoreStoreReadError,
  labelSelector,
  limit,
  orphanDependents,
  propagationPolicy,
  resourceVersion,
  resourceVersionMatch,
  sendInitialEvents,
  timeoutSeconds,
];
