import { describe, it, expect } from 'vitest';
import { resolveBackendRef, routeRefs, referenceAllowed, tlsSecretProblem, resolveCaRef, viewOf } from '../../src/core/refs';
import { decodeBase64, pemBlocks } from '../../src/core/refs/pem';
import type { World } from '../../src/core/model/world';
import { OTHER_KEY, TEST_CERT, TEST_KEY } from '../support/tls';

const PEM_CERT = '-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n';
const PEM_KEY = '-----BEGIN PRIVATE KEY-----\nMAMCAQE=\n-----END PRIVATE KEY-----\n';
const b64 = (s: string) => btoa(s);

function world(partial: Partial<World>): World {
  return { gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [],
    endpointSlices: [], secrets: [], configMaps: [], ...partial } as World;
}
const route: any = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'apps' }, spec: {} };
const svc = (ns: string, name: string, ports: any[], extra: any = {}) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { ports, ...extra } });
const slice = (ns: string, svcName: string, name: string, ports: any[], endpoints: any[]) => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, namespace: ns, labels: { 'kubernetes.io/service-name': svcName } },
  addressType: 'IPv4', ports, endpoints,
});
const grant = (ns: string, from: any[], to: any[]) => ({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'ReferenceGrant', metadata: { name: `g-${from.length}-${to.length}`, namespace: ns }, spec: { from, to } });

