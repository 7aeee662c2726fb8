import { describe, expect, it } from 'vitest';
import { StatusError } from '../machinery/status.js';
import {
  BUILTIN_RESOURCE,
  CUSTOM_RESOURCE,
  isPrettyPrint,
  negotiateError,
  negotiateOutput,
  negotiateStream,
  parseAccept,
} from './negotiation.js';

const PB = 'application/vnd.kubernetes.protobuf';
const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';

function refusal(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('no refusal');
}

describe('parseAccept', () => {
  it('orders by q, then concrete before wildcard, keeping the client order among equals', () => {
    const order = parseAccept('*/*;q=0.8, application/json;q=0.9, application/*, text/plain').map((c) => `${c.type}/${c.subtype}`);
    expect(order).toEqual(['text/plain', 'application/*', 'application/json', '*/*']);
  });

  it('drops clauses without a subtype and parameters without a value; an unreadable q counts as 0', () => {
    const clauses = parseAccept('application, application/json;charset;q=x, application/yaml');
    expect(clauses.map((c) => [c.subtype, c.q])).toEqual([
      ['yaml', 1],
      ['json', 0],
    ]);
  });
});

describe('negotiateOutput', () => {
  it('answers JSON without Accept, and the first clause a built-in resource can serve', () => {
    expect(negotiateOutput({}, BUILTIN_RESOURCE).mediaType).toBe('application/json');
    expect(negotiateOutput({ accept: `${PB}, application/json` }, BUILTIN_RESOURCE).format).toBe('protobuf');
    expect(negotiateOutput({ accept: 'text/html, application/yaml' }, BUILTIN_RESOURCE).format).toBe('yaml');
    expect(negotiateOutput({ accept: '*/*' }, BUILTIN_RESOURCE).format).toBe('json');
  });

  it('answers custom resources in JSON when protobuf is preferred, and 406 when JSON and YAML are not acceptable', () => {
    expect(negotiateOutput({ accept: `${PB}, application/json` }, CUSTOM_RESOURCE).format).toBe('json');
    const refused = refusal(() => negotiateOutput({ accept: PB }, CUSTOM_RESOURCE));
    expect(refused.code).toBe(406);
    expect(refused.toStatus().message).toContain(PB);
  });

  it('answers a repeated Accept header per endpoint, and past the parsed-header cache’s bound as before', () => {
    for (let round = 0; round < 3; round++) {
      expect(negotiateOutput({ accept: `${PB}, application/json` }, BUILTIN_RESOURCE).format).toBe('protobuf');
      expect(negotiateOutput({ accept: `${PB}, application/json` }, CUSTOM_RESOURCE).format).toBe('json');
      expect(negotiateOutput({ accept: TABLE_V1 }, BUILTIN_RESOURCE).convert).toEqual({ kind: 'Table', version: 'v1' });
    }
    for (let i = 0; i < 600; i++) {
      const accept = `application/yaml;x=${i}, ${PB}` + (i % 2 ? '' : ` ${'y'.repeat(600)}`);
      expect(negotiateOutput({ accept }, BUILTIN_RESOURCE).format).toBe('yaml');
    }
    expect(negotiateOutput({ accept: PB }, BUILTIN_RESOURCE).format).toBe('protobuf');
  });

  it('serves PartialObjectMetadata of custom resources in protobuf, Tables only in JSON and YAML', () => {
    const pom = `${PB};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`;
    expect(negotiateOutput({ accept: pom }, CUSTOM_RESOURCE)).toMatchObject({
      format: 'protobuf',
      convert: { kind: 'PartialObjectMetadataList', version: 'v1' },
    });
    expect(negotiateOutput({ accept: `${PB};as=Table;g=meta.k8s.io;v=v1, application/json` }, BUILTIN_RESOURCE).convert).toBeUndefined();
  });

  it('takes the first acceptable clause of what kubectl get sends', () => {
    const kubectl = `${TABLE_V1},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`;
    expect(negotiateOutput({ accept: kubectl }, BUILTIN_RESOURCE).convert).toEqual({ kind: 'Table', version: 'v1' });
    expect(negotiateOutput({ accept: `application/json;q=0.5, ${TABLE_V1}` }, BUILTIN_RESOURCE).convert?.kind).toBe('Table');
    // An unknown conversion, or a Table of another version, is skipped.
    expect(negotiateOutput({ accept: 'application/json;as=Table;v=v2;g=meta.k8s.io, application/json' }, BUILTIN_RESOURCE).convert).toBeUndefined();
    expect(negotiateOutput({ accept: 'application/json;as=Thing;v=v1;g=meta.k8s.io, application/yaml' }, BUILTIN_RESOURCE).format).toBe('yaml');
  });

  it('refuses a server version other than the endpoint’s', () => {
    expect(refusal(() => negotiateOutput({ accept: 'application/json;sv=v2' }, BUILTIN_RESOURCE)).code).toBe(406);
    expect(negotiateOutput({ accept: 'application/json;sv=v1' }, BUILTIN_RESOURCE).format).toBe('json');
  });

  it('pretty-prints JSON for ;pretty=1, ?pretty and curl, never other media types', () => {
    expect(negotiateOutput({ accept: 'application/json;pretty=1' }, BUILTIN_RESOURCE).pretty).toBe(true);
    expect(negotiateOutput({ query: new URLSearchParams('pretty=true') }, BUILTIN_RESOURCE).pretty).toBe(true);
    expect(negotiateOutput({ userAgent: 'curl/8.5.0' }, BUILTIN_RESOURCE).pretty).toBe(true);
    expect(negotiateOutput({ userAgent: 'curl/8.5.0', query: new URLSearchParams('pretty=false') }, BUILTIN_RESOURCE).pretty).toBe(false);
    expect(negotiateOutput({ accept: PB, userAgent: 'curl/8.5.0' }, BUILTIN_RESOURCE).pretty).toBe(false);
  });
});

