// Destination.GetProfile and OutboundPolicies.Get/Watch on the gRPC server, from the mesh routes as
// the real worker compiles them for the client's namespace, with a client generated from our
// protos: routes with their matches, timeouts and retries, dst_overrides and backends from the
// weights, consumer routes over producer routes, an update on every change, auth and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { freePort, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { bearer, destinationClient, getStatus, outboundClient } from '../support/linkerd-client';

let s: TestServer;
let dst: grpc.Client;
let policies: grpc.Client;
let token: string;
const calls: grpc.ClientReadableStream<any>[] = [];

async function put(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await s.api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}
const service = (name: string, ip: string) => put(`/api/v1/namespaces/apps/services/${name}`, {
  apiVersion: 'v1', kind: 'Service', spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
});
const route = (ns: string, name: string, rules: unknown[]) => put(`/api/v1/namespaces/${ns}/httproutes/${name}`, {
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
  spec: { parentRefs: [{ group: '', kind: 'Service', name: 'web', namespace: 'apps', port: 80 }], rules },
});
const PRODUCER_RULES = (w1: number, w2: number) => [
  { matches: [{ path: { type: 'PathPrefix', value: '/api' }, method: 'GET' }], backendRefs: [{ name: 'web-v1', port: 80, weight: w1 }, { name: 'web-v2', port: 80, weight: w2 }],
    timeouts: { request: '5s' }, retry: { codes: [502, 503], attempts: 2, backoff: '100ms' } },
  { backendRefs: [{ name: 'web-v1', port: 80, weight: w1 }, { name: 'web-v2', port: 80, weight: w2 }] },
];

