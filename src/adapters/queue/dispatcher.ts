// Tails the event log from a checkpoint kept in PostgreSQL and asks the queue to recompute what
// each event can affect. The checkpoint moves only after the queue took the requests, so when Redis
// is away nothing is lost: the dispatcher retries from the same place until it is back.
import type { Database } from '../store/database';
import type { StoredEvent } from '../store/eventlog';
import { readDispatchBatch, recordDispatched } from '../store/dispatch-batch';
import { dispatchCheckpoint, scoped } from '../store/scope';
import type { ReconcileQueue } from './types';
import { inReadingOrder } from '../../core/objects/order';
import { parseDepKey, touchedBy } from '../../core/deps';
import { gatewaysDependingOn } from '../store/gateway-deps';
import { jobKey, MESH_STATUS_JOB, meshJob } from './job-keys';
import { meshNamespaces } from '../store/mesh-tables';

// While events stream in (more than PACE_EVENTS within PACE_WINDOW_MS), batches start at most every
// PACE_MS: each batch costs a read, a round of requests and a checkpoint write whatever its size, and
// in a burst a batch per write would take the CPU the writes need. A lone change is read at once.
const PACE_WINDOW_MS = 50;
const PACE_EVENTS = 16;
const PACE_MS = 20;

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

/** An event of a batch, with what the dispatcher needs of it. */
export type BatchEvent = Pick<StoredEvent, 'position' | 'kind' | 'namespace' | 'name' | 'version' | 'object'> & { stream?: string; type?: string; touches?: readonly string[] | null };

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
    this.checkpoint = dispatchCheckpoint(opts.scope);
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
    const batch = await readDispatchBatch(this.db, this.checkpoint, limit);
    if (!batch) return false;
    const { rows } = batch;
    this.recent.push({ at: started, events: rows.length });
    const items: BatchEvent[] = rows.map((r) => ({
      position: Number(r.position), stream: r.stream, type: r.type, kind: r.kind, namespace: r.namespace, name: r.name,
      version: Number(r.version), object: inReadingOrder(r.object), touches: r.touches,
    }));
    const last = items[items.length - 1].position;
    this.opts.onBatch?.(batch.from, items, rows.length < limit ? batch.horizon : last);
    const keys = await this.affected(items);
    await this.queue.request([...keys], last, this.streaming());
    await recordDispatched(this.db, this.checkpoint, last, [...keys].map((k) => scoped(this.opts.scope, k)));
    this.opts.onDispatched?.(last, [...keys]);
    return items.length === limit;
  }

  /**
   * The recompute keys a batch of events can affect: the Gateways (and GatewayClasses) an event
   * names itself, and every Gateway whose last recompute recorded a key the event touches.
   */
  async affected(events: BatchEvent[]): Promise<Set<string>> {
    const keys = new Set<string>();
    const touched = new Set<string>();
    for (const ev of events) {
      // stamped at write time; an event an older process wrote during an upgrade is read on its own
      for (const k of ev.touches ?? touchedBy(ev.kind, null, ev.object)) touched.add(k);
    }
    for (const k of touched) {
      const d = parseDepKey(k);
      if (d?.kind === 'Gateway' || d?.kind === 'GatewayClass') keys.add(jobKey(d));
    }
    if (touched.size) for (const gateway of await gatewaysDependingOn(this.db, this.opts.scope, [...touched])) keys.add(gateway);
    const mesh = meshTouched(events);
    if (mesh.all) for (const ns of await meshNamespaces(this.db, this.opts.scope)) keys.add(meshJob(ns));
    for (const ns of mesh.namespaces) keys.add(meshJob(ns));
    // after the tables, which proxies wait for: a queue starts its jobs in the order they were asked for
    if (mesh.status) keys.add(MESH_STATUS_JOB);
    return keys;
  }
}

/**
 * Which mesh tables a batch can change (GAMMA). Every table holds every Service with its endpoints,
 * and producer routes (in their Service's namespace) apply to every client: a change to a Service,
 * an EndpointSlice or a producer route asks for every namespace's table. A consumer route (naming a
 * Service of another namespace) applies to its own namespace's clients alone; a new Namespace gets
 * its table. Route statuses for Services change with the routes and with the Services they name.
 */
export function meshTouched(events: readonly BatchEvent[]): { all: boolean; status: boolean; namespaces: Set<string> } {
  const out = { all: false, status: false, namespaces: new Set<string>() };
  for (const ev of events) {
    for (const k of ev.touches ?? touchedBy(ev.kind, null, ev.object)) {
      const d = parseDepKey(k);
      if (!d) continue;
      if (d.kind === 'Service' || d.kind === 'EndpointSlices') {
        out.all = true;
        if (d.kind === 'Service') out.status = true;
      } else if (d.kind === 'MeshParent') {
        out.status = true;
        if (d.namespace === ev.namespace) out.all = true;
        else out.namespaces.add(ev.namespace);
      } else if (d.kind === 'Namespaces' && ev.kind === 'Namespace' && ev.name) {
        out.namespaces.add(ev.name);
      }
    }
  }
  return out;
}
