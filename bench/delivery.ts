// `npm run bench:delivery`: delivery to proxies with one API and one worker process on the local
// PostgreSQL and Redis. Prints propagation (a write's 200 -> the new version at an SSE subscriber)
// at 1,000 routes on 10 Gateways and 10,000 routes on 100 Gateways, conditional and full GETs per
// second of a 1,000-route snapshot, one change reaching 2,000 SSE subscribers, memory per idle
// subscriber, and the resident memory of both processes at 10,000 routes.
// Informational figures split the propagation (worker: the write's 200 -> the worker's notice on
// Redis; recompute: recomputes.duration_ms; CPU per change of each process) to show where time goes.
// `bench/delivery.ts --subscribers` is the helper process that holds SSE subscribers.
// Knobs: BENCH_CHANGES (150), BENCH_SUBSCRIBERS (2000), BENCH_GET_SECONDS (4); for profiling,
// BENCH_STOP_AFTER=1000, BENCH_KEEP_DB=1, BENCH_RSS_TRACE=<seconds> and BENCH_NODE_OPTIONS (given to the API
// and the worker; with an --import preload they get SIGUSR2 before the 1,000-route propagation and
// at the 10,000-route memory reading, e.g. to start a CPU profile or dump heap statistics).
// BENCH_BASELINE=<commit> compares conditional GETs with that commit's (bench/baseline.ts builds it
// once under the temporary directory): each build's API alone on a database of its own holding the
// same 1,000-route Gateway, measured in turn for BENCH_BASELINE_ROUNDS (6) rounds, the order
// alternating, and the median of the rounds' ratios printed; BENCH_BASELINE_ONLY=1 runs only that. The
// load comes from wrk (32 connections) where it is installed (BENCH_WRK=0: from this process).
import { busChannel } from '../src/adapters/queue/redis-keys';
import { SNAPSHOT_CHANNEL } from '../src/adapters/delivery/channels';
import http from 'node:http';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { BENCH_TOKEN, dropRedisPrefix, freshDatabase, oneGatewayFigures, percentile, report, startService, timedClient, workerNodeFlags, cpuMs, reconciled, sseWatch, type SseWatch } from './support';
import { ROOT } from '../test/support/process';
import { httpRoute as largeGatewayRoute, teamOf } from './large-gateway';
import { baselineTree, startBaseline } from './baseline';

const ROUTES_PER_GATEWAY = 100;
const CHANGES = Number(process.env.BENCH_CHANGES ?? 150);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 2000);
const SUBSCRIBER_PROCESSES = 2;
const GET_SECONDS = Number(process.env.BENCH_GET_SECONDS ?? 4);
const GET_CONCURRENCY = 8;
const SEED_CONCURRENCY = 32;
const GW = 'gateway.networking.k8s.io/v1';
const AUTH = `Bearer ${BENCH_TOKEN}`;
const STOP_AFTER = process.env.BENCH_STOP_AFTER;
const SETTLE_MS = 30_000;
const CHILD_NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {};

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// The subscriber process: opens N watches of one Gateway, reports when all have the current
// version, then when all have the next one.

async function subscriberMain(): Promise<void> {
  const [base, path, countRaw] = process.argv.slice(process.argv.indexOf('--subscribers') + 1);
  const count = Number(countRaw);
  const latest = new Array<number>(count).fill(-1);
  const arrival = new Array<number>(count).fill(0);
  const watches: SseWatch[] = [];
  let target = Infinity;
  let reached = 0;
  let readyCount = 0;
  const send = (m: unknown) => process.send!(m);
  const onEvent = (k: number) => (id: number, _event: string, _block: string, at: number) => {
    const before = latest[k];
    latest[k] = id;
    arrival[k] = at;
    if (before < 0) {
      if (++readyCount === count) send({ type: 'ready', version: id });
    } else if (id >= target && before < target && ++reached === count) {
      const times = arrival.slice();
      send({ type: 'reached', first: Math.min(...times), last: Math.max(...times) });
    }
  };
  process.on('message', (m: { type: string; version?: number }) => {
    if (m.type === 'expect') {
      target = m.version!;
      reached = latest.filter((v) => v >= target).length;
    } else if (m.type === 'exit') {
      for (const w of watches) w.close();
      process.exit(0);
    }
  });
  // open in batches so the listen backlog is not flooded
  for (let i = 0; i < count; i += 100) {
    const batch = [];
    for (let k = i; k < Math.min(count, i + 100); k++) batch.push(sseWatch(base, path, { auth: AUTH }, onEvent(k)).then((w) => watches.push(w)));
    await Promise.all(batch);
  }
  send({ type: 'open', count: watches.length });
}

