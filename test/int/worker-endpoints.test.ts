// `npm run worker` as its own process serves /healthz, /readyz and /metrics on WORKER_PORT: ready
// only while PostgreSQL and Redis answer, and its metrics show the recomputes it ran for an API
// process sharing its database and Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { needs } from '../support/database';
import { startProcess, type ServiceProcess } from '../support/process';
import { parseMetrics, samples, value } from '../support/metrics';

const GW = 'gateway.networking.k8s.io/v1';
const need = needs({ pg: true, redis: true });
const WORKER = 'workers/reconcile.ts';

interface Ready { status: number; body: { status: string; checks: Record<string, { state: string; error?: string }>; down: string[] } }

/** /readyz once the worker has started (the port answers before the database is open: "starting"). */
async function readyOnceStarted(url: string, ms = 30_000): Promise<Ready> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await fetch(`${url}/readyz`);
    const ready: Ready = { status: r.status, body: (await r.json()) as Ready['body'] };
    if (ready.body.checks.worker?.error !== 'starting' || Date.now() > deadline) return ready;
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe.skipIf(need.skip)(`the worker's own port${need.skip ? ` (skipped: ${need.why}: the worker process must share them with the API)` : ''}`, () => {
  let api: TestServer;
  let worker: ServiceProcess;
  const started: ServiceProcess[] = [];
  beforeAll(async () => {
    // an API without a worker of its own: the worker process does all the recomputes
    api = await startTestServer({}, { worker: false, derivedPrefix: true });
    worker = await startProcess({ DATABASE_URL: api.databaseUrl, REDIS_URL: process.env.REDIS_URL }, WORKER, [], 'WORKER_PORT');
    started.push(worker);
  });
  afterAll(async () => {
    for (const p of started) await p.stop();
    await api?.close();
  });

  it('answers /healthz and /readyz, naming what it checked', async () => {
    const health = await fetch(`${worker.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await readyOnceStarted(worker.url);
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: { state: 'up' }, redis: { state: 'up' }, worker: { state: 'up' } }, down: [] });
    expect(ready.status).toBe(200);
    const other = await fetch(`${worker.url}/api/v1/namespaces`);
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toBe('application/problem+json');
  });

  it('serves the metrics of the recomputes it ran', async () => {
    for (const [p, body] of [
      ['/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
      ['/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] } }],
    ] as const) expect([200, 201]).toContain((await api.api('PUT', p, body)).status);
    await reconciled(api);
    const res = await fetch(`${worker.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const m = parseMetrics(await res.text());
    expect(value(m, 'switchyard_recomputes_total', { kind: 'Gateway', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(value(m, 'switchyard_recomputes_total', { kind: 'GatewayClass', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    const snap = await api.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot');
    expect(value(m, 'switchyard_snapshot_version', { namespace: 'infra', name: 'edge' })).toBe(snap.body.version);
    expect(value(m, 'switchyard_dispatcher_lag_events')).toBe(0);
    expect(samples(m, 'switchyard_queue_jobs')).toHaveLength(3);
    expect(samples(m, 'switchyard_build_info')[0]).toMatchObject({ value: 1, labels: { node: process.version } });
    expect(value(m, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    // the worker serves no HTTP API, so it has no request metrics
    expect(samples(m, 'switchyard_http_requests_total')).toHaveLength(0);
  });

  it('is alive but not ready while Redis does not answer', async () => {
    const cut = await startProcess({ DATABASE_URL: api.databaseUrl, REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: `sy-test-cut-${Date.now()}` }, WORKER, [], 'WORKER_PORT');
    started.push(cut);
    expect((await fetch(`${cut.url}/healthz`)).status).toBe(200);
    const ready = await readyOnceStarted(cut.url);
    expect(ready.status).toBe(503);
    const body = ready.body;
    expect(body.status).toBe('not ready');
    expect(body.checks.postgres).toEqual({ state: 'up' });
    expect(body.checks.redis).toMatchObject({ state: 'down', error: expect.any(String) });
    expect(body.down).toEqual(['redis']);
    // SIGTERM still ends it, once its grace for jobs in flight is over
    expect(await cut.stop('SIGTERM')).toBe(1);
    expect(cut.output()).toMatch(/worker shutdown did not finish in time/);
  }, 30_000);

  it('stops on SIGTERM with status 0, and its port with it', async () => {
    const url = worker.url;
    expect(await worker.stop('SIGTERM')).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
