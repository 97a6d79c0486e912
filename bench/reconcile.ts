// `npm run bench:reconcile`: the reconcile path with one API process (`src/main.ts --role=api`) and
// one worker process (`workers/reconcile.ts`) on the local PostgreSQL (a fresh database) and Redis
// (a fresh queue prefix). Each Gateway `infra/gw-<g>` has one HTTP listener and 100 HTTPRoutes in
// namespace `team-<g>`, all to one Service with an EndpointSlice of three endpoints. Both processes
// are warmed up first on a Gateway that is deleted again before anything is measured.
//  1. 1,000 routes onto 10 empty Gateways by 16 concurrent clients: from the first write until every
//     Gateway shows attachedRoutes 100 and every route Accepted.
//  2. With those 1,000 routes on 10 Gateways: the time from a route change's 200 until GET shows its
//     status at the new generation (p50/p99), and the worker time of that change's recompute
//     (recomputes.duration_ms).
//  3. The same with 10,000 routes on 100 Gateways (the same 100 routes per Gateway), and the ratio of
//     the recompute times: per-Gateway work keeps it near 1.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { BENCH_TOKEN, dropRedisPrefix, freshDatabase, oneGatewayFigures, percentile, report, startService, workerNodeFlags } from './support';
import { ROOT } from '../test/support/process';
import { openDatabase } from '../src/adapters/store/database';
import { caughtUp } from '../src/adapters/store/checkpoints';
import { scoped } from '../src/adapters/store/scope';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const CONTROLLER = 'switchyard.dev/gateway-controller';
const GW = 'gateway.networking.k8s.io/v1';
const ROUTES_PER_GATEWAY = 100;
const CHANGES = Number(process.env.BENCH_CHANGES ?? 150);
const WARMUP_CHANGES = 20;
const SEED_CLIENTS = 32;
const BURST_CLIENTS = 16;
// BENCH_STOP_AFTER=burst ends after the first measurement, printing its wall-clock window (for profiling).
const STOP_AFTER_BURST = process.env.BENCH_STOP_AFTER === 'burst';
const STOP = new Error('stopped after the burst');

const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let version = 0;

// ---- the objects -----------------------------------------------------------------------------

const gatewayClass = () => ['/api/v1/gatewayclasses/bench', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } }] as const;
const namespace = (name: string) => [`/api/v1/namespaces/${name}`, { apiVersion: 'v1', kind: 'Namespace' }] as const;
const gateway = (g: number) => [`/api/v1/namespaces/infra/gateways/gw-${g}`, {
  apiVersion: GW, kind: 'Gateway', metadata: { name: `gw-${g}`, namespace: 'infra' },
  spec: { gatewayClassName: 'bench', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: '*.bench.example', allowedRoutes: { namespaces: { from: 'All' } } }] },
}] as const;
const service = (g: number) => [`/api/v1/namespaces/team-${g}/services/app`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }] } }] as const;
const slice = (g: number) => [`/api/v1/namespaces/team-${g}/endpointslices/app-1`, {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'app' } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: [1, 2, 3].map((i) => ({ addresses: [`10.${g >> 8}.${g & 255}.${i}`], conditions: { ready: true } })),
}] as const;
const routePath = (g: number, i: number) => `/api/v1/namespaces/team-${g}/httproutes/r-${i}`;
const route = (g: number, i: number, version = 0) => [routePath(g, i), {
  apiVersion: GW, kind: 'HTTPRoute',
  spec: {
    parentRefs: [{ name: `gw-${g}`, namespace: 'infra' }],
    hostnames: [`g${g}.bench.example`],
    rules: [{ matches: [{ path: { type: 'PathPrefix', value: `/r${i}${version ? `/v${version}` : ''}` } }], backendRefs: [{ name: 'app', port: 80 }] }],
  },
}] as const;

// ---- the processes ---------------------------------------------------------------------------

const db = await freshDatabase();
// the run's own prefix on the shared Redis
const BENCH_PREFIX = `sy-bench-${randomBytes(4).toString('hex')}`;
const api = await startService({ DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: BENCH_PREFIX }, 'src/main.ts', ['--role=api']);
const worker = startWorkerProcess({ DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: BENCH_PREFIX });
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();
const store = await openDatabase({ url: db.url, poolSize: 2 });

