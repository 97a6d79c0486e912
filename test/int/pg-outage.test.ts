// A PostgreSQL outage while route changes stream in: during it, writes answer 503 with Retry-After
// and /readyz names postgres as down (Redis up); once it ends, every process (an API, a worker, the
// all-in-one `npm start`, and an all-in-one without Redis on a database of its own) is still running
// and every Gateway converges, with no manual step: jobs that gave up during the outage are asked
// for again by the sweep. The PostgreSQL is a throwaway cluster the test stops (as a crash) and
// starts. The outage lasts 5 s here; FAULTS_LONG=1 adds one of 60 s (`npm run bench:faults` runs
// both), kept out of the default run because the files run one at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ADMIN_TOKEN, client, type Client } from '../support/server';
import { startProcess, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../support/process';
import { HAS_REDIS_SERVER, redisServer } from '../support/redis-server';
import { pgBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster';
import { changeStream, routeBody, routePath, seedWorld, until, untilConverged } from '../support/faults';

const binaries = pgBinaries();
const why = 'missing' in binaries ? binaries.missing : !HAS_REDIS_SERVER ? 'needs the redis-server binary' : '';
if (why) console.log(`skipped: PostgreSQL outage (${why})`);
const OUTAGES = process.env.FAULTS_LONG ? [5, 60] : [5];

describe.skipIf(Boolean(why))(`a PostgreSQL outage${why ? ` (skipped: ${why})` : ''}`, () => {
  let cluster: PgCluster;
  const redis = redisServer();
  let api: ServiceProcess;
  let allInOne: ServiceProcess;
  let solo: ServiceProcess;
  let worker: WorkerProcess;
  const processes = () => [api, allInOne, solo, worker];

  beforeAll(async () => {
    [cluster] = await Promise.all([startPgCluster(), redis.start()]);
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE solo');
    await admin.end();
    const env = { DATABASE_URL: cluster.url, REDIS_URL: redis.url, ADMIN_TOKEN };
    // the first start migrates; the others then start at once
    api = await startProcess(env, 'src/main.ts', ['--role=api']);
    [allInOne, solo, worker] = await Promise.all([
      startProcess(env, 'src/main.ts'),
      startProcess({ DATABASE_URL: cluster.url.replace(/\/postgres$/, '/solo'), ADMIN_TOKEN }, 'src/main.ts'),
      startWorkerProcess(env),
    ]);
    await Promise.all([seedWorld(client(api.url), 3, 4), seedWorld(client(solo.url), 2, 3)]);
    await Promise.all([untilConverged(client(api.url), 30_000), untilConverged(client(solo.url), 30_000)]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(processes().map((p) => p?.stop('SIGKILL')));
    await Promise.all([cluster?.destroy(), redis.destroy()]);
  });

  async function duringOutage(c: Client, url: string): Promise<void> {
    const write = await c('PUT', routePath(0, 0), routeBody(0, 0, 999));
    expect(write.status, write.text).toBe(503);
    expect(write.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(write.headers.get('content-type')).toContain('application/problem+json');
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { down: string[]; checks: Record<string, { state: string }> };
    expect(body.down).toEqual(['postgres']);
    expect(body.checks.postgres.state).toBe('down');
    if (body.checks.redis) expect(body.checks.redis.state).toBe('up');
  }

  for (const seconds of OUTAGES) {
    it(`every Gateway converges after an outage of ${seconds} s, and every process is still up`, async () => {
      const [a, b, s] = [client(api.url), client(allInOne.url), client(solo.url)];
      const streams = [changeStream(a, 3, 4), changeStream(b, 3, 4, 2), changeStream(s, 2, 3, 2)];
      await until('writes answered on every API', async () => streams.every((x) => (x.statuses.get(200) ?? 0) >= 20), 30_000);
      const stoppedAt = performance.now();
      await cluster.stop('immediate');
      await new Promise((r) => setTimeout(r, 500));
      for (const [c, p] of [[a, api], [b, allInOne], [s, solo]] as const) await duringOutage(c, p.url);
      await new Promise((r) => setTimeout(r, Math.max(0, seconds * 1000 - (performance.now() - stoppedAt))));
      await Promise.all(streams.map((x) => x.stop()));
      await cluster.start();
      const backAt = performance.now();

      const [withRedis, withoutRedis] = await Promise.all([untilConverged(a, 30_000), untilConverged(s, 30_000)]);
      const total = performance.now() - backAt;
      console.log(`PostgreSQL outage of ${seconds} s: converged ${Math.round(withRedis)} ms (Redis queue) and ${Math.round(withoutRedis)} ms (in-process queue) after it was back; all within ${Math.round(total)} ms`);
      console.log(`answers to the change streams (status, count): ${streams.map((x) => JSON.stringify([...x.statuses])).join(" ")}`);
      for (const x of streams) {
        expect(x.statuses.get(200) ?? 0).toBeGreaterThan(0);
        expect(x.statuses.get(503) ?? 0).toBeGreaterThan(0);
        expect([...x.statuses.keys()].filter((st) => st >= 500 && st !== 503)).toEqual([]);
      }
      for (const p of processes()) expect(p.child.exitCode, p.output().slice(-2000)).toBeNull();
      for (const p of [api, allInOne, solo]) expect((await fetch(`${p.url}/readyz`)).status).toBe(200);
      // and the API takes writes again
      expect((await a('PUT', routePath(1, 1), routeBody(1, 1, 1000))).status).toBe(200);
      await untilConverged(a, 30_000);
    }, 60_000 + seconds * 1000);
  }
});
