// `npm run worker`: the reconcile worker alone (dispatcher + BullMQ workers), for scaled deployments.
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config/env';
import { openDatabase } from '../src/adapters/store/database';
import { migrate } from '../src/adapters/store/migrate';
import { InProcessBus, RedisBus } from '../src/adapters/delivery/bus';
import { startWorker } from '../src/worker';
import { deploymentOf } from '../src/adapters/queue/redis-keys';
import { databaseIdentity } from '../src/adapters/store/database-identity';

const config = loadConfig();
const logger = pino({ level: config.logLevel, base: { service: 'switchyard-worker' } });
if (!config.redisUrl || !config.databaseUrl) {
  logger.warn('the worker alone needs DATABASE_URL and REDIS_URL to share work with API processes; `npm start` runs both in one process');
}
const db = await openDatabase({ url: config.databaseUrl, dataDir: join(resolve(config.dataDir), 'pgdata') });
await migrate(db);
const deployment = config.redisUrl ? deploymentOf(await databaseIdentity(db), config.redisPrefix) : null;
const bus = config.redisUrl && deployment ? new RedisBus(config.redisUrl, deployment) : new InProcessBus();
const worker = startWorker({ db, bus, logger, controllerName: config.controllerName, addressPool: config.addressPool, redisUrl: config.redisUrl, queuePrefix: deployment?.prefix, deploymentId: deployment?.id });
logger.info({ redis: Boolean(config.redisUrl) }, 'switchyard worker running');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down: finishing jobs in flight');
    await worker.close();
    await bus.close();
    await db.close();
    process.exit(0);
  });
}
