/**
 * Fields of stored objects read without trusting their shape (a tenant may have written anything the schema lets
 * through): the wrong type reads as empty.
 */

/** A field read as a plain record, or an empty one. */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
