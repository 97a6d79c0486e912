// The reconcile side: the dispatcher that turns the log into requests, and the workers that
// recompute. `npm run worker` runs it alone; `npm start` runs it beside the API.
import type { Logger } from 'pino';
import { hostname } from 'node:os';
import { DEFAULT_KUBE_EVENTS_RETENTION_SECONDS } from './config/env';
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
import { MeshReconciler } from './service/mesh-reconcile';
import { markWork } from './runtime/idle-gc';
import { NOTICE_BODY_LIMIT, DELTA_NOTICE_LIMIT, EVENTS_CHANNEL, meshSnapshotChannel, publish, RECONCILED_CHANNEL, SNAPSHOT_CHANNEL, snapshotDeltaChannel, snapshotNotice } from './adapters/delivery/channels';
import { WorkerMetrics } from './adapters/metrics/worker';
import { readDispatchLag } from './adapters/store/dispatch-lag';
import { dispatchCheckpoint } from './adapters/store/scope';

export interface WorkerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  controllerName: string;
  /** SWITCHYARD_ADDRESS_POOL, as the configuration read it */
  addressPool?: readonly string[];
  redisUrl?: string;
  /** the deployment's Redis prefix, for the queue's keys (required with redisUrl) */
  queuePrefix?: string;
  /** the deployment's id (see redis-keys.ts deploymentOf): its queue is its own */
  deploymentId?: string;
  /** run the dispatcher here (every worker does; they coordinate through the checkpoint) */
  dispatch?: boolean;
  concurrency?: number;
  /** this process's Node metrics and build_info go with the worker's (a worker process of its own) */
  processMetrics?: boolean;
  /** KUBE_EVENTS_RETENTION_SECONDS: Kubernetes Events of status transitions are recorded (0: none); default an hour */
  kubeEventsRetentionSeconds?: number;
  /** CLUSTER_DOMAIN, for the mesh tables' Service names */
  clusterDomain?: string;
}

export interface RunningWorker {
  queue: ReconcileQueue;
  dispatcher: Dispatcher | null;
  reconciler: Reconciler;
  mesh: MeshReconciler;
  metrics: WorkerMetrics;
  /** resolves once no whole table is being stored in place of its chain of deltas (what a reader of the store may wait for) */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** how long after a version's notice its whole table is stored in place of its chain of deltas */
const COMPACT_AFTER_MS = 5;

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
  const reconciler = new Reconciler(o.db, {
    controllerName: o.controllerName, addressPool: o.addressPool,
    events: { instance: hostname(), retentionSeconds: o.kubeEventsRetentionSeconds ?? DEFAULT_KUBE_EVENTS_RETENTION_SECONDS },
  });

  const mesh = new MeshReconciler(o.db, reconciler.cache, { controllerName: o.controllerName, clusterDomain: o.clusterDomain });
  const metrics = new WorkerMetrics({ processMetrics: o.processMetrics ?? false });
  /** whole tables being stored in place of their chains (see `compact`), awaited by settled and close */
  const compactions = new Set<Promise<void>>();
  const settled = async () => {
    while (compactions.size > 0) await Promise.all([...compactions]);
  };

