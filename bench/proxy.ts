// `npm run bench:proxy`: the reference proxy with the API, the worker and the proxy as separate
// processes on the real PostgreSQL and Redis (DATABASE_URL, REDIS_URL; a fresh database and a Redis
// prefix of the run's own). It prints:
//   - route created -> first 200 through the proxy, p50/p99, over 1,000 routes on 10 Gateways
//     (each route timed alone, from just before its PUT to the first 200 through the proxy);
//   - errors while 200 requests/s flow to one live route and 100 other routes of its Gateway change;
//   - throughput and added p99 latency at 64 connections for one simple route, beside nginx
//     (Debian's package, installed with apt-get when missing) proxying the same route to the same
//     backend, and the ratio of the two; the load comes from wrk (Debian's too), a C program that
//     costs the proxy little of the machine;
//   - the proxy's resident memory once it serves 10,000 routes.
// The backend both proxies reach is an nginx server answering a fixed body, so that neither proxy
// waits on a slow backend. nginx runs one worker process, as the proxy is one Node process.
// BENCH_ROUTES (default 1000) and BENCH_ROUTES_TOTAL (default 10000) shrink a run;
// PROXY_NODE_FLAGS (for example --cpu-prof --cpu-prof-dir=/tmp/prof) reach the proxy's node.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BENCH_TOKEN, cpuMs, dropRedisPrefix, freshDatabase, lightClient, percentile, report, rssMB, startService } from './support';
import { ensureDebian, get, startReferenceNginx, wrk, type ReferenceNginx } from './reference-nginx';
import { retryingPut, seedProxyWorld } from './proxy-world';
import { ROOT, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../test/support/process';

const GW = 'gateway.networking.k8s.io/v1';
const GATEWAYS = 10;
const ROUTES = Number(process.env.BENCH_ROUTES ?? 1000);
const ROUTES_TOTAL = Number(process.env.BENCH_ROUTES_TOTAL ?? 10_000);
const CHANGED = 100;
const RATE = 200;
const CONNECTIONS = 64;
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 10);
// listener ports + OFFSET stay below Linux's ephemeral range (32768 up), where outgoing connections take theirs
const OFFSET = 2000 + Math.floor(Math.random() * 20000);
const LISTENER_PORT = (g: number) => 8000 + g;

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


interface Proxy {
  child: ChildProcess;
  pid: number;
  admin: string;
  stop(): Promise<void>;
}

