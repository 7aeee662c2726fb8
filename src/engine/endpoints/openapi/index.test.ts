import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { buildOpenAPIDocuments, buildOpenAPIIndex, buildOpenAPISet, documentHash } from './index.js';
import { fakeResources } from './test-fixtures.js';

describe('documentHash', () => {
  it('is the uppercase hex SHA-512 of the text, like kube-openapi', () => {
    const expected = createHash('sha512').update('{"openapi":"3.0.0"}').digest('hex').toUpperCase();
    expect(documentHash('{"openapi":"3.0.0"}')).toBe(expected);
    expect(documentHash('x')).toMatch(/^[0-9A-F]{128}$/);
  });
});

describe('buildOpenAPIIndex', () => {
  it('points each group-version at /openapi/v3/<key>?hash=<hash of the served bytes>, with no /clusters prefix', () => {
    const docs = buildOpenAPIDocuments(fakeResources);
    const index = buildOpenAPIIndex(docs);
    expect(Object.keys(index.paths)).toEqual([
      'api/v1',
      'apis/authorization.k8s.io/v1',
      'apis/core.kcp.io/v1alpha1',
      'apis/rbac.authorization.k8s.io/v1',
      'apis/stable.example.com/v1',
    ]);
    for (const [key, { serverRelativeURL }] of Object.entries(index.paths)) {
      expect(serverRelativeURL).toBe(`/openapi/v3/${key}?hash=${documentHash(docs.get(key) as string)}`);
      expect(serverRelativeURL).not.toContain('/clusters/');
    }
  });

  it('changes the hash when a document changes', () => {
    const before = buildOpenAPIIndex(buildOpenAPIDocuments(fakeResources));
    const fewer = fakeResources.filter((r) => r.resource !== 'secrets');
    const after = buildOpenAPIIndex(buildOpenAPIDocuments(fewer));
    expect(after.paths['api/v1']?.serverRelativeURL).not.toBe(before.paths['api/v1']?.serverRelativeURL);
    expect(after.paths['apis/rbac.authorization.k8s.io/v1']).toEqual(before.paths['apis/rbac.authorization.k8s.io/v1']);
  });
});

describe('buildOpenAPISet', () => {
  it('bundles the index body with each document and its hash', () => {
    const set = buildOpenAPISet(fakeResources);
    const index = JSON.parse(set.indexJSON) as { paths: Record<string, { serverRelativeURL: string }> };
    const core = set.documents.get('api/v1');
    expect(core?.hash).toBe(documentHash(core?.json as string));
    expect(index.paths['api/v1']?.serverRelativeURL).toBe(`/openapi/v3/api/v1?hash=${core?.hash}`);
  });
});
