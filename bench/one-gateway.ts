// `npm run bench:gateway`: one Gateway with thousands of routes, where a change's cost shows how it
// grows with its Gateway. Runs twice on the local PostgreSQL and Redis: api and worker as separate
// processes (`src/main.ts --role=api` + `workers/reconcile.ts`), then both in one process as
// `npm start` runs them (`src/main.ts`). Each prints: writes/s while BENCH_ROUTES routes are written
// to one Gateway (the burst; and over its first and last thousand), how long until they are all
// reconciled, write -> SSE propagation of a one-route change to a watch with ?delta=true (p50, p99)
// and to a whole-snapshot watch (p50), the delta event's size against the whole snapshot's, resident
// memory per process, 2,000 delta subscribers all receiving a one-route change, and 1,000 routes on
// 10 more Gateways all attached (written one by one, then as one GitOps apply);
// each with its target, and the CPU each process spent per change (a shared machine disturbs
// wall-clock figures more than CPU time).
// Knobs: BENCH_ROUTES (5000; 50000 for the large target), BENCH_MODES (split,single), BENCH_CHANGES
// (60; 200 from 20,000 routes), BENCH_SUBSCRIBERS (2000), BENCH_SERIES=1 (each change's propagation, in order, and the service's CPU and page faults during it), BENCH_STOP_AFTER=burst|changes (the figures up to the burst's or the changes' alone), BENCH_HOLD_MS (with BENCH_STOP_AFTER=changes, how long the services stay up after the changes: to take a heap snapshot of a process, with SERVICE_NODE_FLAGS=--heapsnapshot-signal=SIGUSR2 and a kill -USR2 of its pid), BENCH_DUMP=<path prefix> (each service's output, e.g. with SERVICE_NODE_FLAGS=--trace-gc, into <prefix>-<mode>-api.txt and -worker.txt), BENCH_WHOLE_WATCH
// (1 below 20,000 routes: a whole-snapshot watcher of 50,000 routes takes a 60 MB body per change,
// which the API makes and sends before the next one, so it would measure that body, not the delta).
import http from 'node:http';
import pg from 'pg';
import { BENCH_TOKEN, dropRedisPrefix, freshDatabase, percentile, report, startService, timedClient, cpuMs, minorFaults, postgresCpuMs, rssMB, reconciled, sseWatch, type SseWatch } from './support';

/** Tables of thousands of routes take longer to catch up with. */
const reconciledLong = (client: pg.Client) => reconciled(client, 600_000, 25);
import { startWorkerProcess } from '../test/support/process';
import { GW, httpRoute, teamOf } from './large-gateway';

const ROUTES = Number(process.env.BENCH_ROUTES ?? 5000);
const MODES = (process.env.BENCH_MODES ?? 'split,single').split(',').filter(Boolean) as ('split' | 'single')[];
// at 50,000 routes a p99 over 60 changes is nearly their slowest one; over 200 it is a stretch of
// changes long enough to meet the worker's own full collection (some 50 changes apart at first)
const CHANGES = Number(process.env.BENCH_CHANGES ?? (ROUTES >= 20_000 ? 200 : 60));
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 2000);
const CONCURRENCY = 32;
const SETTLE_MS = 15_000;
/** how long a change may take to reach a watch (a whole 50,000-route table is some 60 MB) */
const ARRIVAL_S = ROUTES >= 20_000 ? 180 : 30;
const WHOLE_WATCH = (process.env.BENCH_WHOLE_WATCH ?? (ROUTES >= 20_000 ? '0' : '1')) === '1';
const AUTH = `Bearer ${BENCH_TOKEN}`;
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const SNAP = '/api/v1/namespaces/infra/gateways/shared/snapshot';
const now = () => performance.timeOrigin + performance.now();

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

const { request, put } = timedClient(agent, AUTH);

async function pool<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

const gatewayBody = () => ({ apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } });

