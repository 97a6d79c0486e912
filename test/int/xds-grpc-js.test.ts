// The xDS server against a real xDS client no one here wrote: @grpc/grpc-js-xds, on a channel to
// xds:///<hostname>:<port>, calling real gRPC backends on loopback that the Gateway's GRPCRoute
// points at through Services and EndpointSlices (and an HTTPRoute for a hostname no GRPCRoute claims). grpc-js-xds registers itself in the whole process
// (and reads its bootstrap once), so it has this file to itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { freePort, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { callOnce, startEcho, type CallResult, type EchoBackend } from '../support/grpc-echo';

let s: TestServer;
let a: EchoBackend;
let b: EchoBackend;
let c: EchoBackend;
let client: grpc.Client;

const NS = 'apps';
const TARGET = 'xds:///echo.example.com:8080';

async function put(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await s.api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}

const service = (name: string) => put(`/api/v1/namespaces/${NS}/services/${name}`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'grpc', port: 50051, appProtocol: 'kubernetes.io/h2c' }] } });
const slice = (service: string, backends: EchoBackend[]) => put(`/api/v1/namespaces/${NS}/endpointslices/${service}-1`, {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { name: `${service}-1`, labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4',
  // one port per slice: each backend listens on a port of its own, so each gets a slice
  ports: [{ name: 'grpc', port: backends[0].port }],
  endpoints: backends.map(() => ({ addresses: ['127.0.0.1'], conditions: { ready: true } })),
});
const route = (rules: unknown[]) => put(`/api/v1/namespaces/${NS}/grpcroutes/echo`, {
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name: 'echo' },
  spec: { parentRefs: [{ name: 'gw' }], hostnames: ['echo.example.com'], rules },
});

/** Calls until `done` holds for a result (the client follows changes as they arrive), or times out. */
async function until(path: string, done: (r: CallResult) => boolean, ms = 15_000): Promise<CallResult> {
  const deadline = Date.now() + ms;
  let last: CallResult;
  do {
    last = await callOnce(client, path);
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  } while (Date.now() < deadline);
  throw new Error(`no call to ${path} reached the expected outcome within ${ms} ms; last: ${JSON.stringify(last)}`);
}

async function tally(path: string, n: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const r = await callOnce(client, path);
    const k = r.backend ?? `status ${r.code}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

beforeAll(async () => {
  s = await startTestServer({ xdsPort: await freePort() });
  [a, b, c] = await Promise.all([startEcho('a'), startEcho('b'), startEcho('c')]);
  await put('/api/v1/gatewayclasses/switchyard', { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'switchyard' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put(`/api/v1/namespaces/${NS}/gateways/gw`, {
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw' },
    spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'grpc', protocol: 'HTTP', port: 8080 }] },
  });
  await service('echo-a');
  await service('echo-b');
  await slice('echo-a', [a]);
  await slice('echo-b', [b]);
  await route([
    { matches: [{ method: { service: 'echo.Echo', method: 'Ping' } }], backendRefs: [{ name: 'echo-a', port: 50051 }] },
    { matches: [{ method: { service: 'echo.Echo', method: 'Other' } }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
  ]);
  await reconciled(s);
  const token = await mintToken(s, { name: 'gw-proxy', role: 'proxy', gateways: [`${NS}/gw`] });
  process.env.GRPC_XDS_BOOTSTRAP_CONFIG = JSON.stringify({
    xds_servers: [{ server_uri: `127.0.0.1:${s.running.xds!.port}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
    node: { id: 'grpc-js-test-node', cluster: `${NS}/gw`, locality: {}, metadata: { 'switchyard.dev/token': token } },
  });
  const xds = await import('@grpc/grpc-js-xds');
  xds.register();
  client = new grpc.Client(TARGET, grpc.credentials.createInsecure());
}, 180_000);

afterAll(async () => {
  client?.close();
  await Promise.all([a, b, c].filter(Boolean).map((x) => x.close()));
  await s?.close();
});