// ---------------------------------------------------------------------------------------------
// Helpers of the main process.

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

const { request, put } = timedClient(agent, AUTH);

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

const gatewayName = (g: number) => `gw-${g}`;
/** the route of this benchmark: labelled, with a 90/10 split onto another team's Service */
const httpRoute = (i: number, gateway: string, path: string, name?: string) => largeGatewayRoute(i, gateway, path, { name, labelled: true, split: true });

function gatewayBody(listeners = [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }]) {
  return { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners } };
}

/** The fixed part of every world: the class, the Services with their endpoints, and the grants that let a route reach a neighbouring team. */
async function seedBase(base: string): Promise<void> {
  await put(base, '/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  const puts: [string, unknown][] = [];
  for (let t = 0; t < 20; t++) {
    puts.push([`/api/v1/namespaces/team-${t}/referencegrants/from-teams`, {
      apiVersion: 'gateway.networking.k8s.io/v1beta1', kind: 'ReferenceGrant',
      spec: { from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: `team-${(t + 19) % 20}` }], to: [{ group: '', kind: 'Service' }] },
    }]);
  }
  for (let j = 0; j < 100; j++) {
    const ns = teamOf(j);
    puts.push([`/api/v1/namespaces/${ns}/services/svc-${j}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] } }]);
    puts.push([`/api/v1/namespaces/${ns}/endpointslices/svc-${j}-1`, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': `svc-${j}` } }, addressType: 'IPv4',
      endpoints: [0, 1, 2].map((e) => ({ addresses: [`10.${j}.0.${e + 1}`], conditions: { ready: true } })), ports: [{ name: 'http', port: 8080 }],
    }]);
  }
  await pool(puts, SEED_CONCURRENCY, ([p, b]) => put(base, p, b));
}

async function seedGateways(base: string, from: number, to: number): Promise<void> {
  const gws = Array.from({ length: to - from }, (_, k) => from + k);
  await pool(gws, SEED_CONCURRENCY, (g) => put(base, `/api/v1/namespaces/infra/gateways/${gatewayName(g)}`, gatewayBody()));
  const routes: number[] = [];
  for (let i = from * ROUTES_PER_GATEWAY; i < to * ROUTES_PER_GATEWAY; i++) routes.push(i);
  await pool(routes, SEED_CONCURRENCY, (i) => put(base, `/api/v1/namespaces/${teamOf(i)}/httproutes/r-${i}`, httpRoute(i, gatewayName(Math.floor(i / ROUTES_PER_GATEWAY)), `/svc-${i}`)));
}



/** The PostgreSQL backends serving the benchmark's database. */
async function backendPids(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  return rows.map((r) => Number(r.pid));
}

function cpuOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try { out.set(pid, cpuMs(pid)); } catch { /* gone */ }
  }
  return out;
}

/** CPU the backends used between two samples (a backend that ended in between is not counted). */
function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

function rssBytes(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : NaN;
}

/** The median of a few readings over two seconds: a single one may catch a collection under way. */
async function steadyRss(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let k = 0; k < 9; k++) {
    await new Promise((r) => setTimeout(r, 250));
    readings.push(rssBytes(pid));
  }
  return readings.sort((x, y) => x - y)[4];
}

async function startWorker(env: Record<string, string | undefined>): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  const child = spawn(process.execPath, [...workerNodeFlags(), ...(process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', join(ROOT, 'workers/reconcile.ts')], {
    cwd: ROOT, env: { ...clean, ADMIN_TOKEN: BENCH_TOKEN, LOG_LEVEL: 'info', WORKER_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolveStart, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (out.includes('switchyard worker running')) resolveStart();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}):\n${out}`)));
  });
  child.removeAllListeners('exit');
  // keep draining its output (warnings) so the pipe never fills
  return {
    child,
    stop: () => new Promise((res) => {
      if (child.exitCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
    }),
  };
}

