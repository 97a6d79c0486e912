// The event log is the outbox: with Redis gone while writes go on, nothing is lost. Once Redis is
// back the dispatcher catches up from its checkpoint, with no manual step. And a proxy watching a
// snapshot through a Redis restart, or reconnecting after its API process restarts, ends up on the
// newest version and is never handed an older one.
import { afterAll, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ADMIN_TOKEN, reconciled, startTestServer, type TestServer } from '../support/server';
import { sse } from '../support/sse';
import { needs, skippable } from '../support/database';
import { tempDir } from '../support/temp-dir';

const ownRedis = needs({ redisServer: true });
const ownRedisTwoApis = needs({ redisServer: true, pg: true });

const port = 16400 + Math.floor(Math.random() * 1000);
// made when a test first starts Redis: a file whose tests all skip runs no hooks, and would leave it
let dir: string | undefined;
let redis: ChildProcess | null = null;
let s: TestServer | null = null;

async function startRedis(): Promise<void> {
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', (dir ??= tempDir('sy-redis-'))], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().trim() === 'PONG') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis did not start');
}

function stopRedis(): Promise<void> {
  return new Promise((resolve) => {
    if (!redis || redis.exitCode !== null) return resolve();
    redis.once('exit', () => resolve());
    redis.kill('SIGKILL');
  });
}

const others: TestServer[] = [];
afterAll(async () => {
  for (const o of others) await o.close().catch(() => undefined);
  await s?.close();
  await stopRedis();
});

const GW = 'gateway.networking.k8s.io/v1';
const accepted = (o: any) => o.status?.parents?.[0]?.conditions?.find((c: any) => c.type === 'Accepted');

it.skipIf(ownRedis.skip)(skippable(ownRedis, 'converges after Redis comes back, from the checkpoint in PostgreSQL'), async () => {
  await startRedis();
  s = await startTestServer({ redisUrl: `redis://127.0.0.1:${port}` });
  const put = async (path: string, body: unknown) => expect((await s!.api('PUT', path, body)).status).toBeLessThan(300);
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/gateways/gw', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: '*.example.com', allowedRoutes: { namespaces: { from: 'All' } } }] } });
  await reconciled(s);

  await stopRedis();
  // writes go on while Redis is away: the store does not need it
  for (let i = 0; i < 20; i++) {
    await put(`/api/v1/namespaces/app/httproutes/r${i}`, { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'gw', namespace: 'infra' }], hostnames: [i % 2 ? 'a.example.com' : 'a.example.org'] } });
  }
  await new Promise((r) => setTimeout(r, 700));
  const during = await s.api('GET', '/api/v1/namespaces/app/httproutes/r1');
  expect(during.body.status?.parents ?? []).toHaveLength(0);

  await startRedis();
  await reconciled(s, 30_000);
  for (let i = 0; i < 20; i++) {
    const r = await s.api('GET', `/api/v1/namespaces/app/httproutes/r${i}`);
    expect(accepted(r.body), `r${i}`).toMatchObject(i % 2 ? { status: 'True' } : { status: 'False', reason: 'NoMatchingListenerHostname' });
  }
  const gw = await s.api('GET', '/api/v1/namespaces/infra/gateways/gw');
  expect(gw.body.status.listeners[0].attachedRoutes).toBe(10);
}, 90_000);

it.skipIf(ownRedisTwoApis.skip)(skippable(ownRedisTwoApis, 'a proxy gets the newest snapshot after a Redis restart and after its API process restarts, never an older one'), async () => {
  if (!redis || redis.exitCode !== null) await startRedis();
  const redisUrl = `redis://127.0.0.1:${port}`;
  const main = await startTestServer({ redisUrl });
  others.push(main);
  const put = async (path: string, body: unknown) => expect((await main.api('PUT', path, body)).status).toBeLessThan(300);
  const route = (path: string) => ({ apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'web', port: 80 }] }] } });
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } });
  await put('/api/v1/namespaces/app/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
  await put('/api/v1/namespaces/app/httproutes/web', route('/one'));
  await reconciled(main);

  // a proxy on a second API process (no worker of its own)
  const watch = '/api/v1/namespaces/infra/gateways/edge/snapshot/watch';
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const api2 = await startTestServer({ redisUrl }, { databaseUrl: main.databaseUrl, worker: false });
  others.push(api2);
  const w = await sse(`${api2.url}${watch}`, auth);
  const first = await w.next((e) => e.data.includes('"/one"'));

  // Redis restarts (losing every notice and job it held) while a change is written
  await stopRedis();
  await put('/api/v1/namespaces/app/httproutes/web', route('/two'));
  await startRedis();
  await reconciled(main, 30_000);
  const second = await w.next((e) => e.data.includes('"/two"'), 15_000);
  expect(Number(second.id)).toBeGreaterThan(Number(first.id));
  expect(w.events.map((e) => Number(e.id))).toEqual([...w.events.map((e) => Number(e.id))].sort((a, b) => a - b));
  w.close();

  // the proxy's API process goes away; a change lands; the proxy reconnects to a new one
  await api2.close();
  await put('/api/v1/namespaces/app/httproutes/web', route('/three'));
  await reconciled(main);
  const api3 = await startTestServer({ redisUrl }, { databaseUrl: main.databaseUrl, worker: false });
  others.push(api3);
  const again = await sse(`${api3.url}${watch}`, { ...auth, 'last-event-id': second.id! });
  const third = await again.next();
  expect(third.data).toContain('"/three"');
  expect(Number(third.id)).toBeGreaterThan(Number(second.id));
  again.close();
}, 90_000);
