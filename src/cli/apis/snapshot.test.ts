import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { contentHash, crdToSchema, defaultPrefix, isDefaultNameFor, renderSchemas } from './snapshot.js';
import { parseCrds } from '../../client/crd-manifests.js';

const crdYaml = (plural = 'widgets', extra = '') => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.demo.kcpt.dev
spec:
  group: demo.kcpt.dev
  names: { kind: Widget, plural: ${plural}, singular: widget, listKind: WidgetList }
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: { type: object, properties: { size: { type: integer } } }
    additionalPrinterColumns:
    - { name: Size, type: integer, jsonPath: .spec.size }
${extra}`;

const one = (text: string) => parseCrds(text, 'crd.yaml')[0]!;

describe('crd snapshot', () => {
  it('names the schema <prefix>.<plural>.<group> and copies the API, with the OpenAPI schema directly under schema', () => {
    const schema = crdToSchema(one(crdYaml()), 'v1');
    expect(schema).toEqual({
      apiVersion: 'apis.kcp.io/v1alpha1',
      kind: 'APIResourceSchema',
      metadata: { name: 'v1.widgets.demo.kcpt.dev' },
      spec: {
        group: 'demo.kcpt.dev',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
            subresources: {},
            additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          },
        ],
      },
    });
  });

  it('reads every CRD of a multi-document file, skipping empty documents', () => {
    const crds = parseCrds(`---\n${crdYaml('widgets')}---\n---\n${crdYaml('gadgets')}`, 'crds.yaml');
    expect(crds.map((c) => c.crd.metadata?.name)).toEqual(['widgets.demo.kcpt.dev', 'gadgets.demo.kcpt.dev']);
  });

  it('refuses documents that are not CRDs, and YAML that does not parse', () => {
    expect(() => parseCrds('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 'cm.yaml')).toThrow(
      'unexpected type for CRD in cm.yaml: v1, Kind=ConfigMap; expected apiextensions.k8s.io/v1, Kind=CustomResourceDefinition',
    );
    expect(() => parseCrds('a: [', 'bad.yaml')).toThrow(/^error parsing bad.yaml: /);
  });

  it('refuses a name that is not a DNS-1123 subdomain, with kube’s field error', () => {
    expect(() => crdToSchema(one(crdYaml()), 'Bad_Prefix')).toThrow(
      'error converting CRD: metadata.name: Invalid value: "Bad_Prefix.widgets.demo.kcpt.dev": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters',
    );
  });

  it('needs a conversion strategy for more than one version, and refuses service webhooks', () => {
    const twoVersions = crdYaml().replace('  - name: v1\n', '  - name: v2\n    served: true\n    storage: false\n  - name: v1\n');
    expect(() => crdToSchema(one(twoVersions), 'p')).toThrow('error converting CRD: multiple versions specified for widgets.demo.kcpt.dev but no conversion strategy');
    const none = crdToSchema(one(`${twoVersions.replace('spec:\n  group', 'spec:\n  conversion: { strategy: None }\n  group')}`), 'p');
    expect(none.spec.conversion).toEqual({ strategy: 'None' });
    const service = twoVersions.replace(
      'spec:\n  group',
      'spec:\n  conversion: { strategy: Webhook, webhook: { clientConfig: { service: { name: s, namespace: n } }, conversionReviewVersions: [v1] } }\n  group',
    );
    expect(() => crdToSchema(one(service), 'p')).toThrow('webhooks that refer to services are not supported, please use URL instead');
    const url = service.replace('service: { name: s, namespace: n }', 'url: "https://conv.example/convert"');
    expect(crdToSchema(one(url), 'p').spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: { clientConfig: { url: 'https://conv.example/convert' }, conversionReviewVersions: ['v1'] },
    });
  });

  it('prints each schema followed by ---, as YAML or JSON', async () => {
    const schemas = [crdToSchema(one(crdYaml('widgets')), 'v1'), crdToSchema(one(crdYaml('gadgets')), 'v1')];
    const yaml = await renderSchemas(schemas, 'yaml');
    expect(yaml.endsWith('---\n')).toBe(true);
    expect(loadAll(yaml).filter(Boolean)).toEqual(schemas);
    const json = await renderSchemas(schemas, 'json');
    expect(json.split('---\n').filter(Boolean).map((d) => JSON.parse(d))).toEqual(schemas);
    expect(load(yaml.split('---\n')[0]!)).toEqual(schemas[0]);
  });

  it('default prefix: v<YYMMDD>-<hash of the content>; key order does not change the hash, content does', () => {
    const schema = crdToSchema(one(crdYaml()), 'x');
    const prefix = defaultPrefix(schema.spec, new Date('2026-11-24T06:00:00Z'));
    expect(prefix).toMatch(/^v261124-[0-9a-f]{8}$/);
    const reordered = crdToSchema(one(crdYaml().replace('names: { kind: Widget, plural: widgets', 'names: { plural: widgets, kind: Widget')), 'x');
    expect(contentHash(reordered.spec)).toBe(contentHash(schema.spec));
    const changed = crdToSchema(one(crdYaml().replace('type: integer } }', 'type: string } }')), 'x');
    expect(contentHash(changed.spec)).not.toBe(contentHash(schema.spec));
    expect(isDefaultNameFor(`${prefix}.widgets.demo.kcpt.dev`, contentHash(schema.spec), 'widgets.demo.kcpt.dev')).toBe(true);
    expect(isDefaultNameFor(`${prefix}.widgets.demo.kcpt.dev`, contentHash(changed.spec), 'widgets.demo.kcpt.dev')).toBe(false);
    expect(isDefaultNameFor(`v1.widgets.demo.kcpt.dev`, contentHash(schema.spec), 'widgets.demo.kcpt.dev')).toBe(false);
  });
});