/** When the worker's "snapshot changed" notices appear on Redis, by "ns/name@version": splits propagation into worker and API. */
const notices = new Map<string, number>();

interface Propagation { total: number[]; worker: number[]; api: number[]; recompute: number[]; cpu: { worker: number; api: number; postgres: number } }

/** Changes one route at a time and measures the write's 200 -> the new version at the Gateway's SSE subscriber. */
async function propagation(base: string, client: pg.Client, pids: { api: number; worker: number }, gateways: number, changes: number, round: number): Promise<Propagation> {
  const waiting = new Map<number, { marker: string; resolve: (at: number, id: number) => void }>();
  const watches: SseWatch[] = [];
  const ready: Promise<void>[] = [];
  for (let g = 0; g < gateways; g++) {
    let first: () => void;
    ready.push(new Promise((r) => (first = r)));
    let seen = false;
    watches.push(await sseWatch(base, `/api/v1/namespaces/infra/gateways/${gatewayName(g)}/snapshot/watch`, { auth: AUTH }, (id, _event, data, at) => {
      if (!seen) { seen = true; first(); }
      const w = waiting.get(g);
      if (w && data.includes(w.marker)) {
        waiting.delete(g);
        w.resolve(at, id);
      }
    }));
  }
  await Promise.all(ready);
  const out: Propagation = { total: [], worker: [], api: [], recompute: [], cpu: { worker: 0, api: 0, postgres: 0 } };
  const cpu0 = { worker: cpuMs(pids.worker), api: cpuMs(pids.api), postgres: cpuOf(await backendPids(client)) };
  try {
    for (let n = 0; n < changes; n++) {
      const i = Math.floor(Math.random() * gateways * ROUTES_PER_GATEWAY);
      const g = Math.floor(i / ROUTES_PER_GATEWAY);
      const path = `/svc-${i}/c${round}-${n}`;
      const arrived = new Promise<{ at: number; id: number }>((resolveArrival, reject) => {
        const t = setTimeout(() => reject(new Error(`change ${path} did not arrive within 10 s`)), 10_000);
        waiting.set(g, { marker: `"${path}"`, resolve: (at, id) => { clearTimeout(t); resolveArrival({ at, id }); } });
      });
      const written = await put(base, `/api/v1/namespaces/${teamOf(i)}/httproutes/r-${i}`, httpRoute(i, gatewayName(g), path));
      const { at, id } = await arrived;
      out.total.push(Math.max(0, at - written));
      const noticed = notices.get(`infra/${gatewayName(g)}@${id}`);
      if (noticed !== undefined) {
        out.worker.push(Math.max(0, noticed - written));
        out.api.push(Math.max(0, at - noticed));
      }
      const { rows } = await client.query(`SELECT duration_ms FROM recomputes WHERE gateway LIKE $1`, [`%Gateway/infra/${gatewayName(g)}`]);
      if (rows[0]?.duration_ms != null) out.recompute.push(Number(rows[0].duration_ms));
      await new Promise((r) => setTimeout(r, 20)); // let the worker settle (status writes of the last change)
    }
  } finally {
    for (const w of watches) w.close();
  }
  out.cpu = {
    worker: (cpuMs(pids.worker) - cpu0.worker) / changes,
    api: (cpuMs(pids.api) - cpu0.api) / changes,
    postgres: cpuDelta(cpu0.postgres, cpuOf(await backendPids(client))) / changes,
  };
  for (const l of [out.total, out.worker, out.api, out.recompute]) l.sort((a, b) => a - b);
  return out;
}