describe('resolveBackendRef', () => {
  it('needs a port of the route\'s transport: UDP for a UDPRoute, TCP for the others (UnsupportedProtocol)', () => {
    const w = world({ services: [svc('apps', 'syslog', [{ port: 514, protocol: 'UDP' }]), svc('apps', 'dns', [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }])] as any });
    const kind = (k: string): any => ({ ...route, kind: k });
    expect(resolveBackendRef(viewOf(w), kind('TCPRoute'), { name: 'syslog', port: 514 })).toMatchObject({ valid: false, reason: 'UnsupportedProtocol' });
    expect(resolveBackendRef(viewOf(w), kind('HTTPRoute'), { name: 'syslog', port: 514 })).toMatchObject({ valid: false, reason: 'UnsupportedProtocol' });
    expect(resolveBackendRef(viewOf(w), kind('UDPRoute'), { name: 'syslog', port: 514 }).reason).toBe('NoEndpoints');
    expect(resolveBackendRef(viewOf(w), kind('TCPRoute'), { name: 'dns', port: 53 }).reason).toBe('NoEndpoints');
    expect(resolveBackendRef(viewOf(w), kind('UDPRoute'), { name: 'dns', port: 53 }).reason).toBe('NoEndpoints');
  });
  it('resolves a Service port to ready endpoints, through a named targetPort', () => {
    const w = world({
      services: [svc('apps', 'web', [{ name: 'http', port: 80, targetPort: 'web' }])] as any,
      endpointSlices: [slice('apps', 'web', 'a', [{ name: 'http', port: 8080 }], [
        { addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'], conditions: { ready: false } },
        { addresses: ['10.0.0.3'], conditions: { ready: true, terminating: true } },
      ])] as any,
    });
    const b = resolveBackendRef(viewOf(w), route, { name: 'web', port: 80 });
    expect(b).toMatchObject({ group: '', kind: 'Service', namespace: 'apps', name: 'web', port: 80, weight: 1, valid: true });
    expect(b.endpoints).toEqual([{ address: '10.0.0.1', port: 8080 }]);
  });

  it('answers the same resolution for the same reference from routes alike, and its own for any difference', () => {
    const w = world({
      services: [svc('apps', 'web', [{ port: 80 }, { port: 81 }]), svc('other', 'web', [{ port: 80 }])] as any,
      endpointSlices: [slice('apps', 'web', 'a', [{ port: 8080 }], [{ addresses: ['10.0.0.1'] }]), slice('other', 'web', 'b', [{ port: 8080 }], [{ addresses: ['10.1.0.1'] }])] as any,
      referenceGrants: [grant('other', [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'apps' }], [{ group: '', kind: 'Service' }])] as any,
    });
    const view = viewOf(w);
    const of = (r: any, ref: any) => resolveBackendRef(view, r, ref);
    const a = of(route, { name: 'web', port: 80 });
    // another route, another object for the same reference: one resolution for both
    expect(of({ ...route, metadata: { name: 'r2', namespace: 'apps' } }, { name: 'web', port: 80 })).toBe(a);
    expect(of(route, { group: '', kind: 'Service', name: 'web', port: 80, weight: 1 })).toEqual(a);
    const others = [
      of(route, { name: 'web', port: 81 }),
      of(route, { name: 'web', port: 80, weight: 5 }),
      of(route, { name: 'web', port: 80, namespace: 'other' }),
      of({ ...route, metadata: { name: 'r', namespace: 'other' } }, { name: 'web', port: 80 }),
      of({ ...route, kind: 'GRPCRoute' }, { name: 'web', port: 80 }),
      of({ ...route, kind: 'TLSRoute', metadata: { name: 'r', namespace: 'apps' } }, { name: 'web', port: 80, namespace: 'other' }),
      of(route, { name: 'web' }),
    ];
    for (const o of others) expect(o).not.toBe(a);
    // past the table's bound (weights of a long canary rollout, say) each still resolves as it should
    for (let w = 0; w < 70_000; w++) expect(of(route, { name: 'web', port: 80, weight: w }).weight).toBe(w);
    expect(of(route, { name: 'web', port: 80 })).toEqual(a);
    expect(others.map((o) => [o.namespace, o.port, o.weight, o.valid, o.reason ?? null, o.endpoints.map((e) => e.address)])).toEqual([
      ['apps', 81, 1, true, null, ['10.0.0.1']],
      ['apps', 80, 5, true, null, ['10.0.0.1']],
      ['other', 80, 1, true, null, ['10.1.0.1']],
      ['other', 80, 1, true, null, ['10.1.0.1']],
      ['apps', 80, 1, true, null, ['10.0.0.1']],
      // a grant for HTTPRoutes does not admit a TLSRoute
      ['other', 80, 1, false, 'RefNotPermitted', []],
      ['apps', undefined, 1, false, 'BackendNotFound', []],
    ]);
  });

  it('flags each failure with its reason, permission first', () => {
    const w = world({ services: [svc('apps', 'web', [{ port: 80 }]), svc('other', 'x', [{ port: 80 }])] as any });
    expect(resolveBackendRef(viewOf(w), route, { group: 'example.com', kind: 'Thing', name: 'web', port: 80 }).reason).toBe('InvalidKind');
    expect(resolveBackendRef(viewOf(w), route, { name: 'nope', port: 80 }).reason).toBe('BackendNotFound');
    expect(resolveBackendRef(viewOf(w), route, { name: 'web', port: 81 }).reason).toBe('BackendNotFound');
    expect(resolveBackendRef(viewOf(w), route, { name: 'x', namespace: 'other', port: 80 }).reason).toBe('RefNotPermitted');
    expect(resolveBackendRef(viewOf(w), route, { name: 'missing', namespace: 'other', port: 80 }).reason).toBe('RefNotPermitted');
    const none = resolveBackendRef(viewOf(w), route, { name: 'web', port: 80, weight: 0 });
    expect(none).toMatchObject({ valid: false, reason: 'NoEndpoints', weight: 0 });
  });

  it('a ReferenceGrant admits by from group/kind/namespace and to group/kind/optional name', () => {
    const from = { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'apps' };
    const to = { group: '', kind: 'Service', namespace: 'other', name: 'x' };
    const with_ = (g: any) => referenceAllowed(viewOf(world({ referenceGrants: [g] as any })), from, to);
    expect(with_(grant('other', [from], [{ group: '', kind: 'Service', name: 'x' }]))).toBe(true);
    expect(with_(grant('other', [from], [{ group: '', kind: 'Service' }]))).toBe(true);
    expect(with_(grant('other', [from], [{ group: '', kind: 'Service', name: 'y' }]))).toBe(false);
    expect(with_(grant('other', [{ ...from, kind: 'GRPCRoute' }], [{ group: '', kind: 'Service' }]))).toBe(false);
    expect(with_(grant('other', [{ ...from, namespace: 'elsewhere' }], [{ group: '', kind: 'Service' }]))).toBe(false);
    expect(with_(grant('apps', [from], [{ group: '', kind: 'Service' }]))).toBe(false);
  });

  it('routeRefs: rules that send to one backend alike share what they resolved; others keep their own', () => {
    const w = world({ services: [svc('apps', 'web', [{ port: 80 }]), svc('apps', 'api', [{ port: 80 }])] as any });
    const view = viewOf(w);
    const named = (name: string, rules: any[]): any => ({ ...route, metadata: { name, namespace: 'apps' }, spec: { rules } });
    const a = routeRefs(view, named('a', [{ backendRefs: [{ name: 'web', port: 80 }] }, { backendRefs: [{ name: 'api', port: 80 }] }]));
    const b = routeRefs(view, named('b', [{ backendRefs: [{ name: 'api', port: 80 }] }]));
    expect(b.rules[0]).toBe(a.rules[1]);
    expect(a.rules.map((r) => r.backends.map((x) => x.name))).toEqual([['web'], ['api']]);
    // a mirror, a second backend or a filter naming an extension: the rule's own
    const mirrored = routeRefs(view, named('c', [{ backendRefs: [{ name: 'web', port: 80 }], filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { name: 'api', port: 80 } } }] }]));
    const two = routeRefs(view, named('d', [{ backendRefs: [{ name: 'web', port: 80 }, { name: 'api', port: 80 }] }]));
    expect(mirrored.rules[0]).not.toBe(a.rules[0]);
    expect(mirrored.rules[0].mirrors.map((m) => [m.path, m.backend.name])).toEqual([['spec.rules[0].filters[0].requestMirror.backendRef', 'api']]);
    expect(two.rules[0].backends.map((x) => x.name)).toEqual(['web', 'api']);
    expect([a, b, mirrored, two].map((r) => r.resolved)).toEqual([true, true, true, true]);
    // routes whose rules all share what they resolved are told the same, theirs alone otherwise
    expect(routeRefs(view, named('e', [{ backendRefs: [{ name: 'api', port: 80 }] }]))).toBe(b);
    expect(routeRefs(view, named('f', [{ backendRefs: [{ name: 'web', port: 80 }] }, { backendRefs: [{ name: 'api', port: 80 }] }]))).toBe(a);
    expect(routeRefs(view, named('g', [{ backendRefs: [{ name: 'api', port: 80 }] }, { backendRefs: [{ name: 'web', port: 80 }] }]))).not.toBe(a);
    expect(routeRefs(view, named('h', [{ backendRefs: [{ name: 'web', port: 80 }, { name: 'api', port: 80 }] }]))).not.toBe(two);
    const failing = routeRefs(view, named('i', [{ backendRefs: [{ name: 'gone', port: 80 }] }]));
    expect(failing).not.toBe(routeRefs(view, named('j', [{ backendRefs: [{ name: 'gone', port: 80 }] }])));
    expect(failing.reason).toBe('BackendNotFound');
  });

  it('routeRefs reports the first failure and every path', () => {
    const r: any = { ...route, spec: { rules: [
      { backendRefs: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] },
      { filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { name: 'c', port: 80 } } }] },
    ] } };
    const refs = routeRefs(viewOf(world({})), r);
    expect(refs.resolved).toBe(false);
    expect(refs.reason).toBe('BackendNotFound');
    expect(refs.problems.map((p) => p.path)).toEqual([
      'spec.rules[0].backendRefs[0]', 'spec.rules[0].backendRefs[1]', 'spec.rules[1].filters[0].requestMirror.backendRef',
    ]);
  });
});

