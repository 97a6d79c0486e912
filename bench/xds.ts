// `npm run bench:xds`: delivery over xDS (ADS) on the local PostgreSQL and Redis, the API and the
// worker as separate processes (`src/main.ts --role=api` + `workers/reconcile.ts`) and in one process
// as `npm start` runs them (`src/main.ts`). Prints, with targets:
// - a GRPCRoute created -> the first call of a @grpc/grpc-js-xds client routed by it (p50, p99), with
//   1,000 routes on 10 Gateways (each mode); the client's channel to the route's hostname is open
//   before the route exists (its calls answered UNIMPLEMENTED until the route arrives);
// - one Gateway of 5,000 routes, a one-route change: the bytes a delta client subscribed to every
//   hostname is sent (gRPC messages as framed on the wire: 5 bytes each and the encoded message),
//   and the same for a state-of-the-world client, with each one's write -> response time;
// - 10,000 delta streams held by one API process (simulated clients, multiplexed over a few
//   connections), a one-route change (the split of a route between two Services moves) reaching
//   every stream (p99 over every stream and change), and the resident memory of that process.
// Knobs: BENCH_MODES (split,single; the 5,000-route and 10,000-stream figures run in the first),
// BENCH_CHANGES (100: routes created for the first figure), BENCH_BIG_CHANGES (20), BENCH_STREAMS
// (10000), BENCH_CONNECTIONS (8), BENCH_BIG_ROUTES (5000).
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import * as grpc from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BENCH_TOKEN, cpuMs, dropRedisPrefix, figureLine, freshDatabase, percentile, report, reconciled, rssMB, sseWatch, startService, timedClient } from './support';
import { startWorkerProcess } from '../test/support/process';
import { freePort } from '../test/support/server';
import { callOnce, startEcho, type EchoBackend } from '../test/support/grpc-echo';
import { adsService } from '../src/adapters/grpc/ads-service';
import { TYPE_URL } from '../src/core/xds/types';

const MODES = (process.env.BENCH_MODES ?? 'split,single').split(',').filter(Boolean) as ('split' | 'single')[];
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const BIG_CHANGES = Number(process.env.BENCH_BIG_CHANGES ?? 20);
const BIG_ROUTES = Number(process.env.BENCH_BIG_ROUTES ?? 5000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const GATEWAYS = 10;
const ROUTES_PER_GATEWAY = Number(process.env.BENCH_ROUTES_PER_GATEWAY ?? 100);
const SERVICES = 20;
const CONCURRENCY = 32;
const NS = 'bench';
const GW = 'gateway.networking.k8s.io/v1';
const PORT = 8080;
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
const { request, put } = timedClient(agent, `Bearer ${BENCH_TOKEN}`);

async function pool<T>(items: T[], fn: (item: T) => Promise<unknown>, concurrency = CONCURRENCY): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

const cluster = (svc: number) => `${NS}/svc-${svc}:50051`;
const grpcRoute = (gateway: string, host: string, svc: number) => ({
  apiVersion: GW, kind: 'GRPCRoute',
  spec: { parentRefs: [{ name: gateway }], hostnames: [host], rules: [{ matches: [{ method: { service: 'echo.Echo' } }], backendRefs: [{ name: `svc-${svc}`, port: 50051 }] }] },
});
/**
 * The hot route of the 10,000-stream figure: calls split between svc-0 and svc-1, a change moving
 * the split. Its clusters stay what they are, as a proxyless client's subscriptions follow its
 * routes: what each stream is sent is the route configuration.
 */
const hotRoute = (weights: [number, number]) => ({
  apiVersion: GW, kind: 'GRPCRoute',
  spec: { parentRefs: [{ name: 'gw-0' }], hostnames: ['hot.xds.bench'], rules: [{ matches: [{ method: { service: 'echo.Echo' } }], backendRefs: [{ name: 'svc-0', port: 50051, weight: weights[0] }, { name: 'svc-1', port: 50051, weight: weights[1] }] }] },
});
const gatewayBody = () => ({ apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'grpc', port: PORT, protocol: 'HTTP' }] } });

