// `npm run bench:nginx`: nginx programmed by `switchyard nginx`, beside bench:proxy's figures, with
// the API, the worker and the agent (which runs its nginx, one worker process) as separate
// processes on the real PostgreSQL and Redis (DATABASE_URL, REDIS_URL; a fresh database and a Redis
// prefix of the run's own). It prints:
//   - route created -> first 200 through nginx, p50/p99, over 1,000 routes on 10 Gateways (each
//     route timed alone, from just before its PUT to the first 200 through nginx), and what a
//     reload costs (render, nginx -t, reload until the new workers answer);
//   - errors while 200 requests/s flow to one live route and 100 other routes of its Gateway change;
//   - throughput and added p99 at 64 connections for one route, through agent-programmed nginx and
//     through a hand-written nginx configuration of the same route (same backend, one worker each),
//     and the ratio of the two; the load comes from wrk;
//   - the reload time and nginx's resident memory (master and workers) at 10,000 routes.
// BENCH_ROUTES (default 1000) and BENCH_ROUTES_TOTAL (default 10000) shrink a run.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BENCH_TOKEN, dropRedisPrefix, freshDatabase, lightClient, percentile, report, rssMB, startService } from './support';
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

interface Agent {
  child: ChildProcess;
  prefix: string;
  /** every "nginx configuration applied" line so far */
  applied(): { renderMs: number; checkMs: number; reloadMs: number; routesRendered: boolean }[];
  /** RSS of nginx's master and workers, MB */
  nginxRss(): number;
  stop(): Promise<void>;
}

