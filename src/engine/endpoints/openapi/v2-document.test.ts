import protobufjs from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { openApiV2Json, openApiV2Protobuf, wantsOpenApiV2Protobuf, OPENAPI_V2_PROTOBUF } from './v2-document.js';

/** gnostic's openapi.v2.Document, just the fields the document carries (field numbers from gnostic). */
const root = protobufjs.Root.fromJSON({
  nested: {
    Info: { fields: { title: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
    Empty: { fields: {} },
    Document: {
      fields: {
        swagger: { type: 'string', id: 1 },
        info: { type: 'Info', id: 2 },
        paths: { type: 'Empty', id: 8 },
        definitions: { type: 'Empty', id: 9 },
      },
    },
  },
});

describe('/openapi/v2 document', () => {
  it('decodes as a gnostic Document: swagger 2.0, its info, empty paths and definitions', () => {
    const doc = root.lookupType('Document').decode(openApiV2Protobuf('v1.32.4+kcpt')).toJSON();
    expect(doc).toEqual({ swagger: '2.0', info: { title: 'kcpt', version: 'v1.32.4+kcpt' }, paths: {}, definitions: {} });
  });

  it('has the same content as JSON', () => {
    expect(JSON.parse(openApiV2Json('v1'))).toEqual({ swagger: '2.0', info: { title: 'kcpt', version: 'v1' }, paths: {}, definitions: {} });
  });

  it('answers protobuf only to a client that asks for it before JSON', () => {
    expect(wantsOpenApiV2Protobuf(OPENAPI_V2_PROTOBUF)).toBe(true);
    expect(wantsOpenApiV2Protobuf(`application/json, ${OPENAPI_V2_PROTOBUF}`)).toBe(false);
    expect(wantsOpenApiV2Protobuf(`${OPENAPI_V2_PROTOBUF};q=0.9, application/json`)).toBe(true);
    expect(wantsOpenApiV2Protobuf(undefined)).toBe(false);
    expect(wantsOpenApiV2Protobuf('*/*')).toBe(false);
  });
});