describe('@grpc/grpc-js-xds against the xDS server', () => {
  it('routes calls by the GRPCRoute: method matches pick the backend', async () => {
    expect((await until('/echo.Echo/Ping', (r) => r.code === grpc.status.OK)).backend).toBe('a');
    expect((await callOnce(client, '/echo.Echo/Other')).backend).toBe('b');
    // the node shows in proxy-status beside snapshot proxies, synced to the Gateway's snapshot
    const listed = await s.api('GET', `/api/v1/namespaces/${NS}/gateways/gw/proxies`);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: 'xds:grpc-js-test-node', state: 'SYNCED', version: listed.body.snapshotVersion, xds: expect.objectContaining({ variant: 'sotw' }) })]);
  });

  it('answers a call no rule matches UNIMPLEMENTED, as the gateway does', async () => {
    const r = await callOnce(client, '/other.Svc/Call');
    expect(r.code).toBe(grpc.status.UNIMPLEMENTED);
  });

  it('follows a route change: weights split the calls', async () => {
    await route([
      { matches: [{ method: { service: 'echo.Echo', method: 'Ping' } }], backendRefs: [{ name: 'echo-a', port: 50051, weight: 50 }, { name: 'echo-b', port: 50051, weight: 50 }] },
      { matches: [{ method: { service: 'echo.Echo', method: 'Other' } }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
    ]);
    await until('/echo.Echo/Ping', (r) => r.backend === 'b');
    const counts = await tally('/echo.Echo/Ping', 200);
    // 50/50 over 200 calls: either side below 60 is some 5.6 standard deviations away
    expect(Object.keys(counts).sort()).toEqual(['a', 'b']);
    expect(counts.a).toBeGreaterThan(60);
    expect(counts.b).toBeGreaterThan(60);
  });

  it('follows an endpoint change: the Service\'s calls reach its new endpoint', async () => {
    await route([
      { matches: [{ method: { service: 'echo.Echo', method: 'Ping' } }], backendRefs: [{ name: 'echo-a', port: 50051 }] },
      { matches: [{ method: { service: 'echo.Echo', method: 'Other' } }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
    ]);
    await until('/echo.Echo/Ping', (r) => r.backend === 'a');
    await slice('echo-a', [c]);
    await until('/echo.Echo/Ping', (r) => r.backend === 'c');
    expect(await tally('/echo.Echo/Ping', 20)).toEqual({ c: 20 });
  });

  it('routes calls by an HTTPRoute where no GRPCRoute claims the hostname: a gRPC call as the POST it is', async () => {
    // rules a gRPC call can never match come first: a GET, a query parameter (each would send Ping to echo-b if widened)
    await put(`/api/v1/namespaces/${NS}/httproutes/web`, {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'web' },
      spec: {
        parentRefs: [{ name: 'gw' }], hostnames: ['web.example.com'],
        rules: [
          { matches: [{ path: { type: 'PathPrefix', value: '/echo.Echo' }, method: 'GET' }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/echo.Echo' }, queryParams: [{ name: 'x', value: '1' }] }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
          { matches: [{ path: { type: 'Exact', value: '/echo.Echo/Other' } }, { path: { type: 'PathPrefix', value: '/echo.Echo' }, headers: [{ name: 'x-env', value: 'canary' }] }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/echo.Echo' } }], backendRefs: [{ name: 'echo-a', port: 50051 }] },
        ],
      },
    });
    const web = new grpc.Client('xds:///web.example.com:8080', grpc.credentials.createInsecure());
    try {
      const deadline = Date.now() + 15_000;
      let first: CallResult;
      do {
        first = await callOnce(web, '/echo.Echo/Ping');
        if (first.backend) break;
        await new Promise((r) => setTimeout(r, 50));
      } while (Date.now() < deadline);
      // echo-a's endpoint is backend c since the test before
      expect(first!.backend).toBe('c');
      expect(await callOnce(web, '/echo.Echo/Other')).toMatchObject({ backend: 'b' });
      const canary = new grpc.Metadata();
      canary.set('x-env', 'canary');
      expect(await callOnce(web, '/echo.Echo/Ping', canary)).toMatchObject({ backend: 'b' });
      // a path no rule matches: UNIMPLEMENTED, as the gateway answers it
      expect((await callOnce(web, '/other.Svc/Call')).code).toBe(grpc.status.UNIMPLEMENTED);
      // resolve says the same of such a call
      const resolved = await s.api('POST', `/api/v1/namespaces/${NS}/gateways/gw/resolve`, { protocol: 'GRPC', port: 8080, hostname: 'web.example.com', path: '/echo.Echo/Ping' });
      expect(resolved.body).toMatchObject({ matched: true, route: { kind: 'HTTPRoute', name: 'web' }, ruleIndex: 3 });
    } finally {
      web.close();
    }
  }, 60_000);

  it('a channel closed and another opened (grpc-js-xds ends its ADS stream and opens a new one): a route created for the new hostname reaches it', async () => {
    for (const host of ['one.example.com', 'two.example.com']) {
      // the only channel: closing it leaves the xDS client without a watch, so it ends its stream
      client.close();
      client = new grpc.Client(`xds:///${host}:8080`, grpc.credentials.createInsecure());
      expect((await until('/echo.Echo/Ping', (r) => r.code === grpc.status.UNIMPLEMENTED)).code).toBe(grpc.status.UNIMPLEMENTED);
      // the ended stream's last events come after the new stream has started following the Gateway
      await new Promise((r) => setTimeout(r, 500));
      await put(`/api/v1/namespaces/${NS}/grpcroutes/${host.split('.')[0]}`, {
        apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name: host.split('.')[0] },
        spec: { parentRefs: [{ name: 'gw' }], hostnames: [host], rules: [{ backendRefs: [{ name: 'echo-a', port: 50051 }] }] },
      });
      expect((await until('/echo.Echo/Ping', (r) => !!r.backend)).backend).toBe('c');
    }
    client.close();
    client = new grpc.Client(TARGET, grpc.credentials.createInsecure());
    expect((await until('/echo.Echo/Ping', (r) => !!r.backend)).backend).toBe('c');
  }, 60_000);

  it('a backend removed: its share is answered UNAVAILABLE, the rest still routed', async () => {
    const r = await s.api('DELETE', `/api/v1/namespaces/${NS}/services/echo-b`);
    expect(r.status).toBe(200);
    const gone = await until('/echo.Echo/Other', (x) => x.code !== grpc.status.OK);
    expect(gone.code).toBe(grpc.status.UNAVAILABLE);
    expect((await callOnce(client, '/echo.Echo/Ping')).backend).toBe('c');
  });

  it('a Gateway deleted: its listener is withdrawn and calls fail UNAVAILABLE', async () => {
    expect((await s.api('DELETE', `/api/v1/namespaces/${NS}/gateways/gw`)).status).toBe(200);
    const r = await until('/echo.Echo/Ping', (x) => x.code !== grpc.status.OK);
    expect(r.code).toBe(grpc.status.UNAVAILABLE);
  });
});
