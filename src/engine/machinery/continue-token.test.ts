import { describe, expect, it } from 'vitest';
import {
  CONTINUE_EXPIRED_MESSAGE,
  continueExpired,
  continueWithResourceVersion,
  decodeContinue,
  encodeContinue,
  INCONSISTENT_CONTINUE_MESSAGE,
} from './continue-token.js';
import { StatusError } from './status.js';

const b64 = (s: string) => Buffer.from(s).toString('base64url');

function failure(token: string): string {
  try {
    decodeContinue(token);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).reason).toBe('BadRequest');
    return (err as StatusError).message;
  }
  throw new Error('expected a failure');
}

describe('continue tokens', () => {
  it('encodes kube format: unpadded base64url JSON', () => {
    const token = encodeContinue(412, 'default/cm2');
    expect(token).not.toContain('=');
    expect(Buffer.from(token, 'base64url').toString()).toBe('{"v":"meta.k8s.io/v1","rv":412,"start":"default/cm2"}');
  });

  it('matches a token produced by kube-apiserver byte for byte', () => {
    // {"v":"meta.k8s.io/v1","rv":5,"start":"cm1\u0000"} as Go marshals it.
    const goToken = b64('{"v":"meta.k8s.io/v1","rv":5,"start":"cm1\\u0000"}');
    expect(encodeContinue(5, 'cm1\u0000')).toBe(goToken);
    expect(decodeContinue(goToken)).toEqual({ rv: 5, start: 'cm1\u0000' });
  });

  it('escapes <, > and & like Go', () => {
    expect(Buffer.from(encodeContinue(1, 'a<b>&'), 'base64url').toString()).toContain('"a\\u003cb\\u003e\\u0026"');
    expect(decodeContinue(encodeContinue(1, 'a<b>&')).start).toBe('a<b>&');
  });

  it('round-trips', () => {
    expect(decodeContinue(encodeContinue(99, 'ns/name'))).toEqual({ rv: 99, start: 'ns/name' });
    expect(decodeContinue(b64('{"v":"meta.k8s.io/v1","rv":3,"start":"/x"}'))).toEqual({ rv: 3, start: 'x' });
  });

  it('rejects bad base64 and JSON', () => {
    expect(failure('abc$')).toBe('invalid continue token: continue key is not valid: illegal base64 data at input byte 3');
    expect(failure('a')).toBe('invalid continue token: continue key is not valid: illegal base64 data at input byte 0');
    expect(failure(b64('x'))).toBe(
      "invalid continue token: continue key is not valid: invalid character 'x' looking for beginning of value",
    );
    expect(failure(b64('5'))).toBe(
      'invalid continue token: continue key is not valid: json: cannot unmarshal number into Go value of type storage.continueToken',
    );
    // Go's scanner and type names: a cut-off token, a bool, a JSON null (Go's zero token, then its empty version).
    expect(failure(b64('{"v":"meta.k8s.io/v1","rv":5'))).toBe('invalid continue token: continue key is not valid: unexpected end of JSON input');
    expect(failure(b64('{"v" "x"}'))).toBe("invalid continue token: continue key is not valid: invalid character '\"' after object key");
    expect(failure(b64('{"v":true}'))).toBe(
      'invalid continue token: continue key is not valid: json: cannot unmarshal bool into Go struct field continueToken.v of type string',
    );
    expect(failure(b64('null'))).toBe('invalid continue token: continue key is not valid: server does not recognize this encoded version ');
    expect(failure(b64('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'))).toBe(
      'invalid continue token: continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
    );
  });

  it('rejects bad contents with kube messages', () => {
    expect(failure(b64('{"v":"v2","rv":5,"start":"a"}'))).toBe(
      'invalid continue token: continue key is not valid: server does not recognize this encoded version v2',
    );
    expect(failure(b64('{"v":"meta.k8s.io/v1","start":"a"}'))).toBe(
      'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
    // Found by the fuzzer: these reached the store's revision check and came back as 500s.
    for (const rv of ['-5', '1e20', '9007199254740993']) {
      expect(failure(b64(`{"v":"meta.k8s.io/v1","rv":${rv},"start":"a"}`))).toBe(
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      );
    }
    expect(failure(b64('{"v":"meta.k8s.io/v1","rv":5}'))).toBe(
      'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
    );
    expect(failure(b64('{"v":"meta.k8s.io/v1","rv":5,"start":"../other/x"}'))).toBe(
      'invalid continue token: continue key is not valid: ../other/x',
    );
    expect(failure(b64('{"v":"meta.k8s.io/v1","rv":5,"start":"a//b"}'))).toBe(
      'invalid continue token: continue key is not valid: a//b',
    );
  });

  it('provides the related errors', () => {
    expect(continueWithResourceVersion().message).toBe('specifying resource version is not allowed when using continue');
    const expired = continueExpired();
    expect([expired.code, expired.reason, expired.message]).toEqual([410, 'Expired', CONTINUE_EXPIRED_MESSAGE]);
    expect(continueExpired(true).message).toBe(INCONSISTENT_CONTINUE_MESSAGE);
  });
});
