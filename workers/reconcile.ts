// `npm run worker`: the reconcile worker alone (dispatcher + BullMQ workers), for scaled deployments,
// with /healthz, /readyz and /metrics on WORKER_PORT (0: none). WORKER_PORT not set, a worker takes
// 9091 or, when another worker on the machine has it, the next free port up to 9190, and says which:
// several workers on one machine all start. A WORKER_PORT that is set is that port or an error.
import type { AddressInfo } from 'node:net';
import { processLogger } from '../src/runtime/logger';
import type { Registry } from 'prom-client';
import { loadConfig } from '../src/config/env';
import { pingDatabase } from '../src/adapters/store/ping';
import { workerEndpoints } from '../src/adapters/http/worker-endpoints';
import { hostWorker } from '../src/worker-host';
import { readinessOf } from '../src/adapters/http/readiness';
import { listen, listenFirstFree } from '../src/runtime/listen';
import { StartupError } from '../src/runtime/startup-error';

/** how many ports from the default 9091 a worker tries when WORKER_PORT is not set */
const DEFAULT_PORTS_TRIED = 100;

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
  const bound = config.workerPortFixed
    ? listen(endpoints, config.workerPort, config.host, 'WORKER_PORT').then(() => config.workerPort)
    : listenFirstFree(endpoints, config.workerPort, config.host, DEFAULT_PORTS_TRIED, 'WORKER_PORT');
  const port = await bound.catch((e: unknown) => {
    if (!(e instanceof StartupError)) throw e;
    process.stderr.write(`switchyard worker: ${e.message}\n`);
    process.exit(1);
  });
  if (port !== config.workerPort) {
    logger.warn({ port, wanted: config.workerPort }, `port ${config.workerPort} is in use (another worker on this machine?): serving /healthz, /readyz and /metrics on ${port}; set WORKER_PORT to choose the port`);
  } else {
    logger.info({ port }, 'serving /healthz, /readyz and /metrics');
  }
}

const { db, worker, redisPing, close } = await hostWorker(config, logger, { processMetrics: true });
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
    await close();
    process.exit(0);
  });
}