  const recompute = async (key: string, atLeast: number | undefined) => {
    const started = performance.now();
    try {
      return await recomputeJob(key, atLeast);
    } finally {
      markWork(performance.now() - started);
    }
  };
  const recomputeJob = async (key: string, atLeast: number | undefined) => {
    const job = parseJob(key);
    if (job.kind === 'GatewayClass') {
      const read = await reconciler.recomputeGatewayClass(job.name);
      o.bus.publish(RECONCILED_CHANNEL, key);
      return { read };
    }
    if (job.kind === 'MeshStatus') {
      const read = await mesh.recomputeStatuses(atLeast);
      o.bus.publish(RECONCILED_CHANNEL, key);
      return { read };
    }
    if (job.kind === 'Mesh') {
      const out = await mesh.recomputeTable(job.namespace, atLeast);
      // the body travels with its notice when it is small enough; an API reads the store otherwise
      if (out.changed) publish(o.bus, meshSnapshotChannel, { namespace: out.namespace, version: out.version, ...(out.body.length <= NOTICE_BODY_LIMIT ? { body: out.body } : {}) });
      o.bus.publish(RECONCILED_CHANNEL, key);
      return { read: out.sourcePosition };
    }
    const out = await reconciler.recomputeGateway(job.namespace, job.name, atLeast);
    // A changed snapshot is announced as soon as it is committed, before the check for missed
    // changes (a notice is a hint: the run that follows announces its own version too).
    if (out.snapshotChanged) {
      const { delta, snapshotVersion } = out;
      const deltaTravels = delta !== undefined && snapshotVersion !== undefined && delta.text.length <= DELTA_NOTICE_LIMIT;
      if (deltaTravels) publish(o.bus, snapshotDeltaChannel, { gateway: `${job.namespace}/${job.name}`, from: delta.from, to: snapshotVersion, text: delta.text });
      // After a delta the notice goes without the body: an API holding the version before makes
      // the body from the delta when a client takes it whole, and any other reads the store. Made
      // here for every change, the body of a table of 1,000 routes was half a megabyte joined,
      // sent through Redis and received, mostly to be dropped.
      const body = out.bodyFits && !deltaTravels ? out.bodyOf!() : undefined;
      o.bus.publish(SNAPSHOT_CHANNEL, snapshotNotice(`${job.namespace}/${job.name}`, snapshotVersion ?? null, body));
      metrics.snapshot(job.namespace, job.name, snapshotVersion === undefined ? null : { version: snapshotVersion, body: out.bodyFits ? body ?? out.bodyOf : undefined, bytes: out.bodyBytes });
    }
    if (out.compact) {
      // the whole table replaces its chain of deltas once the version is out: a moment later, so
      // that an API in this process sends the delta first (the table's text is made on this loop),
      // and apart from this run, so that the Gateway's next change does not wait for a table of
      // thousands of routes to be stored (a compaction writes only over the chain that leads to its version)
      const compact = out.compact;
      const stored: Promise<void> = new Promise((r) => setTimeout(r, COMPACT_AFTER_MS))
        .then(compact)
        .then((stored) => void (stored && metrics.snapshotStored(job.namespace, job.name, stored.version, stored.bytes)))
        .catch((err: unknown) => log.warn({ key, err }, 'storing the whole table failed; the next change stores it'))
        .finally(() => compactions.delete(stored));
      compactions.add(stored);
    }
    const again = out.written && (out.missed || (await missedChanges(o.db, out.sourcePosition, out.deps ?? [], scoped(o.controllerName, key))));
    o.bus.publish(RECONCILED_CHANNEL, key);
    return { read: out.sourcePosition, again };
  };

  queue.start(async (key, atLeast, queuedAt) => {
    const startedAt = Date.now();
    const started = performance.now();
    const kind = parseJob(key).kind;
    try {
      const served = await recompute(key, atLeast);
      metrics.recomputed(kind, served.again ? 'again' : 'ok', (performance.now() - started) / 1000, queuedAt, startedAt);
      return served;
    } catch (e) {
      metrics.recomputed(kind, 'error', (performance.now() - started) / 1000, queuedAt, startedAt);
      throw e;
    }
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
  const checkpoint = dispatchCheckpoint(o.controllerName);
  metrics.bind({ queue: () => queue.counts(), lag: dispatcher ? () => readDispatchLag(o.db, checkpoint) : undefined });
  return {
    queue, dispatcher, reconciler, mesh, metrics, settled,
    async close() {
      unsubscribe();
      await sweep?.stop();
      await dispatcher?.stop();
      await queue.close();
      await settled();
    },
  };
}
