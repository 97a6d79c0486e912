// /metrics shows the reconcile pipeline as a user would watch it: after a write reconciles, the
// recompute counters have moved, the dispatcher's lag is back to 0 and the snapshot gauges hold the
// version the snapshot endpoint serves; HTTP requests are counted by `code`; SSE subscribers are a
// gauge that falls when they leave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { needs } from '../support/database';
import { scrape, samples, value } from '../support/metrics';

const GW = 'gateway.networking.k8s.io/v1';
const CLASS = { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } };
const GATEWAY = { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] } };
const route = (path: string) => ({ apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'app', port: 80 }] }] } });

async function put(s: TestServer, path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${r.text}`).toContain(r.status);
}

/** The snapshot's body as the worker wrote it: what the admin is served, without the Secret data added for it. */
const withoutSecrets = (text: string) => Buffer.byteLength(text.replace(/,"secrets":\[\]\}$/, '}'));

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('metrics of the pipeline', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a write that reconciles moves the recompute counters, brings the lag back to 0 and sets the snapshot gauges', async () => {
    const before = await scrape(s.url);
    const okBefore = value(before, 'switchyard_recomputes_total', { kind: 'Gateway', outcome: 'ok' }) ?? 0;
    const timedBefore = value(before, 'switchyard_recompute_duration_seconds_count', { kind: 'Gateway' }) ?? 0;
    const waitedBefore = value(before, 'switchyard_queue_wait_seconds_count') ?? 0;

    await put(s, '/api/v1/gatewayclasses/sy', CLASS);
    await put(s, '/api/v1/namespaces/infra/services/app', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
    await put(s, '/api/v1/namespaces/infra/gateways/edge', GATEWAY);
    await put(s, '/api/v1/namespaces/infra/httproutes/web', route('/a'));
    await reconciled(s);

    const after = await scrape(s.url);
    expect(value(after, 'switchyard_recomputes_total', { kind: 'Gateway', outcome: 'ok' })).toBeGreaterThan(okBefore);
    expect(value(after, 'switchyard_recomputes_total', { kind: 'Gateway', outcome: 'error' }) ?? 0).toBe(0);
    expect(value(after, 'switchyard_recompute_duration_seconds_count', { kind: 'Gateway' })).toBeGreaterThan(timedBefore);
    expect(value(after, 'switchyard_recompute_duration_seconds_sum', { kind: 'Gateway' })).toBeGreaterThan(0);
    expect(value(after, 'switchyard_queue_wait_seconds_count')).toBeGreaterThan(waitedBefore);
    expect(value(after, 'switchyard_dispatcher_lag_events')).toBe(0);
    expect(value(after, 'switchyard_dispatcher_lag_seconds')).toBe(0);
    expect(samples(after, 'switchyard_queue_jobs').map((x) => x.labels.state).sort()).toEqual(['active', 'delayed', 'waiting']);
    for (const q of samples(after, 'switchyard_queue_jobs')) expect(q.value).toBeGreaterThanOrEqual(0);

    const snap = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot');
    expect(snap.status).toBe(200);
    const edge = { namespace: 'infra', name: 'edge' };
    expect(value(after, 'switchyard_snapshot_version', edge)).toBe(snap.body.version);
    expect(value(after, 'switchyard_snapshot_bytes', edge)).toBe(withoutSecrets(snap.text));

    // a change to the table gives a new version, and the gauge follows it
    await put(s, '/api/v1/namespaces/infra/httproutes/web', route('/a-longer-prefix'));
    await reconciled(s);
    const changed = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot');
    expect(changed.body.version).toBeGreaterThan(snap.body.version);
    const later = await scrape(s.url);
    expect(value(later, 'switchyard_snapshot_version', edge)).toBe(changed.body.version);
    expect(value(later, 'switchyard_snapshot_bytes', edge)).toBe(withoutSecrets(changed.text));

    // a deleted Gateway has no snapshot, and no series
    expect((await s.api('DELETE', '/api/v1/namespaces/infra/gateways/edge')).status).toBe(200);
    await reconciled(s);
    expect(value(await scrape(s.url), 'switchyard_snapshot_version', edge)).toBeUndefined();
  });

  it('sets the snapshot size of a table too large to travel with its notice, once stored whole', async () => {
    // 1,500 routes with long paths: a body of some 2 MB, past the 1 MB a notice carries
    const routes = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => {
      const r = route(`/${prefix}-${i}/${'x'.repeat(300)}`);
      return { ...r, metadata: { namespace: 'big', name: `r-${i}` }, spec: { ...r.spec, parentRefs: [{ name: 'large', namespace: 'infra' }] } };
    });
    const large = { namespace: 'infra', name: 'large' };
    await put(s, '/api/v1/gatewayclasses/sy', CLASS);
    await put(s, '/api/v1/namespaces/infra/gateways/large', { ...GATEWAY, spec: { ...GATEWAY.spec, listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }] } });
    const apply = async (prefix: string, count = 1500) => {
      const r = await s.api('POST', '/api/v1/apply', { items: routes(prefix, count) });
      expect(r.status, r.text).toBe(200);
      await reconciled(s, 60_000);
      const snap = await s.api('GET', '/api/v1/namespaces/infra/gateways/large/snapshot');
      expect(snap.status).toBe(200);
      return snap;
    };
    const first = await apply('a');
    expect(withoutSecrets(first.text)).toBeGreaterThan(1 << 20);
    const sized = (want: number) => until('switchyard_snapshot_bytes', async () => value(await scrape(s.url), 'switchyard_snapshot_bytes', large), (v) => v === want);
    await sized(withoutSecrets(first.text));
    // every route changed: a delta as large as the table, so the table is stored whole again
    const second = await apply('bb');
    expect(withoutSecrets(second.text)).not.toBe(withoutSecrets(first.text));
    await sized(withoutSecrets(second.text));
    // a tenth of the routes changed at a time: deltas, until their chain is a quarter of the table
    // and the table is stored whole in its place (after the version is announced)
    let last = second;
    for (const prefix of ['c', 'd', 'e', 'f']) {
      last = await apply(prefix, 150);
      if (value(await scrape(s.url), 'switchyard_snapshot_bytes', large) === withoutSecrets(last.text)) break;
    }
    expect(last).not.toBe(second);
    await sized(withoutSecrets(last.text));
  });

  it('counts HTTP requests by code, and says which build runs', async () => {
    expect((await s.api('GET', '/api/v1/namespaces/infra/services/nothing-here')).status).toBe(404);
    const m = await scrape(s.url);
    expect(value(m, 'switchyard_http_requests_total', { method: 'GET', route: '/api/v1/namespaces/:namespace/services/:name', code: '404' })).toBeGreaterThanOrEqual(1);
    expect(value(m, 'switchyard_http_requests_total', { method: 'PUT', code: '201' })).toBeGreaterThanOrEqual(4);
    expect(samples(m, 'switchyard_http_requests_total').every((x) => /^[1-5]\d\d$/.test(x.labels.code) && !('status' in x.labels))).toBe(true);
    const info = samples(m, 'switchyard_build_info');
    expect(info).toHaveLength(1);
    expect(info[0].value).toBe(1);
    expect(info[0].labels).toEqual({ version: s.running.ctx.version, gatewayAPIVersion: 'v1.6.1', node: process.version });
    // one process's Node metrics, once (the worker's registry is merged, not duplicated)
    expect(samples(m, 'process_cpu_seconds_total')).toHaveLength(1);
  });

  it('counts SSE subscribers while they are connected', async () => {
    const gauge = async () => value(await scrape(s.url), 'switchyard_sse_subscribers', { stream: 'events' }) ?? 0;
    const start = await gauge();
    const watchers = [new AbortController(), new AbortController()];
    const responses = await Promise.all(watchers.map((c) => fetch(`${s.url}/api/v1/events/watch`, { headers: { authorization: `Bearer ${'test-admin-token-0123456789'}` }, signal: c.signal })));
    for (const r of responses) expect(r.status).toBe(200);
    expect(await gauge()).toBe(start + 2);
    watchers[0].abort();
    await until('subscribers after one left', gauge, (n) => n === start + 1);
    watchers[1].abort();
    await until('subscribers after both left', gauge, (n) => n === start);
  });
});

const pg = needs({ pg: true });
describe.skipIf(pg.skip)(`the dispatcher's lag${pg.skip ? ` (skipped: ${pg.why}: a second worker must share the database)` : ''}`, () => {
  it('counts the events a stopped dispatcher has not read, and falls to 0 once another worker reads them', async () => {
    const stalled = await startTestServer();
    let other: TestServer | null = null;
    try {
      await put(stalled, '/api/v1/gatewayclasses/sy', CLASS);
      await reconciled(stalled);
      await stalled.running.worker!.dispatcher!.stop();
      for (const n of ['a', 'b', 'c']) await put(stalled, `/api/v1/namespaces/infra/services/${n}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
      await new Promise((r) => setTimeout(r, 300)); // past the gauges' read of one scrape
      const behind = await scrape(stalled.url);
      expect(value(behind, 'switchyard_dispatcher_lag_events')).toBe(3);
      expect(value(behind, 'switchyard_dispatcher_lag_seconds')).toBeGreaterThan(0);

      other = await startTestServer({}, { databaseUrl: stalled.databaseUrl });
      await reconciled(other);
      await new Promise((r) => setTimeout(r, 300));
      const caughtUp = await scrape(stalled.url);
      expect(value(caughtUp, 'switchyard_dispatcher_lag_events')).toBe(0);
      expect(value(caughtUp, 'switchyard_dispatcher_lag_seconds')).toBe(0);
    } finally {
      await other?.close();
      await stalled.close();
    }
  });
});