async function seedBase(base: string): Promise<void> {
  await put(base, '/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  const puts: [string, unknown][] = [];
  for (let j = 0; j < 100; j++) {
    const ns = teamOf(j);
    puts.push([`/api/v1/namespaces/${ns}/services/svc-${j}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] } }]);
    puts.push([`/api/v1/namespaces/${ns}/endpointslices/svc-${j}-1`, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': `svc-${j}` } }, addressType: 'IPv4',
      endpoints: [0, 1, 2].map((e) => ({ addresses: [`10.${j}.0.${e + 1}`], conditions: { ready: true } })), ports: [{ name: 'http', port: 8080 }],
    }]);
  }
  await pool(puts, ([p, b]) => put(base, p, b));
}





/** The version a whole snapshot's body is of, read off its head (a body of 50,000 routes is 60 MB). */
function versionOf(body: string): number {
  const m = /"version":(\d+),"hash":"/.exec(body.slice(0, 4096));
  if (!m) throw new Error(`no version at the head of the snapshot: ${body.slice(0, 200)}`);
  return Number(m[1]);
}

async function run(mode: 'split' | 'single'): Promise<void> {
  const db = await freshDatabase();
  const prefix = `sy-bench-gw-${process.pid}-${mode}`;
  const common = { DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: prefix };
  const client = new pg.Client({ connectionString: db.url });
  const big = { MAX_SSE_PER_TOKEN: '100000', BODY_LIMIT_BYTES: String(8 * 1024 * 1024) };
  // with the node flags of the npm script each process stands for: `npm run api`, or `npm start`
  // a start that fails leaves nothing behind: not the database, the Redis keys, or the API already started
  const abandon = (started?: { stop(): Promise<unknown> }) => async (e: unknown): Promise<never> => {
    await started?.stop();
    await db.drop();
    await dropRedisPrefix(REDIS_URL, prefix);
    throw e;
  };
  const api = await startService({ ...common, ...big }, 'src/main.ts', mode === 'split' ? ['--role=api'] : []).catch(abandon());
  const worker = mode === 'split' ? await startWorkerProcess({ ...common, ADMIN_TOKEN: BENCH_TOKEN }).catch(abandon(api)) : undefined;
  const watches: SseWatch[] = [];
  const label = (name: string) => `${mode}_${ROUTES}_routes_${name}`;
  try {
    await client.connect();
    const base = api.url;
    const pids = { api: api.child.pid!, worker: worker?.child.pid };
    await seedBase(base);
    await put(base, '/api/v1/namespaces/infra/gateways/shared', gatewayBody());
    await reconciledLong(client);

    // the burst: every route of the one Gateway, written as fast as 32 clients can
    const ids = Array.from({ length: ROUTES }, (_, i) => i);
    // the CPU each part of this machine spent per write: the service's processes, and the load's own
    // share of the two cores (this client, and PostgreSQL's backends with their parent)
    const cpuNow = () => ({ api: cpuMs(pids.api), worker: pids.worker ? cpuMs(pids.worker) : 0, client: process.cpuUsage(), postgres: postgresCpuMs() });
    const reportCpuPerWrite = (name: string, from: ReturnType<typeof cpuNow>, writes: number) => {
      const to = cpuNow();
      const own = process.cpuUsage(from.client);
      // in one process, the API's and the worker's together
      report(`${name}_cpu_per_write_api`, (to.api - from.api) / writes, 'ms', 'informational');
      if (pids.worker) report(`${name}_cpu_per_write_worker`, (to.worker - from.worker) / writes, 'ms', 'informational');
      report(`${name}_cpu_per_write_client`, (own.user + own.system) / 1000 / writes, 'ms', 'informational');
      report(`${name}_cpu_per_write_postgres`, (to.postgres - from.postgres) / writes, 'ms', 'informational');
    };
    const burstCpu0 = cpuNow();
    let t = performance.now();
    // when each write finished: a process just started runs its first writes in the engine's slower
    // tiers, and the burst's first and last thousand show how much of it that is
    const finished: number[] = [];
    await pool(ids, async (i) => {
      await put(base, `/api/v1/namespaces/${teamOf(i)}/httproutes/r-${i}`, httpRoute(i, 'shared', `/svc-${i}`));
      finished.push(performance.now());
    });
    const burstS = (performance.now() - t) / 1000;
    report(label('burst_writes_per_second'), ROUTES / burstS, 'writes/s', mode === 'single' ? '>= 1500 writes/s' : 'informational');
    if (ROUTES >= 3000) {
      report(label('burst_writes_per_second_first_1000'), 1000 / ((finished[999] - t) / 1000), 'writes/s', 'informational');
      report(label('burst_writes_per_second_last_1000'), 1000 / ((finished[ROUTES - 1] - finished[ROUTES - 1001]) / 1000), 'writes/s', 'informational');
    }
    reportCpuPerWrite(label('burst'), burstCpu0, ROUTES);
    await reconciledLong(client);
    report(label('burst_reconciled_after'), (performance.now() - t) / 1000, 's', 'informational');
    if (process.env.BENCH_STOP_AFTER === 'burst') return;

    // propagation of one-route changes to a delta watch and a whole-snapshot watch
    const full = await request(base, 'GET', SNAP);
    report(label('snapshot_bytes'), full.body.length / 1024, 'KiB', 'informational');
    const waiting = new Map<string, (at: number, bytes: number) => void>();
    // the delta watch's last event is of the version served now: the subscribers below resume
    // from it, and nothing here asks the API for a whole table it holds no body of
    let lastDeltaId = -1;
    const arrivals = (kind: string) => (id: number, _event: string, block: string, at: number) => {
      if (kind === 'delta:') lastDeltaId = Math.max(lastDeltaId, id);
      for (const [marker, done] of waiting) if (marker.startsWith(kind) && block.includes(marker.slice(kind.length))) {
        waiting.delete(marker);
        done(at, block.length);
      }
    };
    const v0 = versionOf(full.body);
    lastDeltaId = v0;
    watches.push(await sseWatch(base, `${SNAP}/watch?delta=true`, { auth: AUTH, headers: { 'last-event-id': String(v0) } }, arrivals('delta:')));
    if (WHOLE_WATCH) watches.push(await sseWatch(base, `${SNAP}/watch`, { auth: AUTH, headers: { 'last-event-id': String(v0) } }, arrivals('whole:')));
    const deltaMs: number[] = [];
    const wholeMs: number[] = [];
    const deltaBytes: number[] = [];
    // with BENCH_SERIES=1, what the service's processes spent during each change: CPU and page faults
    const spent: { cpu: number; faults: number }[] = [];
    const serviceNow = () => {
      const ps = [pids.api, pids.worker].filter((p): p is number => p !== undefined);
      return { cpu: ps.reduce((t, p) => t + cpuMs(p), 0), faults: ps.reduce((t, p) => t + minorFaults(p), 0) };
    };
    const cpu0 = { api: cpuMs(pids.api), worker: pids.worker ? cpuMs(pids.worker) : 0 };
    for (let n = 0; n < CHANGES; n++) {
      const i = Math.floor(Math.random() * ROUTES);
      const path = `/svc-${i}/c${n}`;
      const arrive = (kind: string) => new Promise<{ at: number; bytes: number }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`change ${path} did not reach the ${kind} watch within ${ARRIVAL_S} s`)), ARRIVAL_S * 1000);
        waiting.set(`${kind}:"${path}"`, (at, bytes) => { clearTimeout(timer); resolve({ at, bytes }); });
      });
      const both = Promise.all([arrive('delta'), WHOLE_WATCH ? arrive('whole') : Promise.resolve({ at: NaN, bytes: 0 })]);
      both.catch(() => undefined); // a time-out while the write is still under way is reported below, with the clean-up
      const before = process.env.BENCH_SERIES === '1' ? serviceNow() : undefined;
      const written = await put(base, `/api/v1/namespaces/${teamOf(i)}/httproutes/r-${i}`, httpRoute(i, 'shared', path));
      const [d, w] = await both;
      if (before) {
        const after = serviceNow();
        spent.push({ cpu: after.cpu - before.cpu, faults: after.faults - before.faults });
      }
      deltaMs.push(d.at - written);
      if (WHOLE_WATCH) wholeMs.push(w.at - written);
      deltaBytes.push(d.bytes);
      await new Promise((r) => setTimeout(r, 20));
    }
    // BENCH_SERIES=1: each change's write to delta watch time, in the order written (where the slow ones fall)
    if (process.env.BENCH_SERIES === '1') {
      console.log(`${label('propagation_delta_series')}: ${deltaMs.map((m) => m.toFixed(1)).join(' ')} ms`);
      // the service's CPU over each change, from its write to the delta's arrival (in ms, counted in the kernel's ticks of 10 ms), and its page faults
      console.log(`${label('propagation_series_service_cpu')}: ${spent.map((s) => s.cpu.toFixed(0)).join(' ')} ms`);
      console.log(`${label('propagation_series_service_page_faults')}: ${spent.map((s) => s.faults).join(' ')}`);
    }
    const cpu = { api: (cpuMs(pids.api) - cpu0.api) / CHANGES, worker: pids.worker ? (cpuMs(pids.worker) - cpu0.worker) / CHANGES : 0 };
    for (const l of [deltaMs, wholeMs, deltaBytes]) l.sort((a, b) => a - b);
    report(label('propagation_delta_p50'), percentile(deltaMs, 50), 'ms', ROUTES >= 50_000 ? 'informational' : '<= 20 ms');
    report(label('propagation_delta_p99'), percentile(deltaMs, 99), 'ms', ROUTES >= 50_000 ? '<= 100 ms' : '<= 50 ms');
    if (WHOLE_WATCH) report(label('propagation_whole_p50'), percentile(wholeMs, 50), 'ms', 'informational');
    report(label('delta_event_bytes_p50'), percentile(deltaBytes, 50), 'B', '<= 4096 B');
    report(label('delta_event_bytes_max'), deltaBytes[deltaBytes.length - 1], 'B', '<= 4096 B');
    report(label('cpu_per_change_api'), cpu.api, 'ms', 'informational');
    if (pids.worker) report(label('cpu_per_change_worker'), cpu.worker, 'ms', 'informational');
    report(label('rss_api_after_changes'), rssMB(pids.api), 'MB', 'informational');
    if (pids.worker) report(label('rss_worker_after_changes'), rssMB(pids.worker), 'MB', 'informational');
    if (process.env.BENCH_STOP_AFTER === 'changes') { await new Promise((r) => setTimeout(r, Number(process.env.BENCH_HOLD_MS ?? 0))); return; }
    // right after a run of changes the heaps hold what the collector has not given back yet (more
    // so on a loaded machine): the target is read against the reading after some quiet seconds
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    report(label('rss_api'), rssMB(pids.api), 'MB', ROUTES >= 50_000 ? '<= 500 MB' : 'informational');
    if (pids.worker) report(label('rss_worker'), rssMB(pids.worker), 'MB', ROUTES >= 50_000 ? '<= 500 MB' : 'informational');
    for (const w of watches.splice(0)) w.close();

    // many delta subscribers at the current version (as proxies resuming), one change
    const v1 = lastDeltaId;
    let reached = 0;
    let last = 0;
    let allReached: () => void = () => undefined;
    const everyone = new Promise<void>((r) => (allReached = r));
    const marker = `/svc-0/fanout`;
    for (let k = 0; k < SUBSCRIBERS; k += 100) {
      await Promise.all(Array.from({ length: Math.min(100, SUBSCRIBERS - k) }, () =>
        sseWatch(base, `${SNAP}/watch?delta=true`, { auth: AUTH, headers: { 'last-event-id': String(v1) } }, (_id, _e, block, at) => {
          if (!block.includes(marker)) return;
          last = Math.max(last, at);
          if (++reached === SUBSCRIBERS) allReached();
        }).then((w) => watches.push(w))));
    }
    await new Promise((r) => setTimeout(r, 500));
    const written = await put(base, `/api/v1/namespaces/${teamOf(0)}/httproutes/r-0`, httpRoute(0, 'shared', marker));
    await Promise.race([everyone, new Promise((r) => setTimeout(r, 30_000))]);
    report(label(`fanout_${SUBSCRIBERS}_subscribers_all_reached`), reached === SUBSCRIBERS ? last - written : Infinity, 'ms', '<= 1000 ms');
    report(label('rss_api_with_subscribers'), rssMB(pids.api), 'MB', 'informational');
    for (const w of watches.splice(0)) w.close();

    // 1,000 routes on 10 more Gateways, all attached
    await pool(Array.from({ length: 10 }, (_, g) => g), (g) => put(base, `/api/v1/namespaces/infra/gateways/gw-${g}`, gatewayBody()));
    await reconciledLong(client);
    const attachCpu0 = cpuNow();
    t = performance.now();
    await pool(Array.from({ length: 1000 }, (_, k) => ROUTES + k), (i) => put(base, `/api/v1/namespaces/${teamOf(i)}/httproutes/r-${i}`, httpRoute(i, `gw-${i % 10}`, `/svc-${i}`)));
    report(`${mode}_attach_1000_routes_writes_alone`, (performance.now() - t) / 1000, 's', 'informational');
    await reconciledLong(client);
    report(`${mode}_attach_1000_routes_on_10_gateways`, (performance.now() - t) / 1000, 's', '<= 1 s');
    reportCpuPerWrite(`${mode}_attach_1000_routes`, attachCpu0, 1000);

    // the same as a GitOps sync posts it: 1,000 routes on 10 more Gateways in one apply
    await pool(Array.from({ length: 10 }, (_, g) => g), (g) => put(base, `/api/v1/namespaces/infra/gateways/gw-a${g}`, gatewayBody()));
    await reconciledLong(client);
    const items = Array.from({ length: 1000 }, (_, k) => {
      const i = ROUTES + 1000 + k;
      const route = httpRoute(i, `gw-a${i % 10}`, `/svc-${i}`);
      return { ...route, metadata: { ...route.metadata, namespace: teamOf(i) } };
    });
    const applyCpu0 = cpuNow();
    t = performance.now();
    const applied = await request(base, 'POST', '/api/v1/apply', { items });
    if (applied.status !== 200) throw new Error(`apply: ${applied.status} ${applied.body.slice(0, 500)}`);
    report(`${mode}_apply_1000_routes_write_alone`, (performance.now() - t) / 1000, 's', 'informational');
    await reconciledLong(client);
    report(`${mode}_apply_1000_routes_on_10_gateways_attached`, (performance.now() - t) / 1000, 's', '<= 1 s');
    reportCpuPerWrite(`${mode}_apply_1000_routes`, applyCpu0, 1000);
  } finally {
    for (const w of watches) w.close();
    await client.end().catch(() => undefined);
    if (process.env.BENCH_DUMP) { (await import('node:fs')).writeFileSync(`${process.env.BENCH_DUMP}-${mode}-api.txt`, api.output()); if (worker) (await import('node:fs')).writeFileSync(`${process.env.BENCH_DUMP}-${mode}-worker.txt`, worker.output()); }
    await api.stop();
    await worker?.stop();
    await db.drop();
    await dropRedisPrefix(REDIS_URL, prefix);
  }
}

for (const mode of MODES) await run(mode);
agent.destroy();
