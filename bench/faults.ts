// `npm run bench:faults`: the time to converge after each fault, with real processes (one API,
// two workers) on a PostgreSQL and a Redis of the benchmark's own (a throwaway cluster from the
// local server binaries, a redis-server keeping nothing on disk), so that it can stop and start
// them. The world: 10 Gateways with 10 HTTPRoutes each.
//  1. worker kill: the worker whose recompute is in the middle of its write (held back by a lock
//     on the store) gets SIGKILL; from then until every Gateway has converged, with a change
//     written meanwhile. Three times (a new worker is started after each).
//  2. PostgreSQL outage of 5 s and of 60 s, as a crash, while changes stream in: from the moment it
//     is back until every Gateway has converged.
//  3. Redis restarted empty while a request lives only there (dispatched, its job still running):
//     from the moment it is back until converged.
import { BENCH_TOKEN, report } from './support';
import { startProcess, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../test/support/process';
import { pgBinaries, startPgCluster } from '../test/support/pg-cluster';
import { HAS_REDIS_SERVER, redisServer } from '../test/support/redis-server';
import { client } from '../test/support/server';
import { changeStream, holdRecomputeWrites, routeBody, routePath, seedWorld, until, untilConverged, untilNothingBehind, withApplicationName } from '../test/support/faults';

const GATEWAYS = 10;
const ROUTES = 10;
const KILLS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const binaries = pgBinaries();
if ('missing' in binaries || !HAS_REDIS_SERVER) {
  console.error(`bench:faults needs PostgreSQL's server binaries and redis-server: ${'missing' in binaries ? binaries.missing : 'no redis-server'}`);
  process.exit(1);
}

const cluster = await startPgCluster();
const redis = redisServer();
await redis.start();
const env = { DATABASE_URL: cluster.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn', ADMIN_TOKEN: BENCH_TOKEN, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000' };
const workers = new Map<string, WorkerProcess>();
let serial = 0;
async function addWorker(): Promise<void> {
  const name = `worker-${++serial}`;
  // at info: the helper waits for the worker's "running" line
  workers.set(name, await startWorkerProcess({ ...env, LOG_LEVEL: 'info', DATABASE_URL: withApplicationName(cluster.url, name) }));
}
let api: ServiceProcess | null = null;

try {
  api = await startProcess(env, 'src/main.ts', ['--role=api']);
  await Promise.all([addWorker(), addWorker()]);
  const call = client(api.url, BENCH_TOKEN);
  await seedWorld(call, GATEWAYS, ROUTES);
  await untilConverged(call, 60_000);
  let version = 1;

  // 1. worker kill
  const kills: number[] = [];
  for (let k = 0; k < KILLS; k++) {
    const g = k % GATEWAYS;
    await untilNothingBehind(cluster.url);
    const hold = await holdRecomputeWrites(cluster.url);
    let killedAt = 0;
    try {
      await call('PUT', routePath(g, 0), routeBody(g, 0, version++));
      const victim = await until('a worker in the middle of a recompute', async () => (await hold.waiting()).find((n) => workers.has(n)));
      workers.get(victim)!.child.kill('SIGKILL');
      killedAt = performance.now();
      workers.delete(victim);
      await hold.terminate(victim);
      await call('PUT', routePath(g, 1), routeBody(g, 1, version++));
    } finally {
      await hold.release();
    }
    await untilConverged(call, 60_000);
    kills.push(performance.now() - killedAt);
    await addWorker();
  }
  report('faults_worker_kill_converged_worst', Math.max(...kills), 'ms', `<= 5000 ms; runs: ${kills.map((x) => Math.round(x)).join(', ')} ms`);

  // 2. PostgreSQL outages
  for (const seconds of [5, 60]) {
    const stream = changeStream(call, GATEWAYS, ROUTES, 8);
    await until('writes answered', async () => (stream.statuses.get(200) ?? 0) >= 50, 60_000);
    const stoppedAt = performance.now();
    await cluster.stop('immediate');
    await sleep(Math.max(0, seconds * 1000 - (performance.now() - stoppedAt)));
    await stream.stop();
    await cluster.start();
    const backAt = performance.now();
    await untilConverged(call, 120_000);
    const ms = performance.now() - backAt;
    const answers = [...stream.statuses].map(([s, n]) => `${n}x${s}`).join(' ');
    report(`faults_pg_outage_${seconds}s_converged_after_recovery`, ms, 'ms', `converges with no manual step; answers: ${answers}${stream.retryAfter ? `, Retry-After ${stream.retryAfter}` : ''}`);
  }

  // 3. Redis restarted empty
  {
    await untilNothingBehind(cluster.url);
    const hold = await holdRecomputeWrites(cluster.url);
    let backAt = 0;
    try {
      await call('PUT', routePath(0, 2), routeBody(0, 2, version++));
      await until('a recompute in the middle of its write', async () => (await hold.waiting()).find((n) => workers.has(n)));
      await call('PUT', routePath(0, 3), routeBody(0, 3, version++));
      await sleep(200); // dispatched by then (its checkpoint moved past it)
      await redis.kill();
      await redis.start();
      backAt = performance.now();
    } finally {
      await hold.release();
    }
    await untilConverged(call, 60_000);
    report('faults_redis_restart_empty_converged', performance.now() - backAt, 'ms', 'converges with no manual step');
  }
  const alive = [api, ...workers.values()].every((p) => p.child.exitCode === null);
  report('faults_processes_alive_after_all', alive ? 1 : 0, 'bool', '1: none restarted by hand');
} catch (err) {
  console.error(err);
  console.error('--- api output ---\n' + (api?.output().slice(-4000) ?? ''));
  for (const [name, w] of workers) console.error(`--- ${name} output ---\n` + w.output().slice(-3000));
  process.exitCode = 1;
} finally {
  await Promise.all([api?.stop(), ...[...workers.values()].map((w) => w.stop())]);
  await redis.destroy();
  await cluster.destroy();
}