function reportPropagation(label: string, p: Propagation, targets: { p50: string; p99: string }): void {
  report(`propagation_${label}_p50`, percentile(p.total, 50), 'ms', targets.p50);
  report(`propagation_${label}_p99`, percentile(p.total, 99), 'ms', targets.p99);
  // where the time goes: the write's 200 -> the worker's notice on Redis -> the SSE subscriber
  report(`propagation_${label}_worker_p50`, percentile(p.worker, 50), 'ms', 'informational');
  report(`propagation_${label}_api_p50`, percentile(p.api, 50), 'ms', 'informational');
  // the worker's part of it spent in the recompute itself (load, translate, compile, write)
  report(`propagation_${label}_recompute_p50`, percentile(p.recompute, 50), 'ms', 'informational');
  // CPU used per change, whatever else runs on the machine (the worker's includes the changes' writes' dispatch)
  report(`propagation_${label}_cpu_per_change_worker`, p.cpu.worker, 'ms', 'informational');
  report(`propagation_${label}_cpu_per_change_api`, p.cpu.api, 'ms', 'informational');
  report(`propagation_${label}_cpu_per_change_postgres`, p.cpu.postgres, 'ms', 'informational');
}

/** Requests per second of GET snapshot with GET_CONCURRENCY keep-alive loops (and how many were answered). */
async function getRate(base: string, path: string, headers: Record<string, string>, expect: number, seconds: number): Promise<number> {
  return (await getRun(base, path, headers, expect, seconds)).rate;
}

async function getRun(base: string, path: string, headers: Record<string, string>, expect: number, seconds: number): Promise<{ rate: number; count: number }> {
  const a = new http.Agent({ keepAlive: true, maxSockets: GET_CONCURRENCY });
  const one = () => new Promise<void>((res, rej) => {
    const req = http.get(base + path, { agent: a, headers: { authorization: AUTH, ...headers } }, (r) => {
      if (r.statusCode !== expect) rej(new Error(`GET ${path}: ${r.statusCode}, expected ${expect}`));
      r.on('data', () => undefined);
      r.on('end', res);
    });
    req.on('error', rej);
  });
  const loop = async (until: number) => {
    let n = 0;
    while (performance.now() < until) { await one(); n++; }
    return n;
  };
  await Promise.all(Array.from({ length: GET_CONCURRENCY }, () => loop(performance.now() + 500)));
  const t0 = performance.now();
  const counts = await Promise.all(Array.from({ length: GET_CONCURRENCY }, () => loop(t0 + seconds * 1000)));
  const elapsed = (performance.now() - t0) / 1000;
  a.destroy();
  const count = counts.reduce((x, y) => x + y, 0);
  return { rate: count / elapsed, count };
}

// wrk (Debian's), a C client, leaves more of a small machine's cores to the server than a Node loop does
const WRK = process.env.BENCH_WRK !== '0' && spawnSync('wrk', ['--version']).error === undefined;
const WRK_CONNECTIONS = 32;

/** `seconds` of wrk against one URL: the rate and the count of answers. A first GET checks the answer is `expect`;
 * wrk itself counts any 4xx or 5xx after it, and one fails the run. */
async function wrkRun(url: string, headers: Record<string, string>, expect: number, seconds: number): Promise<{ rate: number; count: number }> {
  const first = await fetch(url, { headers: { authorization: AUTH, ...headers } });
  await first.arrayBuffer();
  if (first.status !== expect) throw new Error(`GET ${url}: ${first.status}, expected ${expect}`);
  const args = ['-t', '1', '-c', String(WRK_CONNECTIONS), '-d', `${seconds}s`, '-H', `authorization: ${AUTH}`];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const out = execFileSync('wrk', [...args, url], { encoding: 'utf8' });
  const count = Number(/(\d+) requests in/.exec(out)?.[1]);
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  if (!(count > 0) || /Non-2xx or 3xx responses|Socket errors/.test(out)) throw new Error(`wrk against ${url}:\n${out}`);
  return { rate, count };
}

interface SubscriberProc {
  child: ChildProcess;
  next(type: string): Promise<any>;
}

