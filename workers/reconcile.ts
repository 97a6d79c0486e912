// `npm run worker`: the reconcile worker alone (dispatcher + BullMQ workers), for scaled deployments,
// with /healthz, /readyz and /metrics on WORKER_PORT (0: none).
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { processLogger } from '../src/runtime/logger';
import type { Registry } from 'prom-client';
import { loadConfig } from '../src/config/env';
import { openDatabase } from '../src/adapters/store/database';
import { migrate } from '../src/adapters/store/migrate';
import { pingDatabase } from '../src/adapters/store/ping';
import { InProcessBus, RedisBus } from '../src/adapters/delivery/bus';
import { RedisPing } from '../src/adapters/delivery/redis-ping';
import { workerEndpoints } from '../src/adapters/http/worker-endpoints';
import { startWorker } from '../src/worker';
import { deploymentOf } from '../src/adapters/queue/redis-keys';
import { databaseIdentity } from '../src/adapters/store/database-identity';
import { readinessOf } from '../src/adapters/http/readiness';
import { listen } from '../src/runtime/listen';
import { StartupError } from '../src/runtime/startup-error';

/** how long jobs in flight may take to finish after SIGTERM */
const SHUTDOWN_GRACE_MS = 10_000;

const config = loadConfig();
const logger = processLogger({ level: config.logLevel, base: { service: 'switchyard-worker' } });
if (!config.redisUrl || !config.databaseUrl) {
  logger.warn('the worker alone needs DATABASE_URL and REDIS_URL to share work with API processes; `npm start` runs both in one process');
}
// The port first, as the API does: one in use is a one-line error before anything is opened.
// Until the worker runs, /readyz answers 503.
const notYet = (why: string) => async () => {
  throw new Error(why);
};
let readiness = () => readinessOf({ postgres: notYet('not opened yet: the worker is starting'), worker: notYet('starting') });
let registry: Registry | null = null;
const endpoints = config.workerPort > 0
  ? workerEndpoints({
      metrics: async () => ({ text: registry ? await registry.metrics() : '', contentType: registry?.contentType ?? 'text/plain; version=0.0.4; charset=utf-8' }),
      readiness: () => readiness(),
    })
  : null;
if (endpoints) {
  await listen(endpoints, config.workerPort, config.host, 'WORKER_PORT').catch((e: unknown) => {
    if (!(e instanceof StartupError)) throw e;
    process.stderr.write(`switchyard worker: ${e.message}\n`);
    process.exit(1);
  });
}

const db = await openDatabase({ url: config.databaseUrl, dataDir: join(resolve(config.dataDir), 'pgdata') });
await migrate(db);
const deployment = config.redisUrl ? deploymentOf(await databaseIdentity(db), config.redisPrefix) : null;
const bus = config.redisUrl && deployment ? new RedisBus(config.redisUrl, deployment) : new InProcessBus();
const worker = startWorker({
  db, bus, logger, controllerName: config.controllerName, addressPool: config.addressPool, redisUrl: config.redisUrl, queuePrefix: deployment?.prefix, deploymentId: deployment?.id, processMetrics: true,
});
const redisPing = config.redisUrl ? new RedisPing(config.redisUrl) : null;
registry = worker.metrics.registry;
readiness = () => readinessOf({
  postgres: () => pingDatabase(db.sql),
  ...(redisPing ? { redis: () => redisPing.check() } : {}),
  worker: async () => {
    if (!worker.queue.isRunning()) throw new Error('not taking jobs');
  },
});
logger.info({ redis: Boolean(config.redisUrl), port: endpoints ? (endpoints.address() as AddressInfo).port : null }, 'switchyard worker running');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down: finishing jobs in flight');
    // closing the queue waits for Redis; while Redis is away it would wait for ever
    setTimeout(() => {
      logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'worker shutdown did not finish in time (is Redis or PostgreSQL away?): exiting; unfinished jobs run again elsewhere');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    readiness = () => readinessOf({ postgres: () => pingDatabase(db.sql), worker: notYet('shutting down') });
    endpoints?.close();
    endpoints?.closeAllConnections();
    await worker.close();
    await bus.close();
    redisPing?.disconnect();
    await db.close();
    process.exit(0);
  });
}
