/**
 * x-kubernetes-validations calling kube's typed CEL libraries (quantity, ip, cidr, semver, format) and strings.quote,
 * through the real kubectl: the CRD is applied without a warning, objects breaking the rules are refused with the
 * rules' messages, valid ones are stored; a rule misusing a library, or too expensive, is refused at CRD write.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, type ClusterKubectl } from '../helpers/kubectl.js';
import { lines, useE2EServer } from '../helpers/suite.js';
import { crdObject, refusedLines, specWith, withFile, type Json } from './crds-fixtures.js';

const e2e = useE2EServer();

const group = 'libs.cel.example.com';
const str = (maxLength: number, rules: Json[]): Json => ({ type: 'string', maxLength, 'x-kubernetes-validations': rules });
const schema: Json = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: '!has(self.request) || !has(self.limit) || quantity(self.request).compareTo(quantity(self.limit)) <= 0', message: 'request must not exceed limit' },
      ],
      properties: {
        request: str(32, [{ rule: "isQuantity(self) && quantity(self).isLessThan(quantity('64Gi')) && sign(quantity(self)) > 0", message: 'request must be a positive quantity below 64Gi' }]),
        limit: str(32, [{ rule: 'isQuantity(self)', message: 'limit must be a quantity' }]),
        storage: str(32, [{ rule: 'quantity(self).compareTo(quantity(oldSelf)) >= 0', message: 'storage may not shrink' }]),
        nodeIP: str(45, [
          {
            rule: 'isIP(self) && ip(self).family() == 4 && !ip(self).isLoopback()',
            messageExpression: "'nodeIP ' + strings.quote(self) + ' must be a non-loopback IPv4 address'",
          },
        ]),
        podCIDR: str(49, [
          { rule: "isCIDR(self) && cidr('10.0.0.0/8').containsCIDR(self) && cidr(self).prefixLength() <= 24", message: 'podCIDR must be a /24 or larger inside 10.0.0.0/8' },
        ]),
        version: str(64, [{ rule: "isSemver(self, true) && semver(self, true).isGreaterThan(semver('1.27.0'))", message: 'version must be a semver above 1.27.0' }]),
        hostname: str(253, [
          { rule: '!format.dns1123Subdomain().validate(self).hasValue()', messageExpression: "format.dns1123Subdomain().validate(self).value().join(', ')" },
        ]),
      },
    },
  },
};

describe("x-kubernetes-validations calling kube's typed libraries are enforced on custom resources", () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);
  const ns = uniqueName('cellibs');
  const obj = (name: string, spec: Json): Json => ({ apiVersion: `${group}/v1`, kind: 'Node', metadata: { name }, spec });
  const valid: Json = { request: '1536Mi', limit: '2Gi', storage: '10Gi', nodeIP: '192.168.1.10', podCIDR: '10.1.0.0/16', version: 'v1.31', hostname: 'node-1.example.com' };
  const refused = async (args: string[], o?: Json) => {
    if (o) return refusedLines(k, [...args, '-n', ns], o);
    const r = await k([...args, '-n', ns], { reject: false });
    expect(r.exitCode, r.stdout).not.toBe(0);
    return lines(r.stderr);
  };

  beforeAll(async () => {
    await k(['create', 'namespace', ns]);
    const crd = crdObject({ group, plural: 'nodes', kind: 'Node', schema });
    const applied = await withFile(k, ['apply'], crd);
    // Every rule is evaluated: no "kcpt does not evaluate" warning.
    expect(applied.stderr).toBe('');
    await k(['wait', '--for=condition=Established', `crd/nodes.${group}`, '--timeout=30s']);
  }, 90_000);

  it('a valid object is stored; each library refuses what breaks its rule, with the rule message', async () => {
    expect((await withFile(k, ['create', '-n', ns], obj('n1', valid))).stdout).toBe(`node.${group}/n1 created`);
    expect(
      await refused(['create'], obj('n2', { request: '3Gi', limit: '2Gi', storage: '1', nodeIP: '127.0.0.1', podCIDR: '10.1.2.0/25', version: '1.26.9', hostname: 'Node_1' })),
    ).toEqual([
      'The Node "n2" is invalid:',
      '* spec: Invalid value: "object": request must not exceed limit',
      "* spec.hostname: Invalid value: \"string\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      '* spec.nodeIP: Invalid value: "string": nodeIP "127.0.0.1" must be a non-loopback IPv4 address',
      '* spec.podCIDR: Invalid value: "string": podCIDR must be a /24 or larger inside 10.0.0.0/8',
      '* spec.version: Invalid value: "string": version must be a semver above 1.27.0',
    ]);
    // Not a quantity (the root rule's quantity() fails with kube's parse error), an IPv4-mapped IPv6 address (kube
    // refuses those), a CIDR outside the range.
    expect(await refused(['create'], obj('n3', { ...valid, request: '200K', nodeIP: '::ffff:192.168.1.10', podCIDR: '192.168.0.0/16' }))).toEqual([
      'The Node "n3" is invalid:',
      `* spec: Invalid value: "object": unable to parse quantity's suffix evaluating rule: request must not exceed limit`,
      '* spec.nodeIP: Invalid value: "string": nodeIP "::ffff:192.168.1.10" must be a non-loopback IPv4 address',
      '* spec.podCIDR: Invalid value: "string": podCIDR must be a /24 or larger inside 10.0.0.0/8',
      '* spec.request: Invalid value: "string": request must be a positive quantity below 64Gi',
    ]);
  });

  it('a transition rule on quantities: storage may grow (10Gi → 10737418241) but not shrink (→ 9.5Gi)', async () => {
    const grown = await k(['patch', `nodes.${group}`, 'n1', '-n', ns, '--type', 'merge', '-p', '{"spec":{"storage":"10737418241"}}']);
    expect(grown.stdout).toBe(`node.${group}/n1 patched`);
    expect(await refused(['patch', `nodes.${group}`, 'n1', '--type', 'merge', '-p', '{"spec":{"storage":"9.5Gi"}}'])).toEqual([
      'The Node "n1" is invalid: spec.storage: Invalid value: "string": storage may not shrink',
    ]);
  });

  it('a hostile quantity (Go would build 10^2000000 to compare it) is refused at once, not computed', async () => {
    // isQuantity reads only the syntax (true, as kube's); quantity() is an evaluation error with kcpt's bound, in
    // kube's frame for a rule that could not be evaluated.
    const range = "quantity out of kcpt's range: computing it exactly needs more than 100 digits beyond those written";
    expect(await refused(['create'], obj('n4', { ...valid, request: '1111111111111111111e2000000' }))).toEqual([
      'The Node "n4" is invalid:',
      `* spec: Invalid value: "object": ${range} evaluating rule: request must not exceed limit`,
      `* spec.request: Invalid value: "string": ${range} evaluating rule: request must be a positive quantity below 64Gi`,
    ]);
  });
});

describe("x-kubernetes-validations calling kube's typed libraries are type-checked and costed when the CRD is written", () => {
  const k: ClusterKubectl = (args, opts) => e2e.k('root')(args, opts);
  const refused = (crd: Json) => refusedLines(k, ['create'], crd);

  it('a rule comparing a Quantity with an int does not compile', async () => {
    const crd = crdObject({
      group, plural: 'mistyped', kind: 'Mistyped',
      schema: specWith({ type: 'object', properties: { q: { type: 'string', maxLength: 16 } }, 'x-kubernetes-validations': [{ rule: 'quantity(self.q) > 1' }] }),
    });
    const out = await refused(crd);
    expect(out[0]).toMatch(
      /^The CustomResourceDefinition "mistyped\.libs\.cel\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"quantity\(self\.q\) > 1", .*\}: compilation failed: ERROR: <input>:1:\d+: .*kubernetes\.Quantity/,
    );
  });

  it('!= between quantities is priced as kube prices it (~1.8e18) and refused; !(a == b) is accepted', async () => {
    const schema = (rule: string) => specWith({ type: 'object', properties: { q: { type: 'string', maxLength: 16 } }, 'x-kubernetes-validations': [{ rule }] });
    const out = await refused(crdObject({ group, plural: 'unequals', kind: 'Unequal', schema: schema("quantity(self.q) != quantity('0')") }));
    expect(out[1]).toMatch(/^\* spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x /);
    const accepted = await withFile(k, ['create'], crdObject({ group, plural: 'nonzeros', kind: 'Nonzero', schema: schema("!(quantity(self.q) == quantity('0'))") }));
    expect(accepted.stdout).toBe(`customresourcedefinition.apiextensions.k8s.io/nonzeros.${group} created`);
  });

  it('validate() over unbounded strings in an unbounded list exceeds the cost budget', async () => {
    const crd = crdObject({
      group, plural: 'pricey', kind: 'Pricey',
      schema: specWith({
        type: 'object',
        properties: { urls: { type: 'array', items: { type: 'string' } } },
        'x-kubernetes-validations': [{ rule: 'self.urls.all(u, !format.uri().validate(u).hasValue())', message: 'urls must be URIs' }],
      }),
    });
    const out = await refused(crd);
    expect(out[0]).toBe('The CustomResourceDefinition "pricey.libs.cel.example.com" is invalid:');
    expect(out[1]).toMatch(/^\* spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of /);
  });
});
