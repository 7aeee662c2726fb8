/**
 * `/openapi/v2`: a Swagger 2.0 document without paths or definitions.
 *
 * kcpt publishes its schemas as OpenAPI v3, which kubectl (≥ 1.27) uses for `explain` and for deciding that the
 * server validates fields itself (`fieldValidation`). kubectl still asks for v2 when a file holds `kind: List`
 * (what `kubectl get -o yaml` writes): the List kind is in no v3 document, so it falls back to client-side
 * validation, and with v2 missing it refuses the whole file. With this document it finds no definition for any
 * item, skips client-side validation, and every item is then validated by the server (`fieldValidation=Strict`),
 * as for a single object.
 *
 * kubectl asks for gnostic's protobuf form (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`); other
 * clients get JSON. The protobuf is written with the field numbers of gnostic's `openapi.v2.Document`: swagger = 1,
 * info = 2 (title = 1, version = 2), paths = 8, definitions = 9.
 */
import protobufjs from 'protobufjs';

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const TITLE = 'kcpt';

export function openApiV2Json(version: string): string {
  return JSON.stringify({ swagger: '2.0', info: { title: TITLE, version }, paths: {}, definitions: {} });
}

export function openApiV2Protobuf(version: string): Uint8Array {
  const w = protobufjs.Writer.create();
  w.uint32((1 << 3) | 2).string('2.0');
  w.uint32((2 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string(TITLE);
  w.uint32((2 << 3) | 2).string(version);
  w.ldelim();
  // Present but empty: a document that says "no paths, no definitions" rather than one that says nothing.
  w.uint32((8 << 3) | 2).uint32(0);
  w.uint32((9 << 3) | 2).uint32(0);
  return w.finish();
}

/** True when the Accept header asks for the protobuf form before (or instead of) JSON. */
export function wantsOpenApiV2Protobuf(accept: string | undefined): boolean {
  if (!accept) return false;
  for (const clause of accept.split(',')) {
    const type = clause.split(';')[0]!.trim().toLowerCase();
    if (type === OPENAPI_V2_PROTOBUF) return true;
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return false;
  }
  return false;
}