function startSubscribers(base: string, path: string, count: number): SubscriberProc {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/delivery.ts'), '--subscribers', base, path, String(count)], {
    cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: any[] = [];
  const waiters: (() => void)[] = [];
  child.on('message', (m) => { inbox.push(m); for (const w of waiters.splice(0)) w(); });
  return {
    child,
    async next(type) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const k = inbox.findIndex((m) => m.type === type);
        if (k >= 0) return inbox.splice(k, 1)[0];
        if (child.exitCode !== null) throw new Error(`subscriber process exited (${child.exitCode})`);
        if (Date.now() > deadline) throw new Error(`subscriber process: no "${type}" in time`);
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 500); });
      }
    },
  };
}

const BIG_SNAPSHOT = '/api/v1/namespaces/infra/gateways/big/snapshot';

/** The Gateway "big" with 1,000 routes of its own. */
async function seedBig(base: string): Promise<void> {
  await put(base, '/api/v1/namespaces/infra/gateways/big', gatewayBody());
  const bigRoutes = Array.from({ length: 1000 }, (_, k) => 100_000 + k);
  await pool(bigRoutes, SEED_CONCURRENCY, (i) => put(base, `/api/v1/namespaces/${teamOf(i)}/httproutes/r-${i}`, httpRoute(i, 'big', `/big-${i}`)));
}

/** The ETag of the big snapshot once it holds all 1,000 routes (a build's own API says when its worker is done). */
async function bigSnapshotEtag(base: string, timeoutMs = 180_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await request(base, 'GET', BIG_SNAPSHOT);
    if (r.status === 200 && new Set(r.body.match(/"r-1\d{5}"/g)).size === 1000) return `"${JSON.parse(r.body).version}"`;
    if (Date.now() > deadline) throw new Error(`${base}: the big snapshot did not hold 1,000 routes within ${timeoutMs / 1000} s (last answer ${r.status})`);
    await new Promise((res) => setTimeout(res, 500));
  }
}

/**
 * Conditional GETs of ours against an older commit's (BENCH_BASELINE): each build's API and worker
 * on a fresh database of their own, seeded alike; the workers stopped once the snapshot is
 * compiled, so that each API runs alone; then the two measured in turn, the order alternating
 * (ABBA) so that neither always runs in the other's wake on a machine whose load drifts.
 */
