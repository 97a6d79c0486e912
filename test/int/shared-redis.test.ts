// Deployments sharing one Redis server never meet: each has its own prefix (derived from its
// database unless REDIS_PREFIX is set), its own queue, and notices stamped with its own id, so
// that even two given the same prefix take neither each other's jobs nor each other's tables.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { needs, skippable } from '../support/database';
import { deploymentOf } from '../../src/adapters/queue/redis-keys';
import { databaseIdentity } from '../../src/adapters/store/database-identity';

const GW = 'gateway.networking.k8s.io/v1';
const need = needs({ pg: true, redis: true });

async function setUp(s: TestServer, path: string): Promise<void> {
  for (const [p, body] of [
    ['/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
    ['/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] } }],
    ['/api/v1/namespaces/infra/services/app', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } }],
    ['/api/v1/namespaces/infra/httproutes/web', { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'app', port: 80 }] }] } }],
  ] as const) {
    const r = await s.api('PUT', p, body);
    expect([200, 201], `${p}: ${JSON.stringify(r.body)}`).toContain(r.status);
  }
}

const pathsOf = (snapshot: { table: { listeners: { httpRoutes?: { match?: { path?: { value: string } } }[] }[] } }) =>
  snapshot.table.listeners.flatMap((l) => (l.httpRoutes ?? []).map((e) => e.match?.path?.value));

describe.skipIf(need.skip)(skippable(need, 'two deployments on one Redis'), () => {
  let a: TestServer;
  let b: TestServer;
  let c: TestServer;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  beforeAll(async () => {
    a = await startTestServer({}, { derivedPrefix: true });
    b = await startTestServer({}, { derivedPrefix: true });
    // c is given b's prefix by mistake: only the stamps and the queue names tell them apart
    const prefixOfB = deploymentOf(await databaseIdentity(b.running.ctx.db)).prefix;
    c = await startTestServer({ redisPrefix: prefixOfB }, { derivedPrefix: true });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), c?.close()]);
    redis.disconnect();
  });

  it('each converges on its own objects and serves its own table', async () => {
    await Promise.all([setUp(a, '/a'), setUp(b, '/b'), setUp(c, '/c')]);
    await Promise.all([reconciled(a), reconciled(b), reconciled(c)]);
    for (const [s, path] of [[a, '/a'], [b, '/b'], [c, '/c']] as const) {
      const gw = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge');
      expect(gw.body.status?.conditions?.find((x: { type: string }) => x.type === 'Programmed')?.status, path).toBe('True');
      const snap = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot');
      expect(snap.status).toBe(200);
      expect(pathsOf(snap.body)).toEqual([path]);
    }
  });

  it('a notice of another deployment on the same channel is dropped', async () => {
    const before = await b.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot');
    // c's changes publish notices for "infra/edge" on the channel b listens to
    for (let i = 0; i < 3; i++) {
      const r = await c.api('PUT', '/api/v1/namespaces/infra/httproutes/web', { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: `/c${i}` } }], backendRefs: [{ name: 'app', port: 80 }] }] } });
      expect(r.status).toBe(200);
    }
    await reconciled(c);
    // the worker's checkpoint is written before its notice reaches c's API: c serves /c2 a moment later
    await expect.poll(async () => pathsOf((await c.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot')).body), { timeout: 10_000 }).toEqual(['/c2']);
    const after = await b.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot', undefined, { 'if-none-match': before.headers.get('etag')! });
    expect(after.status).toBe(304);
    const body = await b.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot');
    expect(body.body.version).toBe(before.body.version);
    expect(pathsOf(body.body)).toEqual(['/b']);
  });

  it('keeps its keys under its own prefix', async () => {
    const prefixOf = async (s: TestServer) => deploymentOf(await databaseIdentity(s.running.ctx.db)).prefix;
    const [pa, pb] = [await prefixOf(a), await prefixOf(b)];
    expect(pa).not.toBe(pb);
    const keys = async (prefix: string) => (await redis.keys(`${prefix}:*`)).sort();
    expect((await keys(pa)).length).toBeGreaterThanOrEqual(1);
    expect((await keys(pb)).length).toBeGreaterThanOrEqual(1);
    expect((await keys(pa)).filter((k) => k.startsWith(`${pb}:`))).toEqual([]);
  });
});
