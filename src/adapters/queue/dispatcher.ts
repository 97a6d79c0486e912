// Tails the event log from a checkpoint kept in PostgreSQL and asks the queue to recompute what
// each event can affect. The checkpoint moves only after the queue took the requests, so when Redis
// is away nothing is lost: the dispatcher retries from the same place until it is back.
import type { Database } from '../store/database';
import { HORIZON, TX_SHIFT, type StoredEvent } from '../store/eventlog';
import type { ReconcileQueue } from './types';
import { ROUTE_KINDS, isRouteKind } from '../../core/model/kinds';
import { inReadingOrder } from '../../core/objects/order';
import { SERVICE_NAME_LABEL, gatewaysNamedBy } from '../../core/refs/lookup';
import type { K8sObject } from '../../core/model/objects';

export const DISPATCH_CHECKPOINT = 'dispatcher';

// While events stream in (more than PACE_EVENTS within PACE_WINDOW_MS), batches start at most every
// PACE_MS: each batch costs a read, a round of requests and a checkpoint write whatever its size, and
// in a burst a batch per write would take the CPU the writes need. A lone change is read at once.
const PACE_WINDOW_MS = 50;
const PACE_EVENTS = 16;
const PACE_MS = 20;

/** Keys in shared tables carry the controller's name: several controllers may share one store. */
export function scoped(scope: string, key: string): string {
  return `${scope}|${key}`;
}

export interface DispatcherOptions {
  /** the controller name: its checkpoint and requests are its own */
  scope: string;
  batch?: number;
  pollMs?: number;
  onError?: (err: unknown) => void;
  onDispatched?: (position: number, keys: string[]) => void;
  /**
   * Every batch read: the events after `from` up to `upTo`, all of them (the worker's object cache
   * takes them instead of reading them again).
   */
  onBatch?: (from: number, events: BatchEvent[], upTo: number) => void;
}

export async function readCheckpoint(db: Database, name = DISPATCH_CHECKPOINT): Promise<number> {
  const rows = await db.sql.$queryRawUnsafe<{ position: bigint }[]>(`SELECT position FROM checkpoints WHERE name = $1`, name);
  return rows[0] ? Number(rows[0].position) : 0;
}

/**
 * Whether the reconciler has caught up with the log up to `position`: the dispatcher has read past
 * it and every key it has asked for so far has been recomputed since. (A key keeps only its newest
 * request, so requests made on account of later events count too: stricter, never wrong.)
 */
export async function caughtUp(db: Database, position: number, scope?: string): Promise<boolean> {
  const prefix = scope === undefined ? '%' : `${scoped(scope, '')}%`;
  const rows = await db.sql.$queryRawUnsafe<{ ok: boolean }[]>(
    `SELECT coalesce((SELECT min(position) FROM checkpoints WHERE name LIKE $1), 0) >= $2
        AND NOT EXISTS (
          SELECT 1 FROM reconcile_wants w LEFT JOIN recomputes r ON r.gateway = w.key
          WHERE w.key LIKE $3 AND (r.source_position IS NULL OR r.source_position < w.position)
        ) AS ok`,
    `${DISPATCH_CHECKPOINT}|${scope ?? '%'}`, position, prefix);
  return Boolean(rows[0]?.ok);
}

// One round trip per batch: the checkpoint, the events after it that no future commit can precede
// (see readEvents), and the version before each route or EndpointSlice event (a change can move a
// route off a Gateway, or a slice off a Service: both sides are affected).
const BATCH_SQL = `
WITH c AS (SELECT coalesce((SELECT position FROM checkpoints WHERE name = $1), 0) AS p),
     h AS (SELECT ${HORIZON} AS xmin)
SELECT c.p AS checkpoint, h.xmin, e.position, e.stream, e.type, e.kind, e.namespace, e.name, e.version, e.object, prev.object AS previous
FROM c CROSS JOIN h CROSS JOIN LATERAL (
  SELECT * FROM events WHERE position > c.p AND position < h.xmin * ${TX_SHIFT} ORDER BY position LIMIT $2
) e
LEFT JOIN events prev ON e.version > 1 AND e.kind = ANY($3::text[])
  AND prev.stream = e.kind || '/' || e.namespace || '/' || e.name AND prev.version = e.version - 1
ORDER BY e.position`;

/** An event of a batch, with what the dispatcher needs of it. */
export type BatchEvent = Pick<StoredEvent, 'position' | 'kind' | 'namespace' | 'name' | 'version' | 'object'> & { stream?: string; type?: string };

export class Dispatcher {
  private stopped = false;
  private wake: (() => void) | null = null;
  private dirty = true;
  private loop: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** the recent batches that found events: when each started, and how many it found */
  private recent: { at: number; events: number }[] = [];

  private readonly checkpoint: string;

  constructor(private readonly db: Database, private readonly queue: ReconcileQueue, private readonly opts: DispatcherOptions) {
    this.checkpoint = `${DISPATCH_CHECKPOINT}|${opts.scope}`;
  }

  poke = (): void => {
    this.dirty = true;
    const w = this.wake;
    this.wake = null;
    w?.();
  };