async function baselineComparison(ref: string): Promise<void> {
  const tree = baselineTree(ref);
  const short = tree.commit.slice(0, 7);
  const rounds = Number(process.env.BENCH_BASELINE_ROUNDS ?? 6);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const dbs: Awaited<ReturnType<typeof freshDatabase>>[] = [];
  const prefixes: string[] = [];
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const world = async () => {
      const db = await freshDatabase();
      dbs.push(db);
      const prefix = `sy-bench-${randomBytes(4).toString('hex')}`;
      prefixes.push(prefix);
      // a commit from before REDIS_PREFIX keeps its keys under its fixed prefix
      return { DATABASE_URL: db.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, ...CHILD_NODE_OPTIONS };
    };
    const oursEnv = await world();
    const theirsEnv = await world();
    const ours = await startService({ ...oursEnv }, 'src/main.ts', ['--role=api']);
    stops.push(() => ours.stop());
    const oursWorker = await startWorker(oursEnv);
    stops.push(() => oursWorker.stop());
    // the settings startService gives ours (a warn log level, no rate limit in the way)
    const theirs = await startBaseline(tree, 'api', { ...theirsEnv, ADMIN_TOKEN: BENCH_TOKEN, LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000' });
    stops.push(() => theirs.stop());
    const theirsWorker = await startBaseline(tree, 'worker', { ...theirsEnv, ADMIN_TOKEN: BENCH_TOKEN, LOG_LEVEL: 'info' });
    stops.push(() => theirsWorker.stop());
    for (const base of [ours.url, theirs.url]) {
      await seedBase(base);
      await seedBig(base);
    }
    const etags = [await bigSnapshotEtag(ours.url), await bigSnapshotEtag(theirs.url)];
    await oursWorker.stop();
    await theirsWorker.stop();
    const apis = [{ url: ours.url, pid: ours.child.pid!, etag: etags[0] }, { url: theirs.url, pid: theirs.child.pid!, etag: etags[1] }];
    const measure = async (k: number, seconds: number) => {
      const cpu0 = cpuMs(apis[k].pid);
      const headers = { 'if-none-match': apis[k].etag };
      const run = WRK ? await wrkRun(apis[k].url + BIG_SNAPSHOT, headers, 304, seconds) : await getRun(apis[k].url, BIG_SNAPSHOT, headers, 304, seconds);
      return { rate: run.rate, cpuUs: ((cpuMs(apis[k].pid) - cpu0) * 1000) / run.count };
    };
    // warm both (the engine's optimizing tiers), then the rounds
    for (const k of [0, 1]) await measure(k, 2);
    const got: { rate: number; cpuUs: number }[][] = [[], []];
    for (let r = 0; r < rounds; r++) for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) got[k].push(await measure(k, GET_SECONDS));
    const median = (xs: number[]) => percentile([...xs].sort((x, y) => x - y), 50);
    const ratios = got[0].map((o, r) => o.rate / got[1][r].rate);
    const cpuRatios = got[0].map((o, r) => got[1][r].cpuUs / o.cpuUs);
    console.log(`# conditional GETs of a 1,000-route snapshot, ours and ${short}'s, each API alone, ${rounds} alternating rounds of ${GET_SECONDS} s, load from ${WRK ? `wrk (${WRK_CONNECTIONS} connections)` : `this process (${GET_CONCURRENCY} at a time)`}`);
    report('conditional_gets_per_second_ours', Math.round(median(got[0].map((g) => g.rate))), 'req/s', 'informational');
    report(`conditional_gets_per_second_${short}`, Math.round(median(got[1].map((g) => g.rate))), 'req/s', 'informational');
    report(`conditional_gets_vs_${short}`, median(ratios), 'ratio', '>= 1.0');
    console.log(`# per round: ${ratios.map((x) => x.toFixed(2)).join(' ')}`);
    // CPU the API spent per answer: steadier than the rate on a loaded machine, which shares the cores out unevenly
    report('conditional_get_cpu_ours', median(got[0].map((g) => g.cpuUs)), 'µs', 'informational');
    report(`conditional_get_cpu_${short}`, median(got[1].map((g) => g.cpuUs)), 'µs', 'informational');
    report(`conditional_get_cpu_${short}_vs_ours`, median(cpuRatios), 'ratio', 'informational');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    for (const db of dbs) await db.drop().catch(() => undefined);
    for (const prefix of prefixes) await dropRedisPrefix(redisUrl, prefix).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const db = await freshDatabase();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  // the run's own prefix on the shared Redis, so that the bench can listen to its notices
  const prefix = `sy-bench-${randomBytes(4).toString('hex')}`;
  const common = { DATABASE_URL: db.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, ...CHILD_NODE_OPTIONS };
  const client = new pg.Client({ connectionString: db.url });
  let api: Awaited<ReturnType<typeof startService>> | undefined;
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  const subs: SubscriberProc[] = [];
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  redis.on('message', (_channel: string, message: string) => {
    const at = now();
    try {
      // after the deployment's stamp, the notice's first line (a body may follow it)
      const notice = message.slice(message.indexOf('\n') + 1);
      const nl = notice.indexOf('\n');
      const { gateway, version } = JSON.parse(nl < 0 ? notice : notice.slice(0, nl)) as { gateway: string; version: number };
      notices.set(`${gateway}@${version}`, at);
    } catch { /* not ours */ }
  });
  await redis.subscribe(busChannel(prefix, SNAPSHOT_CHANNEL));
  try {
    api = await startService({ ...common, MAX_SSE_PER_TOKEN: '100000', BODY_LIMIT_BYTES: String(8 * 1024 * 1024) }, 'src/main.ts', ['--role=api']);
    worker = await startWorker(common);
    await client.connect();
    const base = api.url;
    const apiPid = api.child.pid!;
    const workerPid = worker.child.pid!;

    await new Promise((r) => setTimeout(r, 1000));
    report('api_rss_at_start', rssBytes(apiPid) / 1e6, 'MB', 'informational');
    report('worker_rss_at_start', rssBytes(workerPid) / 1e6, 'MB', 'informational');

    // 1,000 routes on 10 Gateways
    let s = Date.now();
    await seedBase(base);
    await seedGateways(base, 0, 10);
    await reconciled(client);
    report('seed_1000_routes_reconciled', (Date.now() - s) / 1000, 's', 'informational');
    // what the processes burn with nothing to do (notices of other services on the same Redis wake them)
    const idle0 = { worker: cpuMs(workerPid), api: cpuMs(apiPid) };
    await new Promise((r) => setTimeout(r, 2000));
    report('idle_cpu_worker', (cpuMs(workerPid) - idle0.worker) / 2000 * 100, '%', 'informational');
    report('idle_cpu_api', (cpuMs(apiPid) - idle0.api) / 2000 * 100, '%', 'informational');
    if (process.env.BENCH_NODE_OPTIONS?.includes('--import')) for (const pid of [apiPid, workerPid]) process.kill(pid, 'SIGUSR2'); // a profiler preload may start here
    reportPropagation('1000_routes', await propagation(base, client, { api: apiPid, worker: workerPid }, 10, CHANGES, 1), { p50: '<= 20 ms', p99: '<= 50 ms' });
    if (STOP_AFTER === '1000') {
      if (process.env.BENCH_NODE_OPTIONS?.includes('--import')) for (const pid of [apiPid, workerPid]) process.kill(pid, 'SIGUSR2');
      await new Promise((r) => setTimeout(r, 1000));
      return;
    }

    // 10,000 routes on 100 Gateways
    s = Date.now();
    await seedGateways(base, 10, 100);
    await reconciled(client);
    report('seed_10000_routes_reconciled', (Date.now() - s) / 1000, 's', 'informational');
    reportPropagation('10000_routes', await propagation(base, client, { api: apiPid, worker: workerPid }, 100, CHANGES, 2), { p50: 'informational', p99: '<= 100 ms' });
    await reconciled(client);
    if (process.env.BENCH_NODE_OPTIONS?.includes('--import')) for (const pid of [apiPid, workerPid]) process.kill(pid, 'SIGUSR2'); // a memory-dump preload may write here
    if (process.env.BENCH_RSS_TRACE) for (let k = 0; k < Number(process.env.BENCH_RSS_TRACE); k++) {
      console.error(`rss after ${k} s: api ${(rssBytes(apiPid) / 1e6).toFixed(0)} worker ${(rssBytes(workerPid) / 1e6).toFixed(0)} MB`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    // Right after the burst of writes the heaps still hold what the collector has not given back;
    // V8 shrinks them once allocation has been low for some seconds. Both readings are printed:
    // the target is read against the settled one, 30 s after the last change.
    report('api_rss_10000_routes_after_burst', rssBytes(apiPid) / 1e6, 'MB', 'informational');
    report('worker_rss_10000_routes_after_burst', rssBytes(workerPid) / 1e6, 'MB', 'informational');
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    report('api_rss_10000_routes', rssBytes(apiPid) / 1e6, 'MB', '<= 300 MB');
    report('worker_rss_10000_routes', rssBytes(workerPid) / 1e6, 'MB', '<= 300 MB');
    const metrics = (await request(base, 'GET', '/metrics')).body;
    const metric = (name: string) => Number(metrics.match(new RegExp(`^${name} (\\S+)`, 'm'))?.[1]);
    report('api_heap_used_10000_routes', metric('nodejs_heap_size_used_bytes') / 1e6, 'MB', 'informational');

    // 2,000 SSE subscribers of a small Gateway, held by separate processes
    await put(base, '/api/v1/namespaces/infra/gateways/small', gatewayBody());
    await put(base, '/api/v1/namespaces/team-0/httproutes/small', httpRoute(0, 'small', '/small', 'small'));
    await reconciled(client);
    const watchPath = '/api/v1/namespaces/infra/gateways/small/snapshot/watch';
    const rssBefore = await steadyRss(apiPid);
    const per = Math.ceil(SUBSCRIBERS / SUBSCRIBER_PROCESSES);
    for (let k = 0; k < SUBSCRIBER_PROCESSES; k++) subs.push(startSubscribers(base, watchPath, Math.min(per, SUBSCRIBERS - k * per)));
    const readies = await Promise.all(subs.map((p) => p.next('ready')));
    const rssIdle = await steadyRss(apiPid);
    report('memory_per_idle_subscriber', (rssIdle - rssBefore) / SUBSCRIBERS / 1024, 'KiB', '<= 64 KiB');
    const version = Math.max(...readies.map((r) => r.version));
    for (const p of subs) p.child.send({ type: 'expect', version: version + 1 });
    const written = await put(base, '/api/v1/namespaces/team-0/httproutes/small', httpRoute(0, 'small', '/small-changed', 'small'));
    const reached = await Promise.all(subs.map((p) => p.next('reached')));
    const first = Math.min(...reached.map((r) => r.first));
    const last = Math.max(...reached.map((r) => r.last));
    report('fanout_2000_subscribers_all_reached', last - written, 'ms', '<= 1000 ms');
    report('fanout_2000_subscribers_first_to_last', last - first, 'ms', 'informational');
    for (const p of subs) p.child.send({ type: 'exit' });

    // GETs of a 1,000-route snapshot: one more Gateway with 1,000 routes of its own
    await seedBig(base);
    await reconciled(client);
    const snapPath = BIG_SNAPSHOT;
    const full = await request(base, 'GET', snapPath);
    if (full.status !== 200) throw new Error(`GET ${snapPath}: ${full.status}`);
    const snap = JSON.parse(full.body);
    const routeCount = new Set(JSON.stringify(snap.table).match(/"r-1\d{5}"/g)).size;
    if (routeCount !== 1000) throw new Error(`the big snapshot holds ${routeCount} routes, expected 1000`);
    const etag = `"${snap.version}"`;
    report('snapshot_1000_routes_body', full.body.length / 1024, 'KiB', 'informational');
    report('conditional_gets_per_second', Math.round(await getRate(base, snapPath, { 'if-none-match': etag }, 304, GET_SECONDS)), 'req/s', '>= 3000 req/s');
    report('full_gets_per_second', Math.round(await getRate(base, snapPath, {}, 200, GET_SECONDS)), 'req/s', 'informational');
    report('bench_duration', (Date.now() - t0) / 1000, 's', 'informational');
  } finally {
    // each step bounded, so that the database is dropped whatever went wrong
    const bounded = async (p: Promise<unknown> | undefined, child?: ChildProcess) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.resolve(p).catch(() => undefined),
        new Promise<void>((r) => { timer = setTimeout(() => { child?.kill('SIGKILL'); r(); }, 10_000); }),
      ]);
      clearTimeout(timer);
    };
    for (const p of subs) if (p.child.exitCode === null && p.child.connected) p.child.send({ type: 'exit' });
    await Promise.all(subs.map((p) => bounded(new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r))), p.child)));
    await bounded(client.end());
    redis.disconnect();
    await bounded(api?.stop(), api?.child);
    await bounded(worker?.stop(), worker?.child);
    agent.destroy();
    if (process.env.BENCH_KEEP_DB) console.error(`database kept: ${db.url}`);
    else await db.drop();
    // the queue's keys under the run's prefix go with it (the Redis is shared)
    await bounded(dropRedisPrefix(redisUrl, prefix));
  }
}

if (process.argv.includes('--subscribers')) await subscriberMain();
else if (process.env.BENCH_BASELINE_ONLY === '1') {
  if (!process.env.BENCH_BASELINE) throw new Error('BENCH_BASELINE_ONLY=1 needs BENCH_BASELINE=<commit>');
  await baselineComparison(process.env.BENCH_BASELINE);
} else {
  await main();
  if (process.env.BENCH_BASELINE && process.env.BENCH_STOP_AFTER === undefined) await baselineComparison(process.env.BENCH_BASELINE);
  if (process.env.BENCH_STOP_AFTER === undefined) await oneGatewayFigures();
}