function startWorkerProcess(env: Record<string, string>) {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  const child = spawn(process.execPath, [...workerNodeFlags(), ...(process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', join(ROOT, 'workers/reconcile.ts')], {
    cwd: ROOT, env: { ...clean, LOG_LEVEL: 'warn', WORKER_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return {
    output: () => out,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

// node:http with keep-alive rather than fetch: the load generator shares the two cores with the
// service, and fetch costs about three times the CPU per request.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const apiUrl = new URL(api.url);
function call(method: string, path: string, body?: unknown): Promise<any> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: apiUrl.hostname, port: apiUrl.port, path, method, agent,
      headers: payload === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) return reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
        resolve(text ? JSON.parse(text) : undefined);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Writes with `clients` concurrent clients, in the order given. */
async function putAll(items: readonly (readonly [string, unknown])[], clients: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < items.length) {
      const [path, body] = items[next++];
      await call('PUT', path, body);
    }
  }));
}

// ---- status checks ---------------------------------------------------------------------------

const ourParent = (r: any) => r.status?.parents?.find((p: any) => p.controllerName === CONTROLLER);
const current = (r: any) => {
  const p = ourParent(r);
  return !!p && p.conditions.length > 0 && p.conditions.every((c: any) => c.observedGeneration === r.metadata.generation);
};
const accepted = (r: any) => current(r) && ourParent(r).conditions.some((c: any) => c.type === 'Accepted' && c.status === 'True');

async function gatewaysAttached(gateways: number[], want: number): Promise<boolean> {
  const list = await call('GET', '/api/v1/namespaces/infra/gateways?limit=5000');
  const byName = new Map<string, any>(list.items.map((g: any) => [g.metadata.name, g]));
  return gateways.every((g) => {
    const gw = byName.get(`gw-${g}`);
    const programmed = gw?.status?.conditions?.some((c: any) => c.type === 'Programmed' && c.status === 'True' && c.observedGeneration === gw.metadata.generation);
    return programmed && gw.status.listeners?.[0]?.attachedRoutes === want;
  });
}

async function routesAccepted(gateways: number[]): Promise<boolean> {
  for (const g of gateways) {
    const list = await call('GET', `/api/v1/namespaces/team-${g}/httproutes?limit=5000`);
    if (list.items.length !== ROUTES_PER_GATEWAY || !list.items.every(accepted)) return false;
  }
  return true;
}

/** Polls until every Gateway counts its routes and every route shows Accepted; returns when the Gateways' check passed. */
async function untilAttached(gateways: number[], timeoutMs: number, pollMs = 5): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    // A Gateway's status and its routes' statuses are written in one transaction, so the moment the
    // Gateways count every route is the moment the routes show Accepted; the route check confirms it.
    if (await gatewaysAttached(gateways, ROUTES_PER_GATEWAY)) {
      const at = performance.now();
      if (await routesAccepted(gateways)) return at;
    }
    if (performance.now() > deadline) throw new Error(`routes were not all attached within ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/** The worker has caught up with every event written so far (the dispatcher's own test of it). */
async function settled(timeoutMs = 60_000): Promise<void> {
  const { rows } = await sql.query(`SELECT coalesce(max(position), 0) AS p FROM events`);
  const deadline = Date.now() + timeoutMs;
  while (!(await caughtUp(store, Number(rows[0].p), CONTROLLER))) {
    if (Date.now() > deadline) throw new Error(`the worker did not catch up with position ${rows[0].p} within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The snapshot versions issued so far, over all Gateways: one per recompute that changed a table. */
async function snapshotVersions(): Promise<number> {
  const { rows } = await sql.query(`SELECT coalesce(sum(version), 0) AS n FROM snapshot_versions`);
  return Number(rows[0].n);
}

// ---- the measurements ------------------------------------------------------------------------

async function seedGateways(from: number, to: number): Promise<number[]> {
  const gws = Array.from({ length: to - from }, (_, k) => from + k);
  await putAll(gws.flatMap((g) => [namespace(`team-${g}`), gateway(g), service(g), slice(g)]), SEED_CLIENTS);
  return gws;
}

function routesOf(gws: number[]) {
  // interleaved over the Gateways, as independent teams would write them
  const out: (readonly [string, unknown])[] = [];
  for (let i = 0; i < ROUTES_PER_GATEWAY; i++) for (const g of gws) out.push(route(g, i));
  return out;
}

/** Route changes one at a time: the 200 to status-on-GET latency, and the recompute's worker time. */
async function measureChanges(gws: number[], n: number): Promise<{ latency: number[]; recompute: number[] }> {
  const latency: number[] = [];
  const recompute: number[] = [];
  for (let k = 0; k < n + WARMUP_CHANGES; k++) {
    const g = gws[Math.floor(Math.random() * gws.length)];
    const i = Math.floor(Math.random() * ROUTES_PER_GATEWAY);
    const [path, body] = route(g, i, ++version);
    const written = await call('PUT', path, body);
    const t0 = performance.now();
    const generation = written.metadata.generation;
    for (;;) {
      const r = await call('GET', path);
      if (r.metadata.generation === generation && current(r)) break;
      if (performance.now() - t0 > 30_000) throw new Error(`the status of ${path} did not show generation ${generation}`);
      await sleep(1);
    }
    const took = performance.now() - t0;
    const { rows } = await sql.query(`SELECT duration_ms FROM recomputes WHERE gateway = $1`, [scoped(CONTROLLER, `Gateway/infra/gw-${g}`)]);
    if (k >= WARMUP_CHANGES) {
      latency.push(took);
      recompute.push(Number(rows[0]?.duration_ms));
    }
  }
  latency.sort((a, b) => a - b);
  recompute.sort((a, b) => a - b);
  return { latency, recompute };
}

/** Warms both processes up (validators compiled, code optimised) on a Gateway that is gone again before measuring. */
async function warmUp(): Promise<void> {
  const g = 999;
  await seedGateways(g, g + 1);
  await putAll(routesOf([g]), BURST_CLIENTS);
  await untilAttached([g], 60_000);
  for (let k = 0; k < 20; k++) await putAll([route(g, k % ROUTES_PER_GATEWAY, ++version)], 1);
  const paths = [...routesOf([g]).map(([p]) => p), gateway(g)[0], slice(g)[0], service(g)[0], namespace(`team-${g}`)[0]];
  let next = 0;
  await Promise.all(Array.from({ length: SEED_CLIENTS }, async () => {
    while (next < paths.length) await call('DELETE', paths[next++]);
  }));
  await settled();
}

try {
  // every figure shares the two cores with whatever else runs on the machine
  report('machine_load_average_1m', loadavg()[0], 'runnable', 'informational: 2 cores; above ~1 other work competes with the service');
  await putAll([gatewayClass(), namespace('infra')], 1);
  await warmUp();
  const small = await seedGateways(0, 10);
  await settled();

  // 1. 1,000 route writes by 16 clients onto the 10 Gateways
  const versionsBefore = await snapshotVersions();
  const t0 = performance.now();
  await putAll(routesOf(small), BURST_CLIENTS);
  const written = performance.now();
  const done = await untilAttached(small, 60_000);
  report('reconcile_1000_routes_attached', done - t0, 'ms', '<= 1000 ms');
  report('reconcile_1000_routes_writes', written - t0, 'ms', 'informational: the 1,000 writes alone, answered by the API');
  report('reconcile_1000_routes_after_last_write', done - written, 'ms', 'informational: how far the worker trailed the writes');
  report('reconcile_1000_routes_snapshots', (await snapshotVersions()) - versionsBefore, 'versions', 'informational: recomputes that changed a table, over the 10 Gateways');
  if (STOP_AFTER_BURST) console.error(`burst wall clock: ${Math.round(performance.timeOrigin + t0)} ${Math.round(performance.timeOrigin + done)}`);
  if (STOP_AFTER_BURST) throw STOP;
  await settled();

  // 2. changes at 1,000 routes on 10 Gateways
  const at1k = await measureChanges(small, CHANGES);
  report('reconcile_status_latency_1k_routes_p50', percentile(at1k.latency, 50), 'ms', 'informational');
  report('reconcile_status_latency_1k_routes_p99', percentile(at1k.latency, 99), 'ms', '<= 100 ms');

  // 3. grow to 10,000 routes on 100 Gateways
  const s0 = performance.now();
  const rest = await seedGateways(10, 100);
  await putAll(routesOf(rest), SEED_CLIENTS);
  const seeded = performance.now();
  await untilAttached(rest, 300_000, 100);
  await settled(300_000);
  report('reconcile_seed_9000_routes_writes_per_second', Math.round((9000 + 4 * 90) / ((seeded - s0) / 1000)), 'writes/s', 'informational');

  const all = [...small, ...rest];
  const at10k = await measureChanges(all, CHANGES);
  report('reconcile_status_latency_10k_routes_p50', percentile(at10k.latency, 50), 'ms', 'informational');
  report('reconcile_status_latency_10k_routes_p99', percentile(at10k.latency, 99), 'ms', '<= 200 ms');

  // 4. the worker time of one change's recompute: per Gateway, not global
  const r1 = percentile(at1k.recompute, 50);
  const r10 = percentile(at10k.recompute, 50);
  report('reconcile_recompute_1k_routes_p50', r1, 'ms', 'informational: 100 routes per Gateway, 10 Gateways');
  report('reconcile_recompute_10k_routes_p50', r10, 'ms', 'informational: 100 routes per Gateway, 100 Gateways');
  report('reconcile_recompute_10k_vs_1k', r10 / r1, 'x', '<= 2 x');
} catch (err) {
  if (err !== STOP) {
    console.error(err);
    console.error('--- api output ---\n' + api.output().slice(-4000));
    console.error('--- worker output ---\n' + worker.output().slice(-4000));
    process.exitCode = 1;
  }
} finally {
  agent.destroy();
  await sql.end();
  await store.close();
  await worker.stop();
  await api.stop();
  await db.drop();
  await dropRedisPrefix(REDIS_URL, BENCH_PREFIX);
}

if (process.env.BENCH_STOP_AFTER === undefined) await oneGatewayFigures();