async function seedBase(base: string, backends: EchoBackend[]): Promise<void> {
  await put(base, '/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await pool(Array.from({ length: SERVICES }, (_, j) => j), async (j) => {
    await put(base, `/api/v1/namespaces/${NS}/services/svc-${j}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'grpc', port: 50051 }] } });
    await put(base, `/api/v1/namespaces/${NS}/endpointslices/svc-${j}-1`, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': `svc-${j}` } }, addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'grpc', port: backends[j % backends.length].port }],
    });
  });
}

async function seedRoutes(base: string, gateway: string, prefix: string, n: number): Promise<void> {
  await put(base, `/api/v1/namespaces/${NS}/gateways/${gateway}`, gatewayBody());
  await pool(Array.from({ length: n }, (_, i) => i), (i) => put(base, `/api/v1/namespaces/${NS}/grpcroutes/${prefix}-${i}`, grpcRoute(gateway, `${prefix}-${i}.xds.bench`, i % SERVICES)));
}

async function proxyToken(base: string, gateways: string[]): Promise<string> {
  const r = await request(base, 'POST', '/api/v1/tokens', { name: `xds-bench-${randomBytes(3).toString('hex')}`, role: 'proxy', gateways: gateways.map((g) => `${NS}/${g}`) });
  if (r.status !== 201) throw new Error(`token: ${r.status} ${r.body}`);
  return JSON.parse(r.body).token as string;
}

// ------------------------------------------------------------------ a raw ADS client

/** An ADS service definition whose responses are counted as framed on the wire and stamped when they arrive. */
function countedAds(onMessage: (bytes: number, at: number) => void): grpc.ServiceDefinition {
  const def = adsService() as Record<string, grpc.MethodDefinition<unknown, unknown>>;
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [k, m] of Object.entries(def)) {
    out[k] = { ...m, responseDeserialize: (b: Buffer) => {
      onMessage(b.length + 5, now());
      return m.responseDeserialize(b);
    } };
  }
  return out as unknown as grpc.ServiceDefinition;
}

/**
 * The same, for the streams of the 10,000-stream figure: a response is read only for its type and
 * nonce, and an ACK written by hand, so that the one process simulating ten thousand clients
 * spends as little as it can on each of their messages (the figure is the server's).
 */
function lightAds(onMessage: (at: number) => void): grpc.ServiceDefinition {
  const def = adsService() as Record<string, grpc.MethodDefinition<unknown, unknown>>;
  const m = def.DeltaAggregatedResources;
  const str = (field: number, v: string) => {
    const b = Buffer.from(v);
    return Buffer.concat([Buffer.from([(field << 3) | 2, ...varint(b.length)]), b]);
  };
  return { DeltaAggregatedResources: {
    ...m,
    // DeltaDiscoveryRequest: type_url 2, response_nonce 6
    requestSerialize: (r: any) => (r.node || r.resource_names_subscribe ? m.requestSerialize(r) : Buffer.concat([str(2, r.type_url), str(6, r.response_nonce)])),
    // DeltaDiscoveryResponse: type_url 4, nonce 5
    responseDeserialize: (b: Buffer) => {
      onMessage(now());
      const out: { type_url: string; nonce: string; resources: never[] } = { type_url: '', nonce: '', resources: [] };
      for (let i = 0; i < b.length;) {
        const [key, a] = readVarint(b, i);
        const [len, at] = (key & 7) === 2 ? readVarint(b, a) : (key & 7) === 0 ? [0, readVarint(b, a)[1]] : [0, a];
        if ((key & 7) === 2 && (key >> 3 === 4 || key >> 3 === 5)) out[key >> 3 === 4 ? 'type_url' : 'nonce'] = b.toString('utf8', at, at + len);
        i = at + ((key & 7) === 2 ? len : 0);
      }
      return out;
    },
  } } as unknown as grpc.ServiceDefinition;
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

function readVarint(b: Buffer, i: number): [number, number] {
  let v = 0;
  let shift = 0;
  for (;;) {
    const x = b[i++];
    v += (x & 127) * 2 ** shift;
    if (x < 128) return [v, i];
    shift += 7;
  }
}

const node = (id: string, gateway: string, token: string) => ({ id, cluster: `${NS}/${gateway}`, metadata: { fields: { 'switchyard.dev/token': { stringValue: token } } } });

interface Response { type_url: string; nonce: string; at: number; bytes: number; names: string[] }

/** One ADS stream on `client` that ACKs every response and hands it on with its size and arrival. */
function adsStream(client: grpc.Client, variant: 'delta' | 'sotw', counter: { bytes: number; at: number }, onResponse: (r: Response) => void) {
  const call = (client as unknown as Record<string, (md: grpc.Metadata) => grpc.ClientDuplexStream<any, any>>)[variant === 'delta' ? 'DeltaAggregatedResources' : 'StreamAggregatedResources'](new grpc.Metadata());
  const subscribed = new Map<string, string[]>();
  call.on('data', (r: any) => {
    const bytes = counter.bytes;
    const at = counter.at;
    const names: string[] = variant === 'delta' ? (r.resources ?? []).map((x: any) => x.name) : [];
    if (variant === 'delta') call.write({ type_url: r.type_url, response_nonce: r.nonce });
    else call.write({ type_url: r.type_url, response_nonce: r.nonce, version_info: r.version_info, resource_names: subscribed.get(r.type_url) ?? [] });
    onResponse({ type_url: r.type_url, nonce: r.nonce, at, bytes, names });
  });
  call.on('error', () => undefined);
  return {
    subscribe(first: Record<string, unknown> | null, type: string, names: string[]) {
      subscribed.set(type, names);
      if (variant === 'delta') call.write({ ...(first ?? {}), type_url: type, resource_names_subscribe: names });
      else call.write({ ...(first ?? {}), type_url: type, resource_names: names });
    },
    close: () => call.cancel(),
  };
}

// ------------------------------------------------------------------ figures

interface Services { base: string; xdsPort: number; apiPid: number }

/** Route created -> a grpc-js-xds client's first call routed by it, on Gateway gw-0 of 10. */
async function firstCall(svc: Services, label: string, token: string): Promise<void> {
  process.env.GRPC_XDS_BOOTSTRAP_CONFIG = JSON.stringify({
    xds_servers: [{ server_uri: `127.0.0.1:${svc.xdsPort}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
    node: { id: `bench-grpc-js-${label}`, cluster: `${NS}/gw-0`, locality: {}, metadata: { 'switchyard.dev/token': token } },
  });
  const xds = await import('@grpc/grpc-js-xds');
  xds.register();
  const took: number[] = [];
  // the same changes as an SSE delta watcher of the Gateway sees them: the budget is the SSE path's,
  // and on a busy machine this says what xDS adds to it
  const sseArrivals: number[] & { lastSeen?: number } = [];
  const sseTook: number[] = [];
  const watch = await sseWatch(svc.base, `/api/v1/namespaces/${NS}/gateways/gw-0/snapshot/watch?delta=true`, {}, (_id, _event, _block, at) => sseArrivals.push(at));
  // the watch's first event is the snapshot as it is
  await sleep(300);
  sseArrivals.lastSeen = now();
  for (let k = 0; k < CHANGES; k++) {
    const host = `new-${label}-${k}.xds.bench`;
    const client = new grpc.Client(`xds:///${host}:${PORT}`, grpc.credentials.createInsecure());
    try {
      // the channel has the hostname's listener (no route yet: UNIMPLEMENTED) before the route exists
      const before = await callOnce(client, '/echo.Echo/Ping');
      if (before.code !== grpc.status.UNIMPLEMENTED) throw new Error(`before the route: ${JSON.stringify(before)}`);
      const written = await put(svc.base, `/api/v1/namespaces/${NS}/grpcroutes/new-${label}-${k}`, grpcRoute('gw-0', host, k % SERVICES));
      const deadline = Date.now() + 30_000;
      for (;;) {
        const r = await callOnce(client, '/echo.Echo/Ping');
        if (r.backend) {
          const routed = now();
          took.push(Math.max(0, routed - written));
          const sse = sseArrivals.find((at) => at >= written - 1000 && at > (sseArrivals.lastSeen ?? 0));
          // BENCH_XDS_TRACE=1: each change's times, to set beside the server's (LOG_LEVEL=trace) and the client's (GRPC_TRACE)
          if (process.env.BENCH_XDS_TRACE) console.error(JSON.stringify({ change: k, host, written: new Date(written).toISOString(), sse: sse === undefined ? null : new Date(sse).toISOString(), routed: new Date(routed).toISOString(), ms: Math.round(routed - written) }));
          if (sse !== undefined) {
            sseTook.push(Math.max(0, sse - written));
            sseArrivals.lastSeen = sse;
          }
          break;
        }
        if (Date.now() > deadline) throw new Error(`route ${host} never routed a call: ${JSON.stringify(r)}`);
        await sleep(1);
      }
    } finally {
      client.close();
    }
  }
  watch.close();
  took.sort((a, b) => a - b);
  sseTook.sort((a, b) => a - b);
  report(`${label}_route_created_to_sse_delta_event_p50`, percentile(sseTook, 50), 'ms', 'informational');
  report(`${label}_route_created_to_sse_delta_event_p99`, percentile(sseTook, 99), 'ms', 'informational');
  report(`${label}_route_created_to_first_grpc_call_p50`, percentile(took, 50), 'ms', '<= 20 ms');
  report(`${label}_route_created_to_first_grpc_call_p99`, percentile(took, 99), 'ms', '<= 50 ms');
}

