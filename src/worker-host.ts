// What a reconcile worker needs around it when it runs apart from the API, as `npm run worker` or
// on a thread of `npm start`'s process: its own database pool, bus and Redis ping.
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config/env';
import { openDatabase, type Database } from './adapters/store/database';
import { migrate } from './adapters/store/migrate';
import { InProcessBus, RedisBus, type Bus } from './adapters/delivery/bus';
import { RedisPing } from './adapters/delivery/redis-ping';
import { deploymentOf } from './adapters/queue/redis-keys';
import { databaseIdentity } from './adapters/store/database-identity';
import { startWorker, type RunningWorker } from './worker';

export interface HostedWorker {
  db: Database;
  bus: Bus;
  worker: RunningWorker;
  redisPing: RedisPing | null;
  /** finishes the jobs in flight, then closes what it opened */
  close(): Promise<void>;
}

export async function hostWorker(config: Config, logger: Logger, o: { processMetrics: boolean }): Promise<HostedWorker> {
  const db = await openDatabase({ url: config.databaseUrl, dataDir: join(resolve(config.dataDir), 'pgdata') });
  await migrate(db);
  const deployment = config.redisUrl ? deploymentOf(await databaseIdentity(db), config.redisPrefix) : null;
  const bus = config.redisUrl && deployment ? new RedisBus(config.redisUrl, deployment) : new InProcessBus();
  const worker = startWorker({
    db, bus, logger, controllerName: config.controllerName, addressPool: config.addressPool, redisUrl: config.redisUrl,
    queuePrefix: deployment?.prefix, deploymentId: deployment?.id, processMetrics: o.processMetrics,
    kubeEventsRetentionSeconds: config.kubeEventsRetentionSeconds, clusterDomain: config.clusterDomain,
  });
  const redisPing = config.redisUrl ? new RedisPing(config.redisUrl) : null;
  return {
    db, bus, worker, redisPing,
    async close() {
      await worker.close();
      await bus.close();
      redisPing?.disconnect();
      await db.close();
    },
  };
}