  start(): void {
    this.timer = setInterval(this.poke, this.opts.pollMs ?? 500);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.poke();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      if (!this.dirty) await new Promise<void>((r) => (this.wake = r));
      if (this.stopped) break;
      const wait = this.pace();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      this.dirty = false;
      try {
        while (!this.stopped && (await this.step())) { /* drain */ }
        failures = 0;
      } catch (err) {
        this.opts.onError?.(err);
        failures++;
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** failures)));
        this.dirty = true;
      }
    }
  }

  /** Whether events are streaming in (see PACE_MS). */
  private streaming(): boolean {
    const t = performance.now();
    while (this.recent.length > 0 && t - this.recent[0].at > PACE_WINDOW_MS) this.recent.shift();
    let events = 0;
    for (const b of this.recent) events += b.events;
    return events >= PACE_EVENTS;
  }

  /** How long to wait before the next batch. */
  private pace(): number {
    if (!this.streaming()) return 0;
    return Math.max(0, this.recent[this.recent.length - 1].at + PACE_MS - performance.now());
  }

  /** One batch: returns true when more may be waiting. */
  async step(): Promise<boolean> {
    const limit = this.opts.batch ?? 1000;
    const started = performance.now();
    const rows = await this.db.prepared<{ checkpoint: number; xmin: number; position: number; stream: string; type: string; kind: string; namespace: string; name: string; version: number; object: K8sObject; previous: K8sObject | null }[]>(
      'switchyard_dispatch_batch', BATCH_SQL, this.checkpoint, limit, [...ROUTE_KINDS, 'EndpointSlice']);
    if (rows.length === 0) return false;
    this.recent.push({ at: started, events: rows.length });
    const items: BatchEvent[] = [];
    const previous = new Map<string, K8sObject>();
    for (const r of rows) {
      const ev = { position: Number(r.position), stream: r.stream, type: r.type, kind: r.kind, namespace: r.namespace, name: r.name, version: Number(r.version), object: inReadingOrder(r.object) };
      items.push(ev);
      if (r.previous) previous.set(`${ev.kind}/${ev.namespace}/${ev.name}@${ev.version - 1}`, r.previous);
    }
    const last = items[items.length - 1].position;
    this.opts.onBatch?.(Number(rows[0].checkpoint), items, rows.length < limit ? Number(rows[0].xmin) * TX_SHIFT - 1 : last);
    const keys = await this.affected(items, previous);
    await this.queue.request([...keys], last, this.streaming());
    await this.db.sql.$executeRawUnsafe(
      `WITH wants AS (
         INSERT INTO reconcile_wants (key, position) SELECT unnest($3::text[]), $2
         ON CONFLICT (key) DO UPDATE SET position = GREATEST(reconcile_wants.position, excluded.position)
         RETURNING 1
       )
       INSERT INTO checkpoints (name, position) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET position = excluded.position WHERE checkpoints.position < excluded.position`,
      this.checkpoint, last, [...keys].map((k) => scoped(this.opts.scope, k)));
    this.opts.onDispatched?.(last, [...keys]);
    return items.length === limit;
  }

  /** The recompute keys a batch of events can affect. */
  async affected(events: BatchEvent[], known?: Map<string, K8sObject>): Promise<Set<string>> {
    const keys = new Set<string>();
    const deps = new Set<string>();
    const classes = new Set<string>();
    const previous = known ?? await this.previousVersions(events.filter((e) => e.version > 1 && (isRouteKind(e.kind) || e.kind === 'EndpointSlice')));
    for (const ev of events) {
      const before = previous.get(`${ev.kind}/${ev.namespace}/${ev.name}@${ev.version - 1}`);
      const versions = [before, ev.object].filter(Boolean) as K8sObject[];
      if (isRouteKind(ev.kind)) {
        for (const v of versions) for (const g of gatewaysNamedBy(v)) keys.add(`Gateway/${g}`);
        continue;
      }
      switch (ev.kind) {
        case 'Gateway': keys.add(`Gateway/${ev.namespace}/${ev.name}`); break;
        case 'GatewayClass': keys.add(`GatewayClass//${ev.name}`); classes.add(ev.name); break;
        case 'Namespace': deps.add('Namespace/*'); break;
        case 'ReferenceGrant': deps.add(`ReferenceGrant/${ev.namespace}`); break;
        case 'EndpointSlice':
          for (const v of versions) {
            const svc = v.metadata?.labels?.[SERVICE_NAME_LABEL];
            if (svc) deps.add(`EndpointSlice/${ev.namespace}/${svc}`);
          }
          break;
        default: deps.add(`${ev.kind}/${ev.namespace}/${ev.name}`);
      }
    }
    if (classes.size) {
      const rows = await this.db.sql.$queryRawUnsafe<{ namespace: string; name: string }[]>(
        `SELECT namespace, name FROM objects WHERE kind = 'Gateway' AND NOT deleted AND object->'spec'->>'gatewayClassName' = ANY($1::text[])`, [...classes]);
      for (const r of rows) keys.add(`Gateway/${r.namespace}/${r.name}`);
    }
    if (deps.size) {
      const prefix = scoped(this.opts.scope, '');
      const rows = await this.db.sql.$queryRawUnsafe<{ gateway: string }[]>(
        `SELECT DISTINCT gateway FROM gateway_deps WHERE dep = ANY($1::text[]) AND starts_with(gateway, $2)`, [...deps], prefix);
      for (const r of rows) keys.add(r.gateway.slice(prefix.length));
    }
    return keys;
  }

  private async previousVersions(events: BatchEvent[]): Promise<Map<string, K8sObject>> {
    const out = new Map<string, K8sObject>();
    if (events.length === 0) return out;
    const rows = await this.db.sql.$queryRawUnsafe<{ stream: string; version: number; object: K8sObject }[]>(
      `SELECT e.stream, e.version, e.object FROM events e JOIN unnest($1::text[], $2::int[]) AS k(stream, version)
         ON e.stream = k.stream AND e.version = k.version`,
      events.map((e) => `${e.kind}/${e.namespace}/${e.name}`), events.map((e) => e.version - 1));
    for (const r of rows) out.set(`${r.stream}@${r.version}`, r.object);
    return out;
  }
}
