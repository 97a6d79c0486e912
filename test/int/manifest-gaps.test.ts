// Manifests other projects' tests apply, through the real server and worker: what used to be refused
// or silently misread now reads as the Gateway API says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { OTHER_KEY, TEST_CERT, TEST_KEY } from '../support/tls';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  const puts: [string, unknown][] = [
    ['/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
    ['/api/v1/namespaces/infra/services/echo', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }, { name: 'syslog', port: 514, protocol: 'UDP' }] } }],
    ['/api/v1/namespaces/infra/secrets/good', tlsSecret(TEST_CERT, TEST_KEY)],
    ['/api/v1/namespaces/infra/secrets/mismatched', tlsSecret(TEST_CERT, OTHER_KEY)],
    ['/api/v1/namespaces/infra/gateways/edge', {
      apiVersion: GW, kind: 'Gateway',
      spec: {
        gatewayClassName: 'switchyard',
        listeners: [
          { name: 'http', protocol: 'HTTP', port: 80 },
          { name: 'good', protocol: 'HTTPS', port: 443, hostname: 'good.example.com', tls: { certificateRefs: [{ name: 'good' }] } },
          { name: 'mismatched', protocol: 'HTTPS', port: 443, hostname: 'bad.example.com', tls: { certificateRefs: [{ name: 'mismatched' }] } },
          { name: 'tcp', protocol: 'TCP', port: 9000 },
        ],
      },
    }],
  ];
  for (const [path, body] of puts) {
    const r = await s.api('PUT', path, body);
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  }
});
afterAll(async () => {
  await s?.close();
});

const GW = 'gateway.networking.k8s.io/v1';

function tlsSecret(crt: string, key: string) {
  return { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', stringData: { 'tls.crt': crt, 'tls.key': key } };
}

async function get(path: string) {
  await reconciled(s);
  const r = await s.api('GET', path);
  expect(r.status).toBe(200);
  return r.body;
}

const cond = (conds: any[] | undefined, type: string) => (conds ?? []).find((c) => c.type === type);
const parentConds = (route: any) => route.status?.parents?.find((p: any) => p.parentRef.name === 'edge')?.conditions;

describe('an EndpointSlice with endpoints null or absent', () => {
  it('is stored (201), not refused, through PUT and apply alike, and leaves the Service without endpoints', async () => {
    const slice = (endpoints: unknown) => ({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'echo' } },
      addressType: 'IPv4', ports: [{ port: 80 }], ...(endpoints === undefined ? {} : { endpoints }),
    });
    const put = await s.api('PUT', '/api/v1/namespaces/infra/endpointslices/echo-null', slice(null));
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    expect(put.body.endpoints ?? null).toBeNull();
    const absent = await s.api('PUT', '/api/v1/namespaces/infra/endpointslices/echo-absent', slice(undefined));
    expect(absent.status, JSON.stringify(absent.body)).toBe(201);
    const applied = await s.api('POST', '/api/v1/apply', { items: [{ ...slice(null), metadata: { name: 'echo-applied', namespace: 'infra', labels: { 'kubernetes.io/service-name': 'echo' } } }] });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.results[0]).toMatchObject({ kind: 'EndpointSlice', action: 'created' });
  });
});

describe('a RegularExpression RE2 cannot compile', () => {
  it('drops its rule: PartiallyInvalid True "Dropped Rule 1 ...", the other rule still routes', async () => {
    const r = await s.api('PUT', '/api/v1/namespaces/infra/httproutes/regex', {
      apiVersion: GW, kind: 'HTTPRoute',
      spec: {
        parentRefs: [{ name: 'edge', sectionName: 'http' }],
        rules: [
          { matches: [{ path: { type: 'PathPrefix', value: '/ok' } }], backendRefs: [{ name: 'echo', port: 80 }] },
          { matches: [{ path: { type: 'RegularExpression', value: '/(a)\\1' } }], backendRefs: [{ name: 'echo', port: 80 }] },
        ],
      },
    });
    expect(r.status).toBe(201);
    const route = await get('/api/v1/namespaces/infra/httproutes/regex');
    expect(cond(parentConds(route), 'Accepted')).toMatchObject({ status: 'True' });
    const partly = cond(parentConds(route), 'PartiallyInvalid');
    expect(partly).toMatchObject({ status: 'True', reason: 'UnsupportedValue' });
    expect(partly.message).toMatch(/^Dropped Rule 1 \(matches\[0\]\.path\.value: .*not an RE2 regular expression/);
  });
});

describe('a certificate and a key that do not belong together', () => {
  it('is InvalidCertificateRef on its listener, which is not Programmed; the good one is', async () => {
    const gw = await get('/api/v1/namespaces/infra/gateways/edge');
    const listener = (name: string) => gw.status.listeners.find((l: any) => l.name === name);
    expect(cond(listener('mismatched').conditions, 'ResolvedRefs')).toMatchObject({ status: 'False', reason: 'InvalidCertificateRef' });
    expect(cond(listener('mismatched').conditions, 'ResolvedRefs').message).toContain('does not belong to the certificate');
    expect(cond(listener('mismatched').conditions, 'Programmed')).toMatchObject({ status: 'False' });
    expect(cond(listener('good').conditions, 'Programmed')).toMatchObject({ status: 'True' });
  });
});

describe('a TCPRoute to a UDP Service port', () => {
  it('is ResolvedRefs False/UnsupportedProtocol', async () => {
    const r = await s.api('PUT', '/api/v1/namespaces/infra/tcproutes/to-udp', {
      apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'TCPRoute',
      spec: { parentRefs: [{ name: 'edge', sectionName: 'tcp' }], rules: [{ backendRefs: [{ name: 'echo', port: 514 }] }] },
    });
    expect(r.status).toBe(201);
    const route = await get('/api/v1/namespaces/infra/tcproutes/to-udp');
    expect(cond(parentConds(route), 'ResolvedRefs')).toMatchObject({ status: 'False', reason: 'UnsupportedProtocol' });
  });
});

describe('a GRPCRoute rule with no usable backend', () => {
  it('answers gRPC status Unavailable through resolve, not HTTP 500', async () => {
    const r = await s.api('PUT', '/api/v1/namespaces/infra/grpcroutes/echo', {
      apiVersion: GW, kind: 'GRPCRoute',
      spec: { parentRefs: [{ name: 'edge', sectionName: 'http' }], rules: [{ matches: [{ method: { service: 'echo.Echo' } }], backendRefs: [{ name: 'gone', port: 50051 }] }] },
    });
    expect(r.status).toBe(201);
    await reconciled(s);
    const res = await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { protocol: 'grpc', port: 80, path: '/echo.Echo/Say' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ matched: true, forwarded: false, statusCode: 200, grpcStatus: 'Unavailable' });
  });
});
