// The reconcile side: the dispatcher that turns the log into requests, and the workers that
// recompute. `npm run worker` runs it alone; `npm start` runs it beside the API.
import type { Logger } from 'pino';
import type { Database } from './adapters/store/database';
import type { Bus } from './adapters/delivery/bus';
import type { ReconcileQueue } from './adapters/queue/types';
import { InProcessQueue } from './adapters/queue/in-process';
import { BullReconcileQueue } from './adapters/queue/bullmq';
import { reconcileQueueName } from './adapters/queue/redis-keys';
import { parseJob } from './adapters/queue/job-keys';
import { Dispatcher } from './adapters/queue/dispatcher';
import { BehindSweep } from './adapters/queue/sweep';
import { scoped } from './adapters/store/scope';
import { Reconciler, missedChanges } from './service/reconcile';
import { markWork } from './runtime/idle-gc';
import { EVENTS_CHANNEL, RECONCILED_CHANNEL, SNAPSHOT_CHANNEL, snapshotNotice } from './adapters/delivery/channels';

export interface WorkerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  controllerName: string;
  redisUrl?: string;
  /** the deployment's Redis prefix, for the queue's keys (required with redisUrl) */
  queuePrefix?: string;
  /** the deployment's id (see redis-keys.ts deploymentOf): its queue is its own */
  deploymentId?: string;
  /** run the dispatcher here (every worker does; they coordinate through the checkpoint) */
  dispatch?: boolean;
  concurrency?: number;
}

export interface RunningWorker {
  queue: ReconcileQueue;
  dispatcher: Dispatcher | null;
  reconciler: Reconciler;
  close(): Promise<void>;
}

function requiredPrefix(prefix: string | undefined): string {
  if (!prefix) throw new Error('a worker on Redis needs its deployment\'s prefix');
  return prefix;
}

export function startWorker(o: WorkerOptions): RunningWorker {
  const log = o.logger.child({ component: 'worker' });
  const onError = (key: string, err: unknown) => log.warn({ key, err }, 'recompute failed; it will be retried');
  const queue: ReconcileQueue = o.redisUrl
    ? new BullReconcileQueue({ url: o.redisUrl, prefix: requiredPrefix(o.queuePrefix), name: reconcileQueueName(o.controllerName, o.deploymentId), concurrency: o.concurrency ?? 4, onError })
    : new InProcessQueue(o.concurrency ?? 2, onError);
  const reconciler = new Reconciler(o.db, { controllerName: o.controllerName });

  queue.start(async (key, atLeast) => {
    markWork(20);
    const job = parseJob(key);
    if (job.kind === 'GatewayClass') {
      const read = await reconciler.recomputeGatewayClass(job.name);
      o.bus.publish(RECONCILED_CHANNEL, key);
      return { read };
    }
    const out = await reconciler.recomputeGateway(job.namespace, job.name, atLeast);
    // A changed snapshot is announced as soon as it is committed, before the check for missed
    // changes (a notice is a hint: the run that follows announces its own version too).
    if (out.snapshotChanged) o.bus.publish(SNAPSHOT_CHANNEL, snapshotNotice(`${job.namespace}/${job.name}`, out.snapshotVersion ?? null, out.body));
    const again = out.written && (out.missed || (await missedChanges(o.db, out.sourcePosition, out.deps ?? [], scoped(o.controllerName, key))));
    o.bus.publish(RECONCILED_CHANNEL, key);
    return { read: out.sourcePosition, again };
  });

  let dispatcher: Dispatcher | null = null;
  let sweep: BehindSweep | null = null;
  let unsubscribe = () => {};
  if (o.dispatch !== false) {
    dispatcher = new Dispatcher(o.db, queue, {
      scope: o.controllerName,
      onError: (err) => log.warn({ err }, 'dispatch failed; retrying from the checkpoint'),
      onBatch: (from, events, upTo) => reconciler.cache.feed(from, events, upTo),
    });
    unsubscribe = o.bus.subscribe(EVENTS_CHANNEL, dispatcher.poke);
    dispatcher.start();
    // every dispatching process sweeps: requests the queue lost are asked for again from the store
    sweep = new BehindSweep(o.db, queue, {
      scope: o.controllerName,
      onRetry: (keys) => log.info({ keys: keys.length, first: keys[0].key }, 'asked again for recomputes the store shows behind'),
    });
    sweep.start();
  }
  return {
    queue, dispatcher, reconciler,
    async close() {
      unsubscribe();
      await sweep?.stop();
      await dispatcher?.stop();
      await queue.close();
    },
  };
}
