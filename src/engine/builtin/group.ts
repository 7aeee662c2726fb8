/**
 * A built-in API group as one folder under builtin/ declares it: its resources (each carrying its strategy,
 * printer, OpenAPI schemas and strategic-merge keys) and the parts the server needs of the group as a whole.
 * builtin/groups.ts lists them; the layers below receive this data through ResourceType fields or as arguments,
 * never by importing a group.
 */
import type { Schema } from '../machinery/openapi-schemas/index.js';
import type { PackageDefs } from '../machinery/protobuf/schema.js';
import type { ResourceType } from '../registry/types.js';

export interface BuiltinGroup {
  /** The API group ('' is the core group). */
  name: string;
  /** Its resources, in discovery order. */
  resourceTypes(): ResourceType[];
  /** OpenAPI component schemas of its kinds and of the kinds they refer to in other groups. */
  schemas: Readonly<Record<string, Schema>>;
  /** Protobuf message packages of its kinds (field numbers from k8s.io/api's generated.proto). */
  protobuf: readonly PackageDefs[];
}