async function startProxy(api: string, token: string): Promise<Proxy> {
  const flags = (process.env.PROXY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const gateways = Array.from({ length: GATEWAYS }, (_, g) => ['--gateway', `infra/gw-${g}`]).flat();
  const child = spawn(process.execPath, [...flags, join(ROOT, 'bin/switchyard.js'), 'proxy', '--host', '127.0.0.1', '--admin-port', '0', '--port-offset', String(OFFSET), '--id', 'bench', ...gateways], {
    cwd: ROOT, env: { ...process.env, SWITCHYARD_URL: api, SWITCHYARD_TOKEN: token, LOG_LEVEL: 'info', ACCESS_LOG: 'off' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-20_000)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = out.match(/"adminPort":(\d+).*switchyard proxy started/);
    if (m) return {
      child, pid: child.pid!, admin: `http://127.0.0.1:${m[1]}`,
      stop: () => new Promise((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
    };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the proxy did not start:\n${out}`);
    }
    await sleep(50);
  }
}



function route(i: number, gateway: number, path = `/r-${i}`) {
  return {
    apiVersion: GW, kind: 'HTTPRoute',
    spec: {
      parentRefs: [{ name: `gw-${gateway}`, namespace: 'infra' }],
      rules: [{
        matches: [{ path: { type: 'PathPrefix', value: path } }],
        filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-route', value: `r-${i}` }] } }],
        backendRefs: [{ name: 'echo', port: 80 }],
      }],
    },
  };
}

async function main(): Promise<void> {
  ensureDebian({ nginx: 'nginx', wrk: 'wrk' });
  const db = await freshDatabase();
  const prefix = `sy-bench-proxy-${randomBytes(4).toString('hex')}`;
  const common = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: prefix };
  let api: ServiceProcess | undefined;
  let worker: WorkerProcess | undefined;
  let proxy: Proxy | undefined;
  let nginx: ReferenceNginx | undefined;
  try {
    nginx = await startReferenceNginx('location / { proxy_pass http://echo; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; }', '/');
    api = await startService({ ...common }, 'src/main.ts', ['--role=api']);
    worker = await startWorkerProcess({ ...common, ADMIN_TOKEN: BENCH_TOKEN });
    const call = lightClient(api.url, BENCH_TOKEN, 16);
    const put = retryingPut(call);
    const token = await seedProxyWorld(call, { backendPort: nginx.backend, gateways: GATEWAYS, listenerPort: LISTENER_PORT, tokenName: 'bench-proxy' });
    proxy = await startProxy(api.url, token);
    const through = (g: number, path: string) => `http://127.0.0.1:${LISTENER_PORT(g) + OFFSET}${path}`;
    // every Gateway served (an empty table answers 404)
    for (let g = 0; g < GATEWAYS; g++) {
      while (await get(through(g, '/')).then((r) => r.status !== 404, () => true)) await sleep(50);
    }

    report('proxy_rss_at_start', rssMB(proxy.pid), 'MB', 'informational');

    // 1. route created -> first 200 through the proxy, one route at a time
    const took: number[] = [];
    const cpu0 = { api: cpuMs(api.child.pid!), worker: cpuMs(worker.child.pid!), proxy: cpuMs(proxy.pid) };
    for (let i = 0; i < ROUTES; i++) {
      const g = i % GATEWAYS;
      const started = now();
      await put(`/api/v1/namespaces/app/httproutes/r-${i}`, route(i, g));
      const url = through(g, `/r-${i}`);
      const deadline = Date.now() + 30_000;
      while ((await get(url).catch(() => ({ status: 0 }))).status !== 200) {
        if (Date.now() > deadline) throw new Error(`route r-${i} not served within 30 s`);
        await sleep(1);
      }
      took.push(now() - started);
    }
    took.sort((a, b) => a - b);
    report(`route_created_to_first_200_p50_${ROUTES}_routes_${GATEWAYS}_gateways`, percentile(took, 50), 'ms', '<= 20 ms');
    report(`route_created_to_first_200_p99_${ROUTES}_routes_${GATEWAYS}_gateways`, percentile(took, 99), 'ms', '<= 50 ms');
    const perRoute = (pid: number, before: number) => (cpuMs(pid) - before) / ROUTES;
    report('route_created_cpu_per_route_api', perRoute(api.child.pid!, cpu0.api), 'ms', 'informational');
    report('route_created_cpu_per_route_worker', perRoute(worker.child.pid!, cpu0.worker), 'ms', 'informational');
    report('route_created_cpu_per_route_proxy', perRoute(proxy.pid, cpu0.proxy), 'ms', 'informational');

    // 2. errors on a live route while 100 other routes of its Gateway change
    await put('/api/v1/namespaces/app/httproutes/live', route(-1, 0, '/live'));
    while ((await get(through(0, '/live')).catch(() => ({ status: 0 }))).status !== 200) await sleep(5);
    const others = Array.from({ length: ROUTES }, (_, i) => i).filter((i) => i % GATEWAYS === 0).slice(0, CHANGED);
    let sent = 0;
    let errors = 0;
    let flowing = true;
    const live = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const pending: Promise<void>[] = [];
    const flow = (async () => {
      const t0 = now();
      while (flowing) {
        const due = t0 + (sent * 1000) / RATE;
        if (now() < due) await sleep(Math.max(0, due - now()));
        sent++;
        pending.push(get(through(0, '/live'), live).then((r) => void (r.status !== 200 && errors++), () => void errors++));
      }
    })();
    await sleep(500);
    // each changes its path; the last one's new path served means every change is
    for (const i of others) await put(`/api/v1/namespaces/app/httproutes/r-${i}`, route(i, 0, `/r-${i}-v2`));
    const last = others[others.length - 1];
    while ((await get(through(0, `/r-${last}-v2`)).catch(() => ({ status: 0 }))).status !== 200) await sleep(5);
    await sleep(1000);
    flowing = false;
    await flow;
    await Promise.all(pending);
    report(`errors_live_route_${RATE}rps_while_${others.length}_routes_change`, errors, 'errors', `0, of ${sent} requests`);

    // 3. throughput and added p99 at 64 connections, beside nginx, to the same backend
    report(`proxy_rss_${ROUTES}_routes`, rssMB(proxy.pid), 'MB', 'informational');
    const direct = wrk(`http://127.0.0.1:${nginx.backend}/live`, CONNECTIONS, WRK_SECONDS);
    const viaNginx = wrk(`http://127.0.0.1:${nginx.proxy}/live`, CONNECTIONS, WRK_SECONDS);
    const cpuBefore = cpuMs(proxy.pid);
    const viaProxy = wrk(through(0, '/live'), CONNECTIONS, WRK_SECONDS);
    const proxyCpu = (cpuMs(proxy.pid) - cpuBefore) / (viaProxy.rps * WRK_SECONDS);
    report('backend_direct_rps_64_connections', direct.rps, 'req/s', 'informational');
    report('nginx_rps_64_connections', viaNginx.rps, 'req/s', 'informational');
    report('proxy_rps_64_connections', viaProxy.rps, 'req/s', 'informational');
    report('proxy_to_nginx_throughput_ratio', viaProxy.rps / viaNginx.rps, 'x', '>= 0.33');
    report('nginx_added_p99_64_connections', viaNginx.p99 - direct.p99, 'ms', 'informational');
    report('proxy_added_p99_64_connections', viaProxy.p99 - direct.p99, 'ms', 'informational');
    report('proxy_cpu_per_request', proxyCpu * 1000, 'us', 'informational');
    report('wrk_errors_proxy', viaProxy.errors, 'errors', '0');

    // 4. the proxy's resident memory at 10,000 routes
    const rest = Array.from({ length: Math.max(0, ROUTES_TOTAL - ROUTES) }, (_, k) => ROUTES + k);
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < rest.length) {
        const i = rest[next++];
        await put(`/api/v1/namespaces/app/httproutes/r-${i}`, route(i, i % GATEWAYS));
      }
    }));
    // the last route of each Gateway served means its whole table is
    for (let g = 0; g < GATEWAYS; g++) {
      const lastOf = [...rest, ...Array.from({ length: ROUTES }, (_, i) => i)].filter((i) => i % GATEWAYS === g).reduce((a, b) => Math.max(a, b), -1);
      const deadline = Date.now() + 300_000;
      while ((await get(through(g, `/r-${lastOf}`)).catch(() => ({ status: 0 }))).status !== 200) {
        if (Date.now() > deadline) throw new Error(`gw-${g} not served with ${ROUTES_TOTAL} routes within 300 s`);
        await sleep(100);
      }
    }
    report(`proxy_rss_${ROUTES_TOTAL}_routes_after_burst`, rssMB(proxy.pid), 'MB', 'informational');
    await sleep(10_000);
    report(`proxy_rss_${ROUTES_TOTAL}_routes`, rssMB(proxy.pid), 'MB', '<= 200 MB');
  } finally {
    await proxy?.stop();
    await worker?.stop();
    await api?.stop();
    nginx?.stop();
    await db.drop().catch(() => undefined);
    await dropRedisPrefix(common.REDIS_URL, prefix).catch(() => undefined);
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
