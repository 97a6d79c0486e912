// `npm start` with PostgreSQL and Redis set runs its worker on a thread of its own: the routes it
// is given are reconciled there, /metrics serves the thread's recompute metrics beside the API's
// (each family once), and SIGTERM stops both threads cleanly. WORKER_THREAD=false keeps the worker
// on the API's thread, with the same metrics.
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client } from '../support/server';
import { freshDatabaseUrl, needs } from '../support/database';
import { startProcess, type ServiceProcess } from '../support/process';
import { dropRedisPrefix } from '../support/redis';
import { parseMetrics, value } from '../support/metrics';

const GW = 'gateway.networking.k8s.io/v1';
const need = needs({ pg: true, redis: true });

describe.skipIf(need.skip)(`npm start's worker thread${need.skip ? ` (skipped: ${need.why})` : ''}`, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  async function start(extra: Record<string, string> = {}): Promise<ServiceProcess> {
    const db = await freshDatabaseUrl();
    const prefix = `sy-test-thread-${process.pid}-${Date.now()}`;
    cleanups.push(() => db.drop(), () => dropRedisPrefix(process.env.REDIS_URL!, prefix));
    const p = await startProcess({ DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: prefix, ADMIN_TOKEN, ...extra });
    cleanups.push(() => p.stop('SIGKILL'));
    return p;
  }

  async function routeAccepted(p: ServiceProcess): Promise<void> {
    const c = client(p.url);
    for (const [path, body] of [
      ['/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
      ['/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }] } }],
      ['/api/v1/namespaces/team/httproutes/web', { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/web' } }] }] } }],
    ] as const) {
      const r = await c('PUT', path, body);
      expect([200, 201], r.text).toContain(r.status);
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await c('GET', '/api/v1/namespaces/team/httproutes/web');
      const parents = (r.body?.status?.parents ?? []) as { conditions?: { type: string; status: string }[] }[];
      if (parents[0]?.conditions?.some((x) => x.type === 'Accepted' && x.status === 'True')) return;
      if (Date.now() > deadline) throw new Error(`the route was not accepted within 30 s: ${r.text}\n${p.output()}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  async function metricsOf(p: ServiceProcess) {
    const text = await (await fetch(`${p.url}/metrics`)).text();
    const families = text.split('\n').filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]);
    return { m: parseMetrics(text), families };
  }

  it('reconciles on the thread, serves its metrics beside the API\'s, and stops cleanly on SIGTERM', async () => {
    const p = await start();
    await routeAccepted(p);
    expect(p.output()).toContain('worker thread running');
    const { m, families } = await metricsOf(p);
    expect(value(m, 'switchyard_recomputes_total', { kind: 'Gateway', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    // the API's own, from the same scrape
    expect(value(m, 'switchyard_http_requests_total', { method: 'PUT', code: '201' })).toBeGreaterThanOrEqual(3);
    expect(new Set(families).size).toBe(families.length);
    const t = Date.now();
    expect(await p.stop('SIGTERM')).toBe(0);
    expect(Date.now() - t).toBeLessThan(10_000);
    expect(p.output()).toContain('switchyard stopped');
  }, 90_000);

  it('keeps the worker on the API\'s thread with WORKER_THREAD=false', async () => {
    const p = await start({ WORKER_THREAD: 'false' });
    await routeAccepted(p);
    expect(p.output()).not.toContain('worker thread running');
    const { m, families } = await metricsOf(p);
    expect(value(m, 'switchyard_recomputes_total', { kind: 'Gateway', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(new Set(families).size).toBe(families.length);
    expect(await p.stop('SIGTERM')).toBe(0);
  }, 90_000);
});