describe('PEM and Secrets', () => {
  it('decodes strict base64 only', () => {
    expect(decodeBase64('SGVsbG8=')).toEqual(new TextEncoder().encode('Hello'));
    expect(decodeBase64('SGVsbG8')).toBeNull();
    expect(decodeBase64('!!!!')).toBeNull();
  });
  it('finds well-formed PEM blocks', () => {
    expect(pemBlocks(PEM_CERT + PEM_KEY).map((b) => b.label)).toEqual(['CERTIFICATE', 'PRIVATE KEY']);
    expect(pemBlocks('-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----')).toEqual([]);
    expect(pemBlocks('Hello world')).toEqual([]);
  });
  it('tells a usable TLS Secret from a malformed one', () => {
    const secret = (type: string, data: Record<string, string>): any => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type, data });
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': b64(TEST_CERT), 'tls.key': b64(TEST_KEY) }))).toBeUndefined();
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': b64(TEST_CERT + TEST_CERT), 'tls.key': b64(TEST_KEY) }))).toBeUndefined();
    expect(tlsSecretProblem(secret('Opaque', { 'tls.crt': b64(TEST_CERT), 'tls.key': b64(TEST_KEY) }))).toMatch(/Opaque/);
    // PEM-shaped but not what it says: a DER SEQUENCE that is no certificate, a key of another pair
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': b64(PEM_CERT), 'tls.key': b64(TEST_KEY) }))).toMatch(/is not an X.509 certificate/);
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': b64(TEST_CERT + PEM_CERT), 'tls.key': b64(TEST_KEY) }))).toMatch(/certificate 2 of 2 is not an X.509/);
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': b64(TEST_CERT), 'tls.key': b64(PEM_KEY) }))).toMatch(/not a readable private key/);
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': b64(TEST_CERT), 'tls.key': b64(OTHER_KEY) }))).toMatch(/does not belong to the certificate/);
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': 'SGVsbG8gd29ybGQK', 'tls.key': 'SGVsbG8gd29ybGQK' }))).toMatch(/no PEM certificate/);
    expect(tlsSecretProblem(secret('kubernetes.io/tls', { 'tls.crt': b64(PEM_CERT) }))).toMatch(/no tls.key/);
  });
  it('CA references: kind, permission, existence, content', () => {
    const gw: any = { metadata: { name: 'gw', namespace: 'infra' } };
    const cm = (ns: string, name: string, data: any) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
    const w = world({ configMaps: [cm('infra', 'ca', { 'ca.crt': PEM_CERT }), cm('infra', 'empty', {}), cm('web', 'ca', { 'ca.crt': PEM_CERT })] as any });
    expect(resolveCaRef(viewOf(w), gw, { group: '', kind: 'ConfigMap', name: 'ca' }, 'p').ok).toBe(true);
    expect(resolveCaRef(viewOf(w), gw, { group: '', kind: 'Secret', name: 'ca' }, 'p').reason).toBe('InvalidCACertificateKind');
    expect(resolveCaRef(viewOf(w), gw, { group: '', kind: 'ConfigMap', name: 'empty' }, 'p').reason).toBe('InvalidCACertificateRef');
    expect(resolveCaRef(viewOf(w), gw, { group: '', kind: 'ConfigMap', name: 'gone' }, 'p').reason).toBe('InvalidCACertificateRef');
    expect(resolveCaRef(viewOf(w), gw, { group: '', kind: 'ConfigMap', name: 'ca', namespace: 'web' }, 'p').reason).toBe('RefNotPermitted');
  });
});
