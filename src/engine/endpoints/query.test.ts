import { describe, expect, it } from 'vitest';
import { encodeKube, gogoMeta } from '../machinery/protobuf/test-support.js';
import { parseDeleteOptions } from './query.js';

const parse = (query: string, body?: object) =>
  parseDeleteOptions(new URLSearchParams(query), 'application/json', body ? Buffer.from(JSON.stringify(body)) : undefined);

describe('parseDeleteOptions: propagation', () => {
  it('reads propagationPolicy and the legacy orphanDependents from the body or the query', async () => {
    await expect(parse('', { propagationPolicy: 'Foreground' })).resolves.toEqual({ propagationPolicy: 'Foreground' });
    await expect(parse('orphanDependents=true')).resolves.toEqual({ orphanDependents: true });
    await expect(parse('', { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false })).resolves.toEqual({ orphanDependents: false });
  });

  it('refuses both at once, as kube does', async () => {
    await expect(parse('', { orphanDependents: true, propagationPolicy: 'Background' })).rejects.toThrow(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    );
  });
});

describe('parseDeleteOptions: Kubernetes protobuf bodies', () => {
  const protobuf = (body: Buffer) => parseDeleteOptions(new URLSearchParams(), 'application/vnd.kubernetes.protobuf', body);

  // client-go's typed clients (Helm's release storage among them) send DeleteOptions as protobuf, in the resource's
  // group-version.
  it('reads a DeleteOptions as client-go encodes it', async () => {
    const body = encodeKube('v1', 'DeleteOptions', 'meta.v1.DeleteOptions', { gracePeriodSeconds: 0, propagationPolicy: 'Foreground' });
    await expect(protobuf(body)).resolves.toEqual({ gracePeriodSeconds: 0, propagationPolicy: 'Foreground' });
    const empty = encodeKube('rbac.authorization.k8s.io/v1', 'DeleteOptions', 'meta.v1.DeleteOptions', {});
    await expect(protobuf(empty)).resolves.toEqual({});
  });

  it('refuses another kind or bytes that are not protobuf with 400', async () => {
    const configMap = encodeKube('v1', 'ConfigMap', 'core.v1.ConfigMap', { metadata: gogoMeta({ name: 'x' }) });
    await expect(protobuf(configMap)).rejects.toThrow('the DeleteOptions in the request body are not valid: expected a DeleteOptions, got v1, Kind=ConfigMap');
    await expect(protobuf(Buffer.from('{}'))).rejects.toThrow(/^the DeleteOptions in the request body are not valid: invalid protobuf envelope/);
  });
});