/** A one-route change on a 5,000-route Gateway: what a delta and a state-of-the-world client subscribed to every hostname are sent. */
async function bigGateway(svc: Services, label: string, token: string): Promise<void> {
  const names = Array.from({ length: BIG_ROUTES }, (_, i) => `big-${i}.xds.bench:${PORT}`);
  const clusters = Array.from({ length: SERVICES }, (_, j) => cluster(j));
  for (const variant of ['delta', 'sotw'] as const) {
    const counter = { bytes: 0, at: 0 };
    const client = new (grpc.makeGenericClientConstructor(countedAds((b, at) => { counter.bytes = b; counter.at = at; }), 'Ads'))(
      `127.0.0.1:${svc.xdsPort}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 256 * 1024 * 1024 });
    let waiting: ((r: Response) => void) | null = null;
    let initial = 0;
    const st = adsStream(client, variant, counter, (r) => (waiting ? waiting(r) : initial++));
    const t0 = now();
    st.subscribe({ node: node(`bench-big-${variant}`, 'gw-big', token) }, TYPE_URL.listener, names);
    st.subscribe(null, TYPE_URL.route, names);
    st.subscribe(null, TYPE_URL.cluster, clusters);
    st.subscribe(null, TYPE_URL.endpoint, clusters);
    // the initial fetch: every type answered, then quiet
    while (initial < 4) await sleep(20);
    report(`${label}_${BIG_ROUTES}_routes_${variant}_initial_fetch`, (now() - t0) / 1000, 's', 'informational');
    await sleep(500);
    const bytes: number[] = [];
    const took: number[] = [];
    for (let n = 0; n < BIG_CHANGES; n++) {
      // each variant changes routes of its own, each to another Service than it has
      const k = n + (variant === 'sotw' ? BIG_CHANGES : 0);
      const i = (k * 37) % BIG_ROUTES;
      // the route moves to another Service both of which other routes name: one route configuration changes
      const got: Response[] = [];
      const arrived = new Promise<void>((resolve) => {
        waiting = (r) => {
          got.push(r);
          if (r.type_url === TYPE_URL.route) resolve();
        };
      });
      const written = await put(svc.base, `/api/v1/namespaces/${NS}/grpcroutes/big-${i}`, grpcRoute('gw-big', `big-${i}.xds.bench`, (i + 1) % SERVICES));
      await Promise.race([arrived, sleep(30_000).then(() => { throw new Error(`${variant}: change ${k} of big-${i} never reached the client (${got.length} other responses)`); })]);
      // anything else the change brings comes with it
      await sleep(300);
      waiting = null;
      const route = got.find((r) => r.type_url === TYPE_URL.route)!;
      took.push(Math.max(0, route.at - written));
      bytes.push(got.reduce((s, r) => s + r.bytes, 0));
      if (variant === 'delta' && (route.names.length !== 1 || route.names[0] !== `big-${i}.xds.bench:${PORT}`)) throw new Error(`the delta sent ${route.names.length} route configurations: ${route.names.slice(0, 3).join(', ')}`);
    }
    st.close();
    client.close();
    bytes.sort((a, b) => a - b);
    took.sort((a, b) => a - b);
    const name = `${label}_${BIG_ROUTES}_routes_one_route_change_${variant}`;
    report(`${name}_bytes`, percentile(bytes, 50), 'B', variant === 'delta' ? '<= 4096 B' : 'informational');
    report(`${name}_write_to_response_p50`, percentile(took, 50), 'ms', 'informational');
    report(`${name}_write_to_response_p99`, percentile(took, 99), 'ms', 'informational');
  }
}

/** STREAMS delta streams on one API process, each subscribed to the hot hostname of gw-0; a one-route change must reach them all. */
async function manyStreams(svc: Services, label: string, token: string, db: pg.Client): Promise<void> {
  const host = `hot.xds.bench`;
  const name = `${host}:${PORT}`;
  const clusters = [cluster(0), cluster(1)];
  const counter = { bytes: 0, at: 0 };
  const Ads = grpc.makeGenericClientConstructor(lightAds((at) => { counter.at = at; }), 'Ads');
  // each its own connection
  const clients = Array.from({ length: CONNECTIONS }, (_, c) => new Ads(`127.0.0.1:${svc.xdsPort}`, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1, 'bench.connection': c }));
  const routeSeen: number[][] = [];
  const streams: ReturnType<typeof adsStream>[] = [];
  let initialRoutes = 0;
  let change = -1;
  // what the streams cost the database: its committed transactions (every statement outside a transaction is one)
  const commits = async () => Number((await db.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit);
  const commitsBefore = await commits();
  const t0 = now();
  /** waits until `n` streams have their routes; false when no stream got them for 30 s */
  const caughtUp = async (n: number): Promise<boolean> => {
    let last = initialRoutes;
    let since = Date.now();
    while (initialRoutes < n) {
      if (initialRoutes !== last) [last, since] = [initialRoutes, Date.now()];
      else if (Date.now() - since > 30_000) return false;
      await sleep(10);
    }
    return true;
  };
  let stalled = false;
  for (let s = 0; s < STREAMS && !stalled; s++) {
    const idx = s;
    routeSeen.push([]);
    const st = adsStream(clients[s % CONNECTIONS], 'delta', counter, (r) => {
      if (r.type_url !== TYPE_URL.route) return;
      if (change < 0) initialRoutes++;
      else routeSeen[idx][change] = r.at;
    });
    st.subscribe({ node: node(`bench-stream-${s}`, 'gw-0', token) }, TYPE_URL.listener, [name]);
    st.subscribe(null, TYPE_URL.route, [name]);
    st.subscribe(null, TYPE_URL.cluster, clusters);
    st.subscribe(null, TYPE_URL.endpoint, clusters);
    streams.push(st);
    // opened in batches, so that the server's answers keep up
    if (s % 500 === 499 && !(await caughtUp(s - 250))) stalled = true;
  }
  if (!stalled) stalled = !(await caughtUp(streams.length));
  const opened = initialRoutes;
  report(`${label}_delta_streams_opened`, opened, 'streams', `>= ${STREAMS}`);
  report(`${label}_${STREAMS}_delta_streams_open_time`, (now() - t0) / 1000, 's', 'informational');
  if (stalled) {
    for (const st of streams) st.close();
    for (const c of clients) c.close();
    throw new Error(`opening stalled: ${opened} of ${streams.length} streams got their routes, none more for 30 s`);
  }
  const commitsOpened = await commits();
  report(`${label}_${STREAMS}_delta_streams_db_commits_opening`, commitsOpened - commitsBefore, 'transactions', 'informational');
  // ten seconds of quiet: every node's report renewed once
  await sleep(10_500);
  const commitsQuiet = await commits();
  report(`${label}_${STREAMS}_delta_streams_db_commits_per_10s_quiet`, commitsQuiet - commitsOpened, 'transactions', 'informational');
  const took: number[] = [];
  const rounds = 5;
  const commitsChanges = await commits();
  // where a change's time goes: the API's CPU and this process's (the simulated clients' decoding)
  const apiCpu0 = cpuMs(svc.apiPid);
  const ownCpu0 = process.cpuUsage();
  for (let k = 0; k < rounds; k++) {
    change = k;
    const written = await put(svc.base, `/api/v1/namespaces/${NS}/grpcroutes/hot`, hotRoute(k % 2 === 0 ? [1, 2] : [2, 1]));
    const until = Date.now() + 60_000;
    while (routeSeen.some((r) => r[k] === undefined)) {
      if (Date.now() > until) throw new Error(`change ${k} reached ${routeSeen.filter((r) => r[k] !== undefined).length} of ${STREAMS} streams`);
      await sleep(10);
    }
    for (const r of routeSeen) took.push(Math.max(0, r[k] - written));
    await sleep(1000);
  }
  const ownCpu = process.cpuUsage(ownCpu0);
  report(`${label}_${STREAMS}_delta_streams_api_cpu_per_change`, (cpuMs(svc.apiPid) - apiCpu0) / rounds, 'ms', 'informational (a change and a second of quiet)');
  report(`${label}_${STREAMS}_delta_streams_simulated_clients_cpu_per_change`, (ownCpu.user + ownCpu.system) / 1000 / rounds, 'ms', 'informational (this process, on the same cores)');
  took.sort((a, b) => a - b);
  report(`${label}_${STREAMS}_delta_streams_db_commits_per_change`, Math.round((await commits() - commitsChanges) / rounds), 'transactions', 'informational');
  report(`${label}_${STREAMS}_delta_streams_one_route_change_p50`, percentile(took, 50), 'ms', 'informational');
  report(`${label}_${STREAMS}_delta_streams_one_route_change_p99`, percentile(took, 99), 'ms', '<= 1000 ms');
  report(`${label}_${STREAMS}_delta_streams_api_rss`, rssMB(svc.apiPid), 'MB', '<= 1024 MB');
  for (const st of streams) st.close();
  for (const c of clients) c.close();
}

// ------------------------------------------------------------------ runs

async function run(mode: 'split' | 'single', first: boolean, backends: EchoBackend[]): Promise<void> {
  const db = await freshDatabase();
  const prefix = `sy-bench-xds-${randomBytes(4).toString('hex')}`;
  const common = { DATABASE_URL: db.url, REDIS_URL, REDIS_PREFIX: prefix, BODY_LIMIT_BYTES: String(8 * 1024 * 1024) };
  const xdsPort = await freePort();
  const client = new pg.Client({ connectionString: db.url });
  const api = await startService({ ...common, XDS_PORT: String(xdsPort) }, 'src/main.ts', mode === 'split' ? ['--role=api'] : []);
  const worker = mode === 'split' ? await startWorkerProcess({ ...common, ADMIN_TOKEN: BENCH_TOKEN }).catch(async (e) => { await api.stop(); throw e; }) : undefined;
  try {
    await client.connect();
    const base = api.url;
    const svc: Services = { base, xdsPort, apiPid: api.child.pid! };
    await seedBase(base, backends);
    const gateways = Array.from({ length: GATEWAYS }, (_, g) => `gw-${g}`);
    for (const g of gateways) await seedRoutes(base, g, `r-${g}`, ROUTES_PER_GATEWAY);
    await put(base, `/api/v1/namespaces/${NS}/grpcroutes/hot`, hotRoute([1, 1]));
    await reconciled(client, 600_000);
    const token = await proxyToken(base, [...gateways, 'gw-big']);
    await firstCall(svc, mode, token);
    // BENCH_BIG_ROUTES=0 or BENCH_STREAMS=0 leaves that figure out
    if (first && BIG_ROUTES > 0) {
      await seedRoutes(base, 'gw-big', 'big', BIG_ROUTES);
      await reconciled(client, 600_000);
      await bigGateway(svc, mode, token);
    }
    if (first && STREAMS > 0) await manyStreams(svc, mode, token, client);
  } finally {
    await client.end().catch(() => undefined);
    await worker?.stop();
    await api.stop();
    await db.drop();
    await dropRedisPrefix(REDIS_URL, prefix).catch(() => undefined);
  }
}

/** One mode in this process (grpc-js-xds reads its bootstrap once per process). */
async function runMode(mode: 'split' | 'single', all: boolean): Promise<void> {
  // two real gRPC backends on loopback: every Service's endpoint is one of them
  const backends = await Promise.all([startEcho('a'), startEcho('b')]);
  try {
    await run(mode, all, backends);
  } finally {
    await Promise.all(backends.map((b) => b.close()));
    agent.destroy();
  }
}

const asked = process.argv.find((a) => a.startsWith('--mode='))?.slice('--mode='.length) as 'split' | 'single' | undefined;
if (asked) {
  await runMode(asked, process.argv.includes('--all'));
  // grpc-js-xds keeps its xDS client's stream open
  process.exit(process.exitCode ?? 0);
}
for (const [i, mode] of MODES.entries()) {
  figureLine(`# ${mode}: ${mode === 'split' ? 'the API (src/main.ts --role=api) and the worker (workers/reconcile.ts) as processes of their own' : 'the API and the worker in one process, as npm start runs them'}`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), `--mode=${mode}`, ...(i === 0 ? ['--all'] : [])], { stdio: 'inherit', env: process.env });
    child.on('exit', resolve);
  });
  if (code !== 0) process.exitCode = code ?? 1;
}
agent.destroy();
