/**
 * Writes of values the server computes itself (its built-in WorkspaceTypes and Shard, the URLs in a WorkspaceType's
 * status) skip the schema pass: they are shaped by code that bootstrap.test.ts checks against the real validation,
 * and the rest of the object was validated when it was written. Validating them anyway compiled the WorkspaceType
 * and Shard schemas with ajv at start-up (~60–170 ms of CPU, more on a restart on another address, when the URLs
 * change). A user's own write to these types still compiles and runs the schema; admission runs as usual.
 */
import type { ResourceType } from '../registry/types.js';

export const withoutSchemaValidation = (rt: ResourceType): ResourceType => ({ ...rt, strategy: { ...rt.strategy, validate: undefined } });