async function startAgent(api: string, token: string): Promise<Agent> {
  const prefix = mkdtempSync(join(tmpdir(), 'sy-bench-agent-'));
  const gateways = Array.from({ length: GATEWAYS }, (_, g) => ['--gateway', `infra/gw-${g}`]).flat();
  const child = spawn(process.execPath, [join(ROOT, 'bin/switchyard.js'), 'nginx', '--host', '127.0.0.1', '--admin-port', '0', '--port-offset', String(OFFSET), '--id', 'bench-nginx', '--prefix', prefix, '--worker-processes', '1', ...gateways], {
    cwd: ROOT, env: { ...process.env, SWITCHYARD_URL: api, SWITCHYARD_TOKEN: token, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const applied: ReturnType<Agent['applied']> = [];
  let partial = '';
  const take = (d: Buffer) => {
    out = (out + d).slice(-20_000);
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) if (l.includes('nginx configuration applied')) applied.push(JSON.parse(l));
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const deadline = Date.now() + 60_000;
  while (!/switchyard nginx started/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`switchyard nginx did not start:\n${out}`);
    }
    await sleep(50);
  }
  const pids = (): number[] => {
    let master: number;
    try {
      master = Number(readFileSync(join(prefix, 'nginx.pid'), 'utf8').trim());
    } catch {
      return [];
    }
    const kids = spawnSync('pgrep', ['-P', String(master)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
    return [master, ...kids];
  };
  return {
    child, prefix, applied: () => applied,
    nginxRss: () => pids().reduce((n, p) => n + (rssMB(p) || 0), 0),
    stop: () => new Promise((r) => {
      const done = () => {
        rmSync(prefix, { recursive: true, force: true });
        r();
      };
      if (child.exitCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
    }),
  };
}

async function main(): Promise<void> {
  ensureDebian({ nginx: 'nginx', wrk: 'wrk' });
  if (!['ngx_http_js_module.so', 'ngx_stream_module.so'].every((m) => spawnSync('test', ['-e', `/usr/lib/nginx/modules/${m}`]).status === 0)) {
    execFileSync('apt-get', ['install', '-y', '-qq', 'libnginx-mod-http-js', 'libnginx-mod-stream', 'libnginx-mod-stream-js'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  const db = await freshDatabase();
  const prefix = `sy-bench-nginx-${randomBytes(4).toString('hex')}`;
  const common = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: prefix };
  let api: ServiceProcess | undefined;
  let worker: WorkerProcess | undefined;
  let agent: Agent | undefined;
  let nginx: ReferenceNginx | undefined;
  try {
    nginx = await startReferenceNginx('location /live { proxy_pass http://echo; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $http_host; proxy_set_header X-Route "r--1"; }', '/live');
    api = await startService({ ...common }, 'src/main.ts', ['--role=api']);
    worker = await startWorkerProcess({ ...common, ADMIN_TOKEN: BENCH_TOKEN });
    const call = lightClient(api.url, BENCH_TOKEN, 16);
    const put = retryingPut(call);
    const token = await seedProxyWorld(call, { backendPort: nginx.backend, gateways: GATEWAYS, listenerPort: LISTENER_PORT, tokenName: 'bench-nginx' });
    agent = await startAgent(api.url, token);
    const through = (g: number, path: string) => `http://127.0.0.1:${LISTENER_PORT(g) + OFFSET}${path}`;
    for (let g = 0; g < GATEWAYS; g++) {
      while (await get(through(g, '/')).then((r) => r.status !== 404, () => true)) await sleep(50);
    }
    report('nginx_rss_at_start', agent.nginxRss(), 'MB', 'informational');

    // 1. route created -> first 200 through nginx, one route at a time
    const took: number[] = [];
    const reloads0 = agent.applied().length;
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
    report(`nginx_route_created_to_first_200_p50_${ROUTES}_routes_${GATEWAYS}_gateways`, percentile(took, 50), 'ms', '<= 100 ms');
    report(`nginx_route_created_to_first_200_p99_${ROUTES}_routes_${GATEWAYS}_gateways`, percentile(took, 99), 'ms', '<= 250 ms');
    const during = agent.applied().slice(reloads0);
    const med = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
    report(`nginx_reloads_for_${ROUTES}_routes`, during.length, 'reloads', 'informational');
    report('nginx_reload_render_ms_p50', med(during.map((a) => a.renderMs)), 'ms', 'informational');
    report('nginx_reload_check_ms_p50', med(during.map((a) => a.checkMs)), 'ms', 'informational (nginx -t)');
    report('nginx_reload_until_new_workers_ms_p50', med(during.map((a) => a.reloadMs)), 'ms', 'informational');

    // 2. errors on a live route while 100 other routes of its Gateway change
    await put('/api/v1/namespaces/app/httproutes/live', route(-1, 0, '/live'));
    while ((await get(through(0, '/live')).catch(() => ({ status: 0 }))).status !== 200) await sleep(5);
    const others = Array.from({ length: ROUTES }, (_, i) => i).filter((i) => i % GATEWAYS === 0).slice(0, CHANGED);
    let sent = 0;
    const kinds = new Map<string, number>();
    let flowing = true;
    const live = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const pending: Promise<void>[] = [];
    const reloads1 = agent.applied().length;
    const flow = (async () => {
      const t0 = now();
      while (flowing) {
        const due = t0 + (sent * 1000) / RATE;
        if (now() < due) await sleep(Math.max(0, due - now()));
        sent++;
        pending.push(get(through(0, '/live'), live).then((r) => {
          if (r.status !== 200) kinds.set(`status ${r.status}`, (kinds.get(`status ${r.status}`) ?? 0) + 1);
        }, (e: NodeJS.ErrnoException) => void kinds.set(e.code ?? e.message, (kinds.get(e.code ?? e.message) ?? 0) + 1)));
      }
    })();
    await sleep(500);
    for (const i of others) await put(`/api/v1/namespaces/app/httproutes/r-${i}`, route(i, 0, `/r-${i}-v2`));
    const last = others[others.length - 1];
    while ((await get(through(0, `/r-${last}-v2`)).catch(() => ({ status: 0 }))).status !== 200) await sleep(5);
    await sleep(1000);
    flowing = false;
    await flow;
    await Promise.all(pending);
    const errors = [...kinds.values()].reduce((a, b) => a + b, 0);
    report(`nginx_errors_live_route_${RATE}rps_while_${others.length}_routes_change`, errors, 'errors', `0, of ${sent} requests, over ${agent.applied().length - reloads1} reloads${errors ? `: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}` : ''}`);

    // 3. throughput and added p99 at 64 connections: agent-programmed nginx against a hand-written one
    report(`nginx_rss_${ROUTES}_routes`, agent.nginxRss(), 'MB', 'informational');
    const direct = wrk(`http://127.0.0.1:${nginx.backend}/live`, CONNECTIONS, WRK_SECONDS);
    const byHand = wrk(`http://127.0.0.1:${nginx.proxy}/live`, CONNECTIONS, WRK_SECONDS);
    const programmed = wrk(through(0, '/live'), CONNECTIONS, WRK_SECONDS);
    report('backend_direct_rps_64_connections', direct.rps, 'req/s', 'informational');
    report('hand_written_nginx_rps_64_connections', byHand.rps, 'req/s', 'informational');
    report('programmed_nginx_rps_64_connections', programmed.rps, 'req/s', 'informational');
    report('programmed_to_hand_written_nginx_throughput_ratio', programmed.rps / byHand.rps, 'x', '>= 0.95');
    report('hand_written_nginx_added_p99_64_connections', byHand.p99 - direct.p99, 'ms', 'informational');
    report('programmed_nginx_added_p99_64_connections', programmed.p99 - direct.p99, 'ms', 'informational');
    report('wrk_errors_programmed_nginx', programmed.errors, 'errors', '0');

    // 4. reload time and nginx's resident memory at 10,000 routes
    const rest = Array.from({ length: Math.max(0, ROUTES_TOTAL - ROUTES) }, (_, k) => ROUTES + k);
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < rest.length) {
        const i = rest[next++];
        await put(`/api/v1/namespaces/app/httproutes/r-${i}`, route(i, i % GATEWAYS));
      }
    }));
    for (let g = 0; g < GATEWAYS; g++) {
      const lastOf = [...rest, ...Array.from({ length: ROUTES }, (_, i) => i)].filter((i) => i % GATEWAYS === g).reduce((a, b) => Math.max(a, b), -1);
      const deadline = Date.now() + 600_000;
      while ((await get(through(g, `/r-${lastOf}`)).catch(() => ({ status: 0 }))).status !== 200) {
        if (Date.now() > deadline) throw new Error(`gw-${g} not served with ${ROUTES_TOTAL} routes within 600 s`);
        await sleep(100);
      }
    }
    await sleep(5000);
    // one more change on a Gateway of 10,000 routes, timed from its PUT to its first 200
    const started = now();
    const before = agent.applied().length;
    await put('/api/v1/namespaces/app/httproutes/at-scale', route(-2, 0, '/at-scale'));
    while ((await get(through(0, '/at-scale')).catch(() => ({ status: 0 }))).status !== 200) await sleep(5);
    report(`nginx_route_created_to_first_200_at_${ROUTES_TOTAL}_routes`, now() - started, 'ms', 'informational');
    const at = agent.applied().slice(before);
    if (at.length) {
      const a = at[at.length - 1];
      report(`nginx_reload_render_ms_${ROUTES_TOTAL}_routes`, a.renderMs, 'ms', 'informational');
      report(`nginx_reload_check_ms_${ROUTES_TOTAL}_routes`, a.checkMs, 'ms', 'informational (nginx -t)');
      report(`nginx_reload_ms_${ROUTES_TOTAL}_routes`, a.reloadMs, 'ms', 'informational (SIGHUP until the new workers answer)');
    }
    report(`nginx_rss_${ROUTES_TOTAL}_routes`, agent.nginxRss(), 'MB', 'informational (master and workers)');
  } finally {
    await agent?.stop();
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