describe('isPrettyPrint', () => {
  it('reads ?pretty as Go’s ParseBool, anything else false', () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(isPrettyPrint({ query: new URLSearchParams(`pretty=${v}`) })).toBe(true);
    for (const v of ['0', 'yes', 'tRUE']) expect(isPrettyPrint({ query: new URLSearchParams(`pretty=${v}`), userAgent: 'curl/8' })).toBe(false);
    expect(isPrettyPrint({ userAgent: 'kubectl/v1.32.4' })).toBe(false);
    expect(isPrettyPrint({ userAgent: 'Mozilla/5.0 (X11)' })).toBe(true);
  });
});

describe('negotiateStream', () => {
  it('streams JSON by default and protobuf with ;stream=watch as client-go asks', () => {
    expect(negotiateStream({}, BUILTIN_RESOURCE).format).toBe('json');
    expect(negotiateStream({ accept: `${PB};stream=watch, application/json` }, BUILTIN_RESOURCE).format).toBe('protobuf');
    expect(negotiateStream({ accept: `${PB}, application/json` }, CUSTOM_RESOURCE).format).toBe('json');
  });

  it('refuses YAML, which has no stream form, listing the stream media types', () => {
    const refused = refusal(() => negotiateStream({ accept: 'application/yaml' }, BUILTIN_RESOURCE));
    expect(refused.code).toBe(406);
    expect(refused.toStatus().message).toContain(`${PB};stream=watch`);
  });
});

describe('negotiateError', () => {
  it('writes errors in any media type the client accepts, custom resource or not, and nothing for none', () => {
    expect(negotiateError({ accept: PB })?.format).toBe('protobuf');
    expect(negotiateError({ accept: `${TABLE_V1}, application/yaml` })?.format).toBe('yaml');
    expect(negotiateError({ accept: 'text/html' })).toBeUndefined();
  });
});
