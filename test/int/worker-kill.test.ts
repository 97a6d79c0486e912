// A worker killed with SIGKILL in the middle of a recompute: another worker takes its Gateway over
// within seconds (its lock in Redis expires and the stalled check hands the job on), and a change
// written while the dead worker's job still looks active is not dropped. Real processes: one API,
// two workers; each worker's connections carry its name, so the test sees which one is mid-recompute
// (its write is held back by a lock the test takes on the store) and kills that one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { freshDatabaseUrl, needs } from '../support/database';
import { ADMIN_TOKEN, client } from '../support/server';
import { dropRedisPrefix } from '../support/redis';
import { startProcess, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../support/process';
import { holdRecomputeWrites, routeBody, routePath, seedWorld, until, untilConverged, untilNothingBehind, withApplicationName } from '../support/faults';

const need = needs({ pg: true, redis: true });

describe.skipIf(need.skip)(`a worker killed mid-recompute${need.skip ? ` (skipped: ${need.why})` : ''}`, () => {
  let db: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  let api: ServiceProcess;
  const workers = new Map<string, WorkerProcess>();
  const redisPrefix = `sy-test-${randomBytes(4).toString('hex')}`;
  const env = () => ({ REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: redisPrefix, ADMIN_TOKEN });

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    const shared = env();
    [api] = await Promise.all([
      startProcess({ ...shared, DATABASE_URL: db.url }, 'src/main.ts', ['--role=api']),
      ...['worker-a', 'worker-b'].map(async (name) => workers.set(name, await startWorkerProcess({ ...shared, DATABASE_URL: withApplicationName(db.url!, name) }))),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([api?.stop(), ...[...workers.values()].map((w) => w.stop('SIGKILL'))]);
    await db?.drop();
    if (process.env.REDIS_URL) await dropRedisPrefix(process.env.REDIS_URL, redisPrefix).catch(() => undefined);
  });

  it('another worker recomputes its Gateway, with the changes written meanwhile', async () => {
    const call = client(api.url);
    await seedWorld(call, 2, 3);
    await untilConverged(call, 30_000);
    // so that the recompute the test catches mid-write is the one its change asked for
    await untilNothingBehind(db.url!);

    const hold = await holdRecomputeWrites(db.url!);
    let killedAt = 0;
    try {
      expect((await call('PUT', routePath(0, 0), routeBody(0, 0, 1))).status).toBe(200);
      const victim = await until('a worker in the middle of the recompute', async () => (await hold.waiting()).find((n) => workers.has(n)));
      workers.get(victim)!.child.kill('SIGKILL');
      killedAt = performance.now();
      await hold.terminate(victim);
      // written while the dead worker's job is still active in Redis
      expect((await call('PUT', routePath(0, 1), routeBody(0, 1, 1))).status).toBe(200);
    } finally {
      await hold.release();
    }
    // BullMQ's defaults (a 30 s lock, a 30 s stalled check) took 48-50 s here
    await untilConverged(call, 20_000);
    const ms = performance.now() - killedAt;
    console.log(`worker kill: converged ${Math.round(ms)} ms after the SIGKILL (target 5000 ms)`);
    const routes = (await call('GET', '/api/v1/namespaces/app/httproutes?limit=100')).body.items as any[];
    expect(routes.find((r) => r.metadata.name === 'r-0-0').spec.rules[0].matches[0].path.value).toBe('/r0/v1');
    expect(routes.find((r) => r.metadata.name === 'r-0-1').status.parents[0].conditions.find((c: any) => c.type === 'Accepted').observedGeneration).toBe(2);
  }, 90_000);
});
