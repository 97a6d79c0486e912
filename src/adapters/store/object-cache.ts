// The worker's copy of the object projection, kept current by tailing the event log (what a
// Kubernetes controller's informer cache is). A recompute reads its Gateway's world from here
// instead of asking PostgreSQL to gather it: one recompute used to cost PostgreSQL more CPU than
// the translation itself. Objects are frozen, in reading order, and shared by every recompute; an
// unchanged object stays the same value from one recompute to the next.
import type { ListAt } from '../../core/model/chunked-list';
import type { Database } from './database';
import { HORIZON, TX_SHIFT, readEvents } from './eventlog';
import { streamKey } from '../../core/objects/keys';
import { IndexedObjects } from './indexed-objects';
import type { K8sObject } from '../../core/model/objects';
import type { ObjectSource } from './world-loader';
import { getSecretsData } from './objects';

const TAIL_BATCH = 5000;

interface Row { position: number; stream: string; kind: string; namespace: string; deleted: boolean; object: K8sObject }

export class ObjectCache implements ObjectSource {
  /** every event at or below this position is reflected */
  position = -1;
  private readonly objects = new IndexedObjects();
  /** the position of each stream's newest event seen, deleted ones included */
  private readonly positions = new Map<string, number>();
  /** Secret data (not in the log), kept while its digest stays the same */
  private readonly secretKept = new Map<string, { digest: string; data: Record<string, string> }>();
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly db: Database) {}

  get(stream: string): K8sObject | undefined {
    return this.objects.get(stream);
  }

  routesNaming(ns: string, name: string, parentKind: 'Gateway' | 'ListenerSet' = 'Gateway'): ListAt<K8sObject> {
    return this.objects.routesNaming(ns, name, parentKind);
  }

  listenerSetsNaming(ns: string, name: string): K8sObject[] {
    return this.objects.listenerSetsNaming(ns, name);
  }

  slicesOf(ns: string, service: string): K8sObject[] {
    return this.objects.slicesOf(ns, service);
  }

  ofKind(kind: string, ns?: string): K8sObject[] {
    return this.objects.ofKind(kind, ns);
  }

  async secretData(secrets: K8sObject[]): Promise<Map<string, Record<string, string>>> {
    const streamOf = (s: K8sObject) => streamKey('Secret', s.metadata.namespace ?? '', s.metadata.name);
    const missing = secrets.filter((s) => this.secretKept.get(streamOf(s))?.digest !== String(s.dataDigest ?? ''));
    if (missing.length) for (const [stream, kept] of await getSecretsData(this.db.sql, missing.map(streamOf))) this.secretKept.set(stream, kept);
    return new Map(secrets.map((s) => [streamOf(s), this.secretKept.get(streamOf(s))?.data ?? {}]));
  }

  /**
   * Brings the cache up to the log's horizon as of this call: a sync already running may have
   * started before the caller's writes committed, so the caller waits for the one after it.
   */
  sync(): Promise<void> {
    if (!this.running) {
      this.running = this.pull().finally(() => { this.running = null; });
      return this.running;
    }
    if (!this.queued) {
      this.queued = this.running.catch(() => undefined).then(() => {
        this.queued = null;
        return this.sync();
      });
    }
    return this.queued;
  }

  /**
   * Events someone else read from the log: every event after `from` up to `upTo`. They are taken
   * only when they continue what the cache holds without a gap (another process's dispatcher may
   * have moved the shared checkpoint past events this cache has not seen; sync reads those).
   */
  feed(from: number, events: { position: number; stream?: string; type?: string; kind: string; namespace: string; object: K8sObject }[], upTo: number): void {
    if (this.position < 0 || this.position < from) return;
    for (const e of events) {
      if (e.position <= this.position || !e.stream || !e.type) continue;
      this.apply({ position: e.position, stream: e.stream, kind: e.kind, namespace: e.namespace, deleted: e.type === 'Deleted', object: e.object });
    }
    this.position = Math.max(this.position, upTo);
  }

  private async pull(): Promise<void> {
    if (this.position < 0) return this.load();
    for (;;) {
      const { items, horizon } = await readEvents(this.db.sql, { after: this.position, limit: TAIL_BATCH });
      for (const e of items) {
        this.apply({ position: e.position, stream: streamKey(e.kind, e.namespace, e.name), kind: e.kind, namespace: e.namespace, deleted: e.type === 'Deleted', object: e.object });
      }
      if (items.length < TAIL_BATCH) {
        this.position = Math.max(this.position, horizon);
        return;
      }
      this.position = Math.max(this.position, items[items.length - 1].position);
    }
  }

  /** The first fill: the projection as of one snapshot, tombstones included (see apply). */
  private async load(): Promise<void> {
    const rows = await this.db.transaction(async (tx) => {
      const [h] = await tx.$queryRawUnsafe<{ xmin: number }[]>(`SELECT ${HORIZON} AS xmin`);
      const objects = await tx.$queryRawUnsafe<Row[]>(`SELECT position, stream, kind, namespace, deleted, object FROM objects`);
      return { xmin: Number(h.xmin), objects };
    }, { isolation: 'RepeatableRead', readOnly: true });
    for (const r of rows.objects) this.apply({ ...r, position: Number(r.position) });
    this.position = rows.xmin * TX_SHIFT - 1;
  }

  /**
   * The snapshot of the first fill may hold commits above the horizon that the tail then reads
   * again; an event no newer than what the cache holds for its stream is skipped, so an older
   * version never replaces a newer one and a deleted object never comes back.
   */
  private apply(r: Row): void {
    const seen = this.positions.get(r.stream);
    if (seen !== undefined && seen >= r.position) return;
    this.positions.set(r.stream, r.position);
    if (r.kind === 'Secret') this.secretKept.delete(r.stream);
    if (r.deleted) this.objects.delete(r.stream);
    else this.objects.set(r.stream, r.object);
  }
}
