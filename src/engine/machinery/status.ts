/**
 * Kubernetes `Status` errors. Every failure that reaches a client is one of these, with the HTTP code equal to
 * `code` and kube's reason and wording, so kubectl prints the messages people already know.
 */

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers (Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details && Object.keys(this.details).length > 0) body.details = this.details;
    return body;
  }
}

/** A group-qualified resource as kube prints it: `configmaps`, `deployments.apps`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function alreadyExists(gr: GroupResource, name: string, retryAfterSeconds?: number): StatusError {
  const details: StatusDetails = { name, group: gr.group, kind: gr.resource };
  if (retryAfterSeconds) details.retryAfterSeconds = retryAfterSeconds;
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, details);
}

export function conflict(gr: GroupResource, name: string, why?: string): StatusError {
  const message =
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ` +
    (why ?? 'the object has been modified; please apply your changes to the latest version and try again');
  return new StatusError(409, 'Conflict', message, { name, group: gr.group, kind: gr.resource });
}

export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(401, 'Unauthorized', message);
}

export function forbidden(gr: GroupResource, name: string, reason: string): StatusError {
  const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${reason}`, {
    name: name || undefined,
    group: gr.group,
    kind: gr.resource,
  });
}

export function methodNotAllowed(message: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', message);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    undefined,
  );
}

export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: ${accepted.join(', ')}`,
  );
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds }, {
    'Retry-After': String(retryAfterSeconds),
  });
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

export function serviceUnavailable(message: string, retryAfterSeconds?: number): StatusError {
  if (retryAfterSeconds === undefined) return new StatusError(503, 'ServiceUnavailable', message);
  return new StatusError(503, 'ServiceUnavailable', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
}

/**
 * kube's NewTimeoutError: the message prefixed `Timeout: `, and a retry delay (when above 0) in
 * details.retryAfterSeconds and the Retry-After header, which client-go waits out and then sends the request again.
 */
export function timeout(message: string, retryAfterSeconds = 0, causes?: StatusCause[]): StatusError {
  const details: StatusDetails = {};
  if (causes) details.causes = causes;
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  const headers = retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : undefined;
  return new StatusError(504, 'Timeout', `Timeout: ${message}`, details, headers);
}

/**
 * storage.NewTooLargeResourceVersionError: a read for a revision the store has not reached. kube's watch cache,
 * having waited for it, asks the client to retry after 1 s; etcd's answer for an exact revision carries no delay.
 */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): StatusError {
  return timeout(`Too large resource version: ${requested}, current: ${current}`, retryAfterSeconds, [
    { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
  ]);
}

/** A field-level validation problem, rendered like k8s.io/apimachinery/pkg/util/validation/field. */
export interface FieldError {
  type:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueDuplicate'
    | 'FieldValueForbidden'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueTypeInvalid'
    | 'FieldValueNotFound';
  field: string;
  /** The rendered message body after the field, e.g. `Invalid value: "x": must be …`. */
  detail: string;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => ({
    type: 'FieldValueRequired',
    field,
    detail: detail ? `Required value: ${detail}` : 'Required value',
  }),
  invalid: (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    detail: `Invalid value: ${renderValue(value)}${detail ? `: ${detail}` : ''}`,
  }),
  notSupported: (field: string, value: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    detail: `Unsupported value: ${renderValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  duplicate: (field: string, value: unknown): FieldError => ({
    type: 'FieldValueDuplicate',
    field,
    detail: `Duplicate value: ${renderValue(value)}`,
  }),
  forbidden: (field: string, detail: string): FieldError => ({
    type: 'FieldValueForbidden',
    field,
    detail: `Forbidden: ${detail}`,
  }),
  tooLong: (field: string, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    detail: `Too long: may not be more than ${max} bytes`,
  }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field,
    detail: `Invalid value: ${renderValue(value)}: ${detail}`,
  }),
};

/** 422 Invalid: `ConfigMap "x" is invalid: [a, b]` with one cause per field error. */
export function invalid(gk: { group: string; kind: string }, name: string, errors: FieldError[]): StatusError {
  const rendered = errors.map((e) => `${e.field}: ${e.detail}`);
  const summary = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  const qualifiedKind = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.detail, field: e.field })),
  });
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}
