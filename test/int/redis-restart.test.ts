// Redis restarted empty while a request lives only there: the dispatcher has asked for a Gateway
// (its checkpoint moved on) whose job is still running, so the request waits in Redis's position
// hash for that job to end; Redis then forgets it. What is wanted is in PostgreSQL as well
// (reconcile_wants against recomputes), and the sweep asks for it again: the Gateway converges.
// Real processes: an API and a worker on a Redis of the test's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { freshDatabaseUrl, REAL_PG } from '../support/database';
import { ADMIN_TOKEN, client } from '../support/server';
import { startProcess, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../support/process';
import { HAS_REDIS_SERVER, redisServer } from '../support/redis-server';
import { holdRecomputeWrites, routeBody, routePath, seedWorld, until, untilConverged, untilNothingBehind } from '../support/faults';
import { scoped } from '../../src/adapters/store/scope';
import { gatewayJob } from '../../src/adapters/queue/job-keys';

const why = !REAL_PG ? 'needs DATABASE_URL' : !HAS_REDIS_SERVER ? 'needs the redis-server binary' : '';
if (why) console.log(`skipped: Redis restarted empty (${why})`);

describe.skipIf(Boolean(why))(`Redis restarted empty${why ? ` (skipped: ${why})` : ''}`, () => {
  let db: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  const redis = redisServer();
  let api: ServiceProcess;
  let worker: WorkerProcess;
  let sql: pg.Client;

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    await redis.start();
    const env = { DATABASE_URL: db.url, REDIS_URL: redis.url, ADMIN_TOKEN };
    [api, worker] = await Promise.all([startProcess(env, 'src/main.ts', ['--role=api']), startWorkerProcess({ ...env, DATABASE_URL: `${db.url}?application_name=worker` })]);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 120_000);
  afterAll(async () => {
    await sql?.end();
    await Promise.all([api?.stop(), worker?.stop()]);
    await redis.destroy();
    await db?.drop();
  });

  it('converges on a request that only Redis held', async () => {
    const call = client(api.url);
    await seedWorld(call, 2, 3);
    await untilConverged(call, 30_000);
    await untilNothingBehind(db.url!);

    const wanted = async () => Number((await sql.query('SELECT position FROM reconcile_wants WHERE key = $1', [scoped('switchyard.dev/gateway-controller', gatewayJob('infra', 'gw-0'))])).rows[0]?.position ?? 0);
    const hold = await holdRecomputeWrites(db.url!);
    let restartedAt = 0;
    try {
      expect((await call('PUT', routePath(0, 0), routeBody(0, 0, 1))).status).toBe(200);
      await until('the recompute in the middle of its write', async () => (await hold.waiting()).includes('worker'));
      const before = await wanted();
      expect((await call('PUT', routePath(0, 1), routeBody(0, 1, 1))).status).toBe(200);
      // asked for, and the checkpoint moved past it: from here on only Redis knows to run it again
      await until('the second change dispatched', async () => (await wanted()) > before);
      await redis.kill();
      await redis.start();
      restartedAt = performance.now();
    } finally {
      await hold.release();
    }
    await untilConverged(call, 20_000);
    console.log(`Redis restarted empty: converged ${Math.round(performance.now() - restartedAt)} ms after it was back`);
    expect(worker.child.exitCode).toBeNull();
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
  }, 90_000);
});
