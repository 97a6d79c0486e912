// Snapshots to proxies: ETag and 304, long-poll, SSE with resume, fan-out across API processes,
// an unchanged recompute waking nobody, and rebuild keeping the content hash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, reconciled, startTestServer, type TestServer } from '../support/server';
import { sse } from '../support/sse';
import { needs, skippable } from '../support/database';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  const GW = 'gateway.networking.k8s.io/v1';
  const puts: [string, unknown][] = [
    ['/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
    ['/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } }],
    ['/api/v1/namespaces/app/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } }],
    ['/api/v1/namespaces/app/endpointslices/web-1', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'web' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 8080 }] }],
    ['/api/v1/namespaces/app/httproutes/web', route('/')],
  ];
  for (const [p, b] of puts) expect((await s.api('PUT', p, b)).status).toBeLessThan(300);
  await reconciled(s);
});
afterAll(async () => {
  await s?.close();
});

function route(path: string, labels?: Record<string, string>) {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: labels ? { labels } : {},
    spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'web', port: 80 }] }] },
  };
}
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';

describe('snapshot', () => {
  it('serves the compiled table with an ETag and answers 304 to a current If-None-Match', async () => {
    const r = await s.api('GET', SNAP);
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe(`"${r.body.version}"`);
    expect(r.body.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.table.listeners[0].port).toBe(80);
    expect(JSON.stringify(r.body.table)).toContain('10.0.0.1');
    const again = await s.api('GET', SNAP, undefined, { 'if-none-match': r.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect((await s.api('GET', '/api/v1/namespaces/infra/gateways/nope/snapshot')).status).toBe(404);
  });

  it('long-polls: held until a newer version (200), or the time-out (304)', async () => {
    const cur = await s.api('GET', SNAP);
    const etag = cur.headers.get('etag')!;
    const t0 = Date.now();
    const timedOut = await s.api('GET', `${SNAP}?wait=1`, undefined, { 'if-none-match': etag });
    expect(timedOut.status).toBe(304);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    const held = s.api('GET', `${SNAP}?wait=20`, undefined, { 'if-none-match': etag });
    await new Promise((r) => setTimeout(r, 100));
    await s.api('PUT', '/api/v1/namespaces/app/httproutes/web', route('/v2'));
    const woke = await held;
    expect(woke.status).toBe(200);
    expect(woke.body.version).toBeGreaterThan(cur.body.version);
    expect(JSON.stringify(woke.body.table)).toContain('/v2');
  });

  it('a recompute that yields the same table changes no version and wakes nobody', async () => {
    await reconciled(s);
    const cur = await s.api('GET', SNAP);
    const held = s.api('GET', `${SNAP}?wait=2`, undefined, { 'if-none-match': cur.headers.get('etag')! });
    // a label on the route changes nothing a proxy routes by
    await s.api('PATCH', '/api/v1/namespaces/app/httproutes/web', { metadata: { labels: { cosmetic: 'yes' } } });
    await reconciled(s);
    expect((await held).status).toBe(304);
    expect((await s.api('GET', SNAP)).body.version).toBe(cur.body.version);
  });

  it('streams snapshots over SSE, resumes after Last-Event-ID, and sends the current one on connect', async () => {
    const cur = await s.api('GET', SNAP);
    const w = await sse(`${s.url}${SNAP}/watch`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    const first = await w.next();
    expect(first.event).toBe('snapshot');
    expect(Number(first.id)).toBe(cur.body.version);
    await s.api('PUT', '/api/v1/namespaces/app/httproutes/web', route('/v3'));
    const second = await w.next();
    expect(Number(second.id)).toBeGreaterThan(Number(first.id));
    const snap = JSON.parse(second.data);
    expect(snap).toMatchObject({ gateway: { namespace: 'infra', name: 'edge' }, version: Number(second.id) });
    expect(snap.table.listeners[0].httpRoutes.map((e: any) => e.match.path.value)).toEqual(['/v3']);
    w.close();
    // resuming at the current version sends nothing until the next change
    const resumed = await sse(`${s.url}${SNAP}/watch`, { authorization: `Bearer ${ADMIN_TOKEN}`, 'last-event-id': second.id! });
    await new Promise((r) => setTimeout(r, 300));
    expect(resumed.events).toHaveLength(0);
    await s.api('PUT', '/api/v1/namespaces/app/httproutes/web', route('/v4'));
    const third = await resumed.next();
    expect(Number(third.id)).toBeGreaterThan(Number(second.id));
    resumed.close();
  });

  const shared = needs({ pg: true });
  it.skipIf(shared.skip)(skippable(shared, 'a subscriber on one API process sees a change written through another'), async () => {
    const other = await startTestServer({}, { databaseUrl: s.databaseUrl, worker: false });
    try {
      const w = await sse(`${other.url}${SNAP}/watch`, { authorization: `Bearer ${ADMIN_TOKEN}` });
      const first = await w.next();
      await s.api('PUT', '/api/v1/namespaces/app/httproutes/web', route('/other-process'));
      const next = await w.next((e) => Number(e.id) > Number(first.id));
      expect(next.data).toContain('/other-process');
      w.close();
    } finally {
      await other.close();
    }
  });
});

describe('rebuild', () => {
  it('drops and recomputes statuses and snapshots: same content hash, same version', async () => {
    await reconciled(s);
    const before = await s.api('GET', SNAP);
    const routeBefore = await s.api('GET', '/api/v1/namespaces/app/httproutes/web');
    const { rebuildProjections, rebuildReconciled } = await import('../../src/service/rebuild');
    await rebuildProjections(s.running.ctx.db);
    const out = await rebuildReconciled(s.running.ctx.db, 'switchyard.dev/gateway-controller');
    expect(out.gateways).toBe(1);
    const rows = await s.running.ctx.db.prisma.$queryRawUnsafe<any[]>(`SELECT version, hash FROM snapshots`);
    expect(rows.map((r) => [Number(r.version), r.hash])).toEqual([[before.body.version, before.body.hash]]);
    const routeAfter = await s.api('GET', '/api/v1/namespaces/app/httproutes/web');
    expect(routeAfter.body.status.parents[0].conditions.map((c: any) => [c.type, c.status])).toEqual(routeBefore.body.status.parents[0].conditions.map((c: any) => [c.type, c.status]));
  });
});

describe('resolve', () => {
  it('says where a request goes and why', async () => {
    await s.api('PUT', '/api/v1/namespaces/app/httproutes/web', route('/api'));
    await reconciled(s);
    const r = await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { path: '/api/users', method: 'GET', hostname: 'shop.example.com' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ matched: true, forwarded: true, route: { kind: 'HTTPRoute', namespace: 'app', name: 'web' } });
    expect(r.body.backends[0]).toMatchObject({ name: 'web', valid: true });
    expect(r.body.explanation).toEqual([
      'Listener "http" (port 80, HTTP, any hostname) takes the request: it is the only one on port 80.',
      'HTTPRoute app/web rule 0 matches with path 4.',
      'No other attached rule matches.',
      'Backends: app/web:80 weight 1 (1 endpoint).',
    ]);
    const miss = await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { path: '/nothing' });
    expect(miss.body).toMatchObject({ matched: false, forwarded: false, statusCode: 404 });
    expect((await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', '[1]')).status).toBe(400);
  });
});
