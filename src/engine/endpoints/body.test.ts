import { describe, expect, it } from 'vitest';
import { encodeKube } from '../builtin/protobuf-test-support.js';
import { deleteOptionsBody } from './body.js';
import { parseDeleteOptions } from './query.js';

const protobuf = 'application/vnd.kubernetes.protobuf';

describe('deleteOptionsBody', () => {
  // client-go's typed clients (kubernetes.Clientset) send every Delete's options in protobuf by default.
  it('reads a protobuf DeleteOptions as client-go sends it', async () => {
    const body = encodeKube('v1', 'DeleteOptions', 'meta.v1.DeleteOptions', {
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1' },
      dryRun: ['All'],
    });
    const { contentType, body: json } = await deleteOptionsBody(protobuf, body);
    expect(parseDeleteOptions(new URLSearchParams(), contentType, json)).toStrictEqual({
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1' },
      dryRun: true,
    });
  });

  it('passes JSON through and refuses a protobuf body of another kind', async () => {
    const json = Buffer.from('{"gracePeriodSeconds":0}');
    expect(await deleteOptionsBody('application/json', json)).toStrictEqual({ contentType: 'application/json', body: json });
    const configMap = encodeKube('v1', 'ConfigMap', 'core.v1.ConfigMap', { data: { a: 'b' } });
    await expect(deleteOptionsBody(protobuf, configMap)).rejects.toThrow('the request body must be a DeleteOptions object, not ConfigMap');
  });
});