/** A stream's messages as they come, and a wait for one that satisfies a test. */
function stream(call: grpc.ClientReadableStream<any>) {
  calls.push(call);
  const got: any[] = [];
  let error: grpc.ServiceError | undefined;
  call.on('data', (m) => got.push(m));
  call.on('error', (e: grpc.ServiceError) => (error = e));
  return {
    got,
    async until(test: (m: any) => boolean, ms = 20_000): Promise<any> {
      const deadline = Date.now() + ms;
      for (;;) {
        const m = got.find(test);
        if (m) return m;
        if (error && error.code !== grpc.status.CANCELLED) throw new Error(`the stream ended: ${error.code} ${error.details}`);
        if (Date.now() > deadline) throw new Error(`no message as wanted within ${ms} ms; last: ${JSON.stringify(got.at(-1))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

const profile = (path: string, ns = 'client') => stream((dst as any).GetProfile({ scheme: 'k8s', path, context_token: JSON.stringify({ ns }) }, bearer(token)));
const watch = (spec: Record<string, unknown>) => stream((policies as any).Watch({ source_workload: '{"ns":"client","pod":"c-1"}', ...spec }, bearer(token)));
const getPolicy = (spec: Record<string, unknown>, t: string | null = token) => new Promise<{ err: grpc.ServiceError | null; res: any }>((resolve) => {
  (policies as any).Get({ source_workload: '{"ns":"client","pod":"c-1"}', ...spec }, bearer(t), (err: grpc.ServiceError | null, res: any) => resolve({ err, res }));
});

beforeAll(async () => {
  s = await startTestServer({ xdsPort: await freePort() });
  dst = destinationClient(s.running.xds!.port);
  policies = outboundClient(s.running.xds!.port);
  token = await mintToken(s, { name: 'mesh-client', role: 'proxy', mesh: 'client' });
  await put('/api/v1/namespaces/client', { apiVersion: 'v1', kind: 'Namespace' });
  await service('web', '10.96.1.10');
  await service('web-v1', '10.96.1.11');
  await service('web-v2', '10.96.1.12');
  await route('apps', 'web-split', PRODUCER_RULES(90, 10));
  await reconciled(s, 45_000);
}, 90_000);

afterAll(async () => {
  for (const c of calls) c.cancel();
  dst?.close();
  policies?.close();
  await s?.close();
});

describe('Destination.GetProfile', () => {
  it('streams the routes with their matches, timeouts and retries, and dst_overrides from the weights; again on change', async () => {
    const p = profile('web.apps.svc.cluster.local:80');
    const first = await p.until((m) => m.routes.length === 2);
    expect(first.fully_qualified_name).toBe('web.apps.svc.cluster.local');
    expect(first.parent_ref).toMatchObject({ resource: { kind: 'Service', name: 'web', namespace: 'apps', port: 80 } });
    const [api, rest] = first.routes;
    expect(api.condition).toMatchObject({ all: { matches: [{ path: { regex: '^/api(/.*)?$' } }, { method: { registered: 'GET' } }] } });
    expect(api.timeout).toMatchObject({ seconds: '5', nanos: 0 });
    expect(api.is_retryable).toBe(true);
    expect(api.response_classes).toEqual([expect.objectContaining({ condition: expect.objectContaining({ status: expect.objectContaining({ min: 502, max: 503 }) }), is_failure: true })]);
    expect(api.metrics_labels).toMatchObject({ route: 'web-split', route_namespace: 'apps' });
    expect(rest.condition).toMatchObject({ path: { regex: '^/.*$' } });
    expect(rest.is_retryable).toBe(false);
    expect(first.retry_budget).toMatchObject({ min_retries_per_second: 10 });
    expect(first.dst_overrides.map((d: any) => [d.authority, d.weight])).toEqual([['web-v1.apps.svc.cluster.local:80', 90], ['web-v2.apps.svc.cluster.local:80', 10]]);

    await route('apps', 'web-split', PRODUCER_RULES(50, 50));
    const next = await p.until((m) => m.dst_overrides[0]?.weight === 50);
    expect(next.dst_overrides.map((d: any) => d.weight)).toEqual([50, 50]);
  });

  it('finds the Service by its cluster IP too, and sends the empty profile for a name that is no Service', async () => {
    const byIp = await profile('10.96.1.10:80').until((m) => m.routes.length === 2);
    expect(byIp.fully_qualified_name).toBe('web.apps.svc.cluster.local');
    const none = await profile('nothing.apps.svc.cluster.local:80').until(() => true);
    expect(none).toMatchObject({ fully_qualified_name: '', routes: [], dst_overrides: [] });
  });
});

describe('OutboundPolicies', () => {
  it('Get answers the routes of the port as rules with matches, weighted backends, timeouts and retry', async () => {
    await route('apps', 'web-split', PRODUCER_RULES(90, 10));
    await reconciled(s, 45_000);
    const { err, res } = await getPolicy({ authority: 'web.apps.svc.cluster.local:80' });
    expect(err).toBeNull();
    expect(res.metadata).toMatchObject({ resource: { kind: 'Service', name: 'web', namespace: 'apps', port: 80 } });
    const routes = res.protocol.detect.http1.routes;
    expect(res.protocol.detect.http2.routes).toEqual(routes);
    expect(routes).toHaveLength(1);
    expect(routes[0].metadata).toMatchObject({ resource: { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'web-split', namespace: 'apps' } });
    const [api, rest] = routes[0].rules;
    expect(api.matches).toEqual([expect.objectContaining({ path: expect.objectContaining({ prefix: '/api' }), method: expect.objectContaining({ registered: 'GET' }) })]);
    expect(api.timeouts.request).toMatchObject({ seconds: '5' });
    expect(api.retry).toMatchObject({ max_retries: 2, conditions: { status_ranges: [{ start: 502, end: 503 }] }, backoff: { min_backoff: { seconds: '0', nanos: 100_000_000 } } });
    const backends = api.backends.random_available.backends.map((b: any) => [b.backend.backend.balancer.discovery.dst.path, b.weight]);
    expect(backends).toEqual([['web-v1.apps.svc.cluster.local:80', 90], ['web-v2.apps.svc.cluster.local:80', 10]]);
    expect(rest.matches).toEqual([expect.objectContaining({ path: expect.objectContaining({ prefix: '/' }) })]);
  });

  it('Get by address, and a Service port with no route goes to the Service itself', async () => {
    const { res } = await getPolicy({ addr: { ip: { ipv4: (10 << 24) + (96 << 16) + (1 << 8) + 11 }, port: 80 } });
    expect(res.metadata).toMatchObject({ resource: { name: 'web-v1' } });
    const rule = res.protocol.detect.http1.routes[0].rules[0];
    expect(rule.backends.random_available.backends.map((b: any) => b.backend.backend.balancer.discovery.dst.path)).toEqual(['web-v1.apps.svc.cluster.local:80']);
    // the Service has no endpoints: its share fails, saying why
    expect(rule.backends.random_available.backends[0].backend.filters[0].failure_injector).toMatchObject({ status: 500 });
  });

  it('Watch sends the policy, then again when a consumer route in the client namespace takes over', async () => {
    const w = watch({ authority: 'web.apps.svc.cluster.local:80' });
    await w.until((m) => m.protocol?.detect?.http1?.routes?.[0]?.metadata?.resource?.name === 'web-split');
    await put('/api/v1/namespaces/client/httproutes/mine', {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
      spec: { parentRefs: [{ group: '', kind: 'Service', name: 'web', namespace: 'apps', port: 80 }], rules: [{ backendRefs: [{ name: 'web-v2', namespace: 'apps', port: 80 }] }] },
    });
    const after = await w.until((m) => m.protocol?.detect?.http1?.routes?.[0]?.metadata?.resource?.name === 'mine');
    expect(after.protocol.detect.http1.routes).toHaveLength(1);
    // another namespace's clients still get the producer route
    const other = await mintToken(s, { name: 'other-client', role: 'proxy', mesh: 'other' });
    await put('/api/v1/namespaces/other', { apiVersion: 'v1', kind: 'Namespace' });
    await reconciled(s, 45_000);
    const theirs = await new Promise<any>((resolve) => (policies as any).Get({ source_workload: '{"ns":"other"}', authority: 'web.apps.svc.cluster.local:80' }, bearer(other), (_e: unknown, r: any) => resolve(r)));
    expect(theirs.protocol.detect.http1.routes[0].metadata.resource.name).toBe('web-split');
  });

  it('answers UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT and NOT_FOUND as gRPC defines them', async () => {
    expect((await getPolicy({ authority: 'web.apps.svc.cluster.local:80' }, null)).err?.code).toBe(grpc.status.UNAUTHENTICATED);
    const gw = await mintToken(s, { name: 'gw-only', role: 'proxy', gateways: ['infra/edge'] });
    expect((await getPolicy({ authority: 'web.apps.svc.cluster.local:80' }, gw)).err?.code).toBe(grpc.status.PERMISSION_DENIED);
    const elsewhere = await new Promise<grpc.ServiceError | null>((resolve) => (policies as any).Get({ source_workload: 'elsewhere:pod-1', authority: 'web.apps.svc.cluster.local:80' }, bearer(token), (e: grpc.ServiceError | null) => resolve(e)));
    expect(elsewhere?.code).toBe(grpc.status.PERMISSION_DENIED);
    const bad = await getPolicy({ authority: 'web.apps:80' });
    expect(bad.err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(bad.err?.details).toContain('not a Service of this cluster');
    expect((await getPolicy({ authority: 'nothing.apps.svc.cluster.local:80' })).err?.code).toBe(grpc.status.NOT_FOUND);
    const watched = await getStatus(policies, { source_workload: '{"ns":"client"}', authority: 'nothing.apps.svc.cluster.local:80' }, bearer(token), 'Watch');
    expect(watched.code).toBe(grpc.status.NOT_FOUND);
    const profileNoToken = await getStatus(dst, { path: 'web.apps.svc.cluster.local:80' }, bearer(null), 'GetProfile');
    expect(profileNoToken.code).toBe(grpc.status.UNAUTHENTICATED);
  });
});
