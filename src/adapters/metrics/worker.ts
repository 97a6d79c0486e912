// The reconcile pipeline's Prometheus metrics: recomputes by outcome and their duration, the
// queue's depth and how long requests wait in it, the dispatcher's lag behind the log, and the
// snapshot each Gateway was last given here. Depth and lag are read when scraped; the rest is
// recorded as it happens.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueCounts } from '../queue/types';
import type { DispatchLag } from '../store/dispatch-lag';
import { registerProcessMetrics } from './process';

export type RecomputeOutcome = 'ok' | 'error' | 'again';

/** Gateways with a snapshot series at most: beyond it new Gateways are not labelled (bounded cardinality). */
export const SNAPSHOT_SERIES_LIMIT = 1000;

export interface WorkerMetricSources {
  queue: () => Promise<QueueCounts>;
  /** absent where this process runs no dispatcher */
  lag?: () => Promise<DispatchLag>;
}

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class WorkerMetrics {
  readonly registry = new Registry();
  private sources: WorkerMetricSources | null = null;
  /** one read of the lag serves both of its gauges in a scrape */
  private lagRead: { at: number; value: Promise<DispatchLag | null> } | null = null;
  private readonly snapshotSeries = new Set<string>();

  readonly recomputes = new Counter({
    name: 'switchyard_recomputes_total', help: 'Recomputes by kind (Gateway, GatewayClass) and outcome: ok, error (it will be retried), again (it found changes it may have missed and runs once more)',
    labelNames: ['kind', 'outcome'], registers: [this.registry],
  });
  readonly recomputeDuration = new Histogram({
    name: 'switchyard_recompute_duration_seconds', help: 'Time a recompute took, load to write, by kind',
    labelNames: ['kind'], buckets: SECONDS_BUCKETS, registers: [this.registry],
  });
  readonly queueWait = new Histogram({
    name: 'switchyard_queue_wait_seconds', help: 'Time from the oldest request a recompute serves to its start (holds during bursts included)',
    buckets: SECONDS_BUCKETS, registers: [this.registry],
  });

  constructor(opts: { processMetrics: boolean }) {
    if (opts.processMetrics) registerProcessMetrics(this.registry);
    const self = this;
    new Gauge({
      name: 'switchyard_queue_jobs', help: 'Recompute jobs in the queue by state: waiting, active, delayed (held during a burst, or retried later)',
      labelNames: ['state'], registers: [this.registry],
      async collect() {
        const counts = await self.sources?.queue().catch(() => null);
        if (!counts) return;
        for (const state of ['waiting', 'active', 'delayed'] as const) this.set({ state }, counts[state]);
      },
    });
    new Gauge({
      name: 'switchyard_dispatcher_lag_events', help: 'Committed events after the dispatcher\'s checkpoint (the log\'s head minus the checkpoint, in events)',
      registers: [this.registry],
      async collect() {
        const lag = await self.lag();
        if (lag) this.set(lag.events);
      },
    });
    new Gauge({
      name: 'switchyard_dispatcher_lag_seconds', help: 'How long the oldest event after the dispatcher\'s checkpoint has waited; 0 when it is caught up',
      registers: [this.registry],
      async collect() {
        const lag = await self.lag();
        if (lag) this.set(lag.seconds);
      },
    });
  }

  readonly snapshotVersion = new Gauge({
    name: 'switchyard_snapshot_version', help: 'The snapshot version of each Gateway, as this process last wrote it',
    labelNames: ['namespace', 'name'], registers: [this.registry],
  });
  /** bodies written since the last scrape: a large table's size is measured when asked for, not on every change */
  private readonly unmeasured = new Map<string, { labels: { namespace: string; name: string }; body: string | (() => string) }>();
  /** the version each Gateway's size was last set for, so that a compaction finishing late does not set an older one */
  private readonly sizedVersions = new Map<string, number>();
  readonly snapshotBytes = new Gauge({
    name: 'switchyard_snapshot_bytes',
    help: 'The size of each Gateway\'s snapshot body (JSON, without Secret data), as this process last made it whole: each version of a table up to 1 MB; a larger one when stored whole, its changes in between being stored as deltas',
    labelNames: ['namespace', 'name'], registers: [this.registry],
    collect: () => {
      for (const { labels, body } of this.unmeasured.values()) this.snapshotBytes.set(labels, Buffer.byteLength(typeof body === 'string' ? body : body()));
      this.unmeasured.clear();
    },
  });

  /** Where the scraped gauges read from; set once the queue and the dispatcher exist. */
  bind(sources: WorkerMetricSources): void {
    this.sources = sources;
  }

  private lag(): Promise<DispatchLag | null> {
    const read = this.sources?.lag;
    if (!read) return Promise.resolve(null);
    const now = performance.now();
    if (!this.lagRead || now - this.lagRead.at > 250) this.lagRead = { at: now, value: read().catch(() => null) };
    return this.lagRead.value;
  }

  recomputed(kind: 'Gateway' | 'GatewayClass' | 'Mesh' | 'MeshStatus', outcome: RecomputeOutcome, seconds: number, queuedAt?: number, startedAt?: number): void {
    this.recomputes.inc({ kind, outcome });
    this.recomputeDuration.observe({ kind }, seconds);
    if (queuedAt !== undefined && startedAt !== undefined) this.queueWait.observe(Math.max(0, startedAt - queuedAt) / 1000);
  }

  /**
   * A Gateway's snapshot as just written: its version, and its body (or what makes it, when the
   * gauge is read) or the body's size when this process made it whole (a large table's change is
   * a delta: its size stays as last made whole); `null` when it has none any more.
   */
  snapshot(namespace: string, name: string, written: { version: number; body?: string | (() => string); bytes?: number } | null): void {
    const key = `${namespace}/${name}`;
    const labels = { namespace, name };
    if (written === null) {
      this.unmeasured.delete(key);
      this.sizedVersions.delete(key);
      if (this.snapshotSeries.delete(key)) {
        this.snapshotVersion.remove(labels);
        this.snapshotBytes.remove(labels);
      }
      return;
    }
    if (!this.snapshotSeries.has(key)) {
      if (this.snapshotSeries.size >= SNAPSHOT_SERIES_LIMIT) return;
      this.snapshotSeries.add(key);
    }
    this.snapshotVersion.set(labels, written.version);
    if (written.body !== undefined) {
      this.sizedVersions.set(key, written.version);
      this.unmeasured.set(key, { labels, body: written.body });
    } else if (written.bytes !== undefined) this.snapshotStored(namespace, name, written.version, written.bytes);
  }

  /** The size of a Gateway's body at `version`, stored whole (by its recompute, or by a compaction after it). */
  snapshotStored(namespace: string, name: string, version: number, bytes: number): void {
    const key = `${namespace}/${name}`;
    if (!this.snapshotSeries.has(key) || (this.sizedVersions.get(key) ?? -1) > version) return;
    this.sizedVersions.set(key, version);
    this.unmeasured.delete(key);
    this.snapshotBytes.set({ namespace, name }, bytes);
  }
}
