// Serves compiled snapshots to proxies from a per-process cache of the serialized bodies. A change
// made by any worker reaches every API process through the bus; a slow poll of the versions of
// watched Gateways covers notices lost while Redis is away, so nobody is left on an old version.

// a table joined or parsed whole is a burst of work as much as a burst of writes is (at 50,000
// routes, 60 MB of text and several times that in objects): the heap grows, and the collection
// after the next quiet spell lets it shrink again
import { markLetGo, markWork } from '../../runtime/idle-gc';
import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRaw } from 'node:zlib';
import type { Database } from '../store/database';
import { readSecretsWithData, readSnapshot, readSnapshotVersions, readUnattached, type StoredSnapshot } from '../store/snapshot-reads';
import type { Bus } from './bus';
import type { CompiledTable } from '../../core/compile';
import { streamKey } from '../../core/objects/keys';
import { mayReferenceSecrets, parseSnapshot, secretRefsOf, secretRefsOfParts, snapshotBody, withSecretData, type SnapshotSecret } from '../../core/snapshot/format';
import { applyChanges, type SnapshotDelta } from '../../core/snapshot/delta';
import { textPart, type TableParts } from '../../core/snapshot/table-parts';
import { DELTA_NOTICE_LIMIT, NOTICE_BODY_LIMIT, snapshotChannel, snapshotDeltaChannel, subscribe } from './channels';
import { DELTA_HISTORY, DeltaHistory, hashInHead } from './deltas';
import { bodyOfParts, chainedBody } from '../../core/snapshot/stored-chain';

/** The store keeps a body's tail deflated: it holds the table, nearly all of the body. */
export function deflateTail(tail: string): Buffer {
  return deflateRawSync(tail, { level: 1 });
}

/** deflateTail off the event loop (a 5,000-route table is some 6 MB). */
export function deflateTailAsync(tail: string): Promise<Buffer> {
  return new Promise((resolve, reject) => deflateRaw(tail, { level: 1 }, (err, out) => (err ? reject(err) : resolve(out))));
}

/** A hub key is "ns/name"; namespaces hold no "/". */
function gatewayOf(key: string): { namespace: string; name: string } {
  const at = key.indexOf('/');
  return { namespace: key.slice(0, at), name: key.slice(at + 1) };
}

const streamOf = (key: string) => {
  const g = gatewayOf(key);
  return streamKey('Gateway', g.namespace, g.name);
};

const inflateRawAsync = promisify(inflateRaw);

/**
 * The stored body, and the parts it was put together from when it was (see core/snapshot/stored-chain).
 * The parts this process holds are kept as their text alone (see textPart): at 50,000 routes their
 * objects took some 190 MB more per table held. The tail is inflated off the event loop: at 50,000
 * routes that is some 60 MB, a third of a second of the loop.
 */
async function bodyOf(key: string, row: StoredSnapshot): Promise<{ body: string; parts?: TableParts }> {
  if (row.tailZ === null) return { body: row.body ?? '' };
  const g = gatewayOf(key);
  // in pieces of 4 MB rather than zlib's 16 KB: a few hand-overs between the threads, not thousands
  let inflated: Buffer | undefined = await inflateRawAsync(row.tailZ, { chunkSize: 1 << 22 });
  const started = performance.now();
  try {
    const tail = inflated.toString('utf8');
    // not held while the parts and the body are made from the text (60 MB at 50,000 routes)
    inflated = undefined;
    if (row.baseVersion === null) return { body: snapshotBody(g.namespace, g.name, row.version, tail) };
    return chainedBody(g.namespace, g.name, row.version, row.baseVersion, tail, row.deltas, textPart);
  } finally {
    markWork(performance.now() - started);
  }
}

/**
 * A version of a Gateway's snapshot as this process serves it. A version reached by a worker's
 * delta while nobody here took whole snapshots of the Gateway is held without its body: the parts
 * a body is made from are some 120 MB at 50,000 routes, and the clients that take deltas are sent
 * the worker's. SnapshotHub.whole gives a version with its body.
 */
export interface HeldSnapshot {
  key: string; // "ns/name"
  version: number;
  /** the table's hash, where it was known without the body */
  readonly hash?: string;
  /** Secrets its listeners reference (namespace/name) */
  secretRefs: { namespace: string; name: string }[];
}

export interface CachedSnapshot extends HeldSnapshot {
  /** the Snapshot JSON without secrets, serialized once (when first read) */
  readonly body: string;
  /** the compiled table, parsed on first use and kept while memory allows (resolve only) */
  table(): CompiledTable;
}

export const hasBody = (s: HeldSnapshot): s is CachedSnapshot => 'body' in s;

/** How long after a whole snapshot of a Gateway was last asked for this process still holds what makes the next one. */
const KEEP_WHOLE_MS = 10_000;

/** Routes that name the Gateway but are not attached, for resolve's explanations (read on demand). */
export async function unattachedOf(db: Database, key: string): Promise<CompiledTable['unattached']> {
  const text = await readUnattached(db.sql, streamOf(key));
  return text === null ? [] : JSON.parse(text);
}

type Listener = (snap: HeldSnapshot | null) => void;
/** what a watcher takes: whole snapshots, or deltas (whole only when too far behind) */
export type Takes = 'whole' | 'delta';
/** a delta from version `from` to `to` as the worker made it (JSON text, no Secret data) */
type DeltaListener = (from: number, to: number, text: string) => void;

export class SnapshotHub {
  private cache = new Map<string, HeldSnapshot | null>();
  private loading = new Map<string, Promise<CachedSnapshot | null>>();
  /** by Gateway, the watchers that take whole snapshots, and when one was last asked for */
  private wholeWatchers = new Map<string, number>();
  private wholeAsked = new Map<string, number>();
  private readonly keepWholeMs: number;
  /** the version a worker's delta being applied leads to, by Gateway (see advance) */
  private advancing = new Map<string, number>();
  private listeners = new Map<string, Set<Listener>>();
  private deltaListeners = new Map<string, Set<DeltaListener>>();
  private unsubscribe: () => void;
  private timer: NodeJS.Timeout;
  /** the last versions' parts, for the clients that ask for deltas */
  readonly deltas = new DeltaHistory();
  /** held versions whose body is larger than a notice carries (see letGoOfWhole) */
  private large = new WeakSet<HeldSnapshot>();
  private readonly largeBytes: number;

  constructor(private readonly db: Database, bus: Bus, opts: { pollMs?: number; keepWholeMs?: number; largeBytes?: number } = {}) {
    const pollMs = opts.pollMs ?? 1000;
    this.keepWholeMs = opts.keepWholeMs ?? KEEP_WHOLE_MS;
    this.largeBytes = opts.largeBytes ?? NOTICE_BODY_LIMIT;
    this.unsubscribe = subscribe(bus, snapshotChannel, (notice) => {
      if (!notice) return void this.refreshWatched();
      const { gateway, version, body } = notice;
      // a Gateway this process has not served is loaded when first asked for, not on every change
      if (!this.cache.has(gateway) && !this.listeners.has(gateway)) return;
      const cur = this.cache.get(gateway);
      if (cur && version !== null && cur.version >= version) return;
      // the worker's delta to this version is being applied: it brings the body, or else nobody
      // here takes whole snapshots and the version is held without one whatever its size
      if (version !== null && (this.advancing.get(gateway) ?? -1) >= version && (body === undefined || !this.wholeWanted(gateway))) return;
      // a load under way may bring an older version: it is not waited for (it never replaces a newer one)
      if (body !== undefined && version !== null) this.accept(gateway, parse(gateway, version, body));
      else void this.reload(gateway);
    });
    // the worker's delta, ready for the watchers that take deltas: no table is parsed for them
    const unsubscribeDeltas = subscribe(bus, snapshotDeltaChannel, (d) => {
      if (!d || (!this.cache.has(d.gateway) && !this.listeners.has(d.gateway))) return;
      this.deltas.offer(d.gateway, d.from, d.to, d.text);
      // and sent at once, before the whole body is loaded, unless the Secrets the table names may
      // have changed with it (their data is read per send, for the version it goes with)
      const held = this.cache.get(d.gateway);
      if (held && held.secretRefs.length === 0 && !mayReferenceSecrets(d.text)) {
        for (const fn of this.deltaListeners.get(d.gateway) ?? []) fn(d.from, d.to, d.text);
      }
      // the whole body of the new version is the held one's with the delta applied: nothing is
      // read, and it is made after the delta has gone out to the watchers that take deltas. A
      // delta that follows one still to be applied (both came in one read of the bus) is applied
      // after it: the version it applies to is held by then
      if (held && (this.advancing.get(d.gateway) ?? held.version) === d.from) {
        this.advancing.set(d.gateway, d.to);
        setImmediate(() => this.advance(d.gateway, d.from, d.to, d.text));
      }
    });
    const unsubscribeNotices = this.unsubscribe;
    this.unsubscribe = () => { unsubscribeNotices(); unsubscribeDeltas(); };
    this.timer = setInterval(() => {
      this.letGoOfWhole();
      void this.refreshWatched();
    }, pollMs);
    this.timer.unref();
  }

  /**
   * The snapshot `to` of `key` from the held one and the worker's delta to it: without its body
   * when nobody here takes whole snapshots of the Gateway and no Secret may be named, else made
   * from the held parts (a table is parsed only for the first delta after a load); read from the
   * store instead when the delta does not fit.
   */
  private advance(key: string, from: number, to: number, text: string): void {
    if (this.advancing.get(key) === to) this.advancing.delete(key);
    if (this.closed) return;
    const held = this.cache.get(key);
    // the version the delta applies to was replaced meanwhile: by a newer one, or else the store has this one
    if (!held || held.version !== from) return void (!held || held.version < to ? this.reload(key) : undefined);
    let snap: HeldSnapshot;
    try {
      const d = JSON.parse(text) as SnapshotDelta;
      // the Secrets named are still none when none were and the delta's parts name none
      if (!this.wholeWanted(key) && held.secretRefs.length === 0 && !mayReferenceSecrets(text)) {
        snap = { key, version: to, hash: d.hash, secretRefs: [] };
      } else {
        const base = this.deltas.partsFor(key, held);
        if (!base) return void this.reload(key);
        const parts = applyChanges(base, d, textPart);
        const g = gatewayOf(key);
        // the Secrets it names are read off the parts: the new body is neither searched nor parsed,
        // and it is joined only when a client takes whole snapshots (at 50,000 routes it is 60 MB)
        const made = parse(key, to, () => bodyOfParts(g.namespace, g.name, to, d.hash, parts), secretRefsOfParts(parts, g.namespace), d.hash);
        this.deltas.hold(made, parts);
        // a delta changes a few routes: the table stays about as large as the one it applies to
        if (this.large.has(held)) this.large.add(made);
        snap = made;
      }
    } catch {
      return void this.reload(key);
    }
    this.accept(key, snap);
  }

  /**
   * Holds the large tables nobody here has taken whole for keepWholeMs without their bodies, as a
   * delta that arrives then would: the version's parts or body (some 120 MB at 50,000 routes) were
   * otherwise held until the next change, however long that took. A whole snapshot asked for later
   * is read from the store. Small bodies are kept (the notices carry them, and a poll of the
   * Gateway would read the store each time), and so are tables that name Secrets (their parts are
   * needed for every version).
   */
  private letGoOfWhole(): void {
    let released = false;
    for (const [key, snap] of this.cache) {
      if (!snap || !hasBody(snap) || !this.large.has(snap) || snap.secretRefs.length > 0) continue;
      if (this.wholeWanted(key) || this.loading.has(key) || this.advancing.has(key)) continue;
      this.accept(key, { key, version: snap.version, hash: snap.hash ?? hashInHead(snap.body), secretRefs: [] });
      released = true;
    }
    if (released) markLetGo();
  }

  /** Whether whole snapshots of `key` are taken here: by a watcher, or asked for a moment ago. */
  private wholeWanted(key: string): boolean {
    return (this.wholeWatchers.get(key) ?? 0) > 0 || performance.now() - (this.wholeAsked.get(key) ?? -Infinity) < this.keepWholeMs;
  }

  private closed = false;
  private closers = new Set<() => void>();

  /** Stops listening and releases every long-poll waiting here. */
  close(): void {
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.timer);
    for (const release of [...this.closers]) release();
  }

  /**
   * The version this process serves now for each Gateway it holds (null: it holds that there is
   * none), without loading anything: what a caller compares with the store to know that the
   * notices of what was written have arrived.
   */
  heldVersions(): Map<string, number | null> {
    return new Map([...this.cache].map(([key, snap]) => [key, snap?.version ?? null]));
  }

  /**
   * What get(key) would answer, when it is known now without waiting: the snapshot held (null: none),
   * or undefined while a load is under way or nothing is held yet.
   */
  peek(key: string): HeldSnapshot | null | undefined {
    if (this.loading.has(key)) return undefined;
    return this.cache.get(key);
  }

  async get(key: string): Promise<HeldSnapshot | null> {
    // a load under way was started by a notice of a newer version: answer with what it brings
    const pending = this.loading.get(key);
    if (pending) return pending.then(() => this.cache.get(key) ?? null);
    if (this.cache.has(key)) return this.cache.get(key)!;
    return this.reload(key);
  }

  /**
   * `snap` with its body, or the version the store holds now when this process does not hold the
   * body of `snap` (it is as new: a worker stores a version before it announces it); null when the
   * Gateway has no snapshot any more.
   */
  async whole(snap: HeldSnapshot): Promise<CachedSnapshot | null> {
    this.wholeAsked.set(snap.key, performance.now());
    if (hasBody(snap)) return snap;
    const cur = this.cache.get(snap.key);
    if (cur && hasBody(cur) && cur.version >= snap.version) return cur;
    return this.load(snap.key);
  }

  /** The Secret data `snap` names (none read when it names none): for the Gateway's own proxies only. */
  secrets(snap: HeldSnapshot): Promise<SnapshotSecret[]> {
    return secretsOf(this.db, snap);
  }

  private reload(key: string): Promise<HeldSnapshot | null> {
    return this.load(key).then(() => this.cache.get(key) ?? null);
  }

  /** The stored snapshot of `key` with its body, kept here unless a newer one is held already. */
  private load(key: string): Promise<CachedSnapshot | null> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const p = (async () => {
      const row = await readSnapshot(this.db.sql, streamOf(key));
      if (!row) {
        this.accept(key, null);
        return null;
      }
      const { body, parts } = await bodyOf(key, row);
      const snap = parse(key, row.version, body);
      if (parts) this.deltas.hold(snap, parts);
      if (body.length > this.largeBytes) this.large.add(snap);
      // the stored deltas are the worker's, as it announced them: a watch a few versions behind
      // is sent them in turn, though their notices never reached this process
      for (const text of row.deltas.slice(-DELTA_HISTORY)) {
        if (text.length > DELTA_NOTICE_LIMIT) continue;
        const d = JSON.parse(text) as Pick<SnapshotDelta, 'fromVersion' | 'version'>;
        this.deltas.offer(key, d.fromVersion, d.version, text);
      }
      this.accept(key, snap);
      return snap;
    })().finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }

  /** Keeps a snapshot unless a newer one is held, whatever order loads and notices arrive in. */
  private accept(key: string, snap: HeldSnapshot | null): HeldSnapshot | null {
    const prev = this.cache.get(key);
    if (prev && snap && prev.version > snap.version) return prev;
    this.cache.set(key, snap);
    if (prev !== snap) this.deltas.retire(key, prev, snap);
    if ((prev?.version ?? null) !== (snap?.version ?? null)) for (const fn of this.listeners.get(key) ?? []) fn(snap);
    return snap;
  }

  /** Calls fn with every newer snapshot of `key` until the returned function is called. */
  watch(key: string, fn: Listener, takes: Takes = 'whole'): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(fn);
    if (takes === 'whole') this.wholeWatchers.set(key, (this.wholeWatchers.get(key) ?? 0) + 1);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      set!.delete(fn);
      if (set!.size === 0) this.listeners.delete(key);
      if (takes === 'whole') {
        const n = this.wholeWatchers.get(key)! - 1;
        if (n > 0) this.wholeWatchers.set(key, n);
        else {
          this.wholeWatchers.delete(key);
          this.wholeAsked.set(key, performance.now());
        }
      }
    };
  }

  /** Calls fn with every delta a worker announces for `key` (see the notice handler) until the returned function is called. */
  watchDeltas(key: string, fn: DeltaListener): () => void {
    let set = this.deltaListeners.get(key);
    if (!set) this.deltaListeners.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set!.delete(fn);
      if (set!.size === 0) this.deltaListeners.delete(key);
    };
  }

  /** Resolves with a snapshot newer than `version`, or null when `ms` pass first. */
  waitNewer(key: string, version: number, ms: number, signal?: AbortSignal, takes: Takes = 'whole'): Promise<HeldSnapshot | null> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(null);
      const done = (v: HeldSnapshot | null) => {
        clearTimeout(t);
        stop();
        this.closers.delete(onAbort);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onAbort = () => done(null);
      const stop = this.watch(key, (snap) => {
        if (snap && snap.version > version) done(snap);
      }, takes);
      const t = setTimeout(() => done(null), ms);
      this.closers.add(onAbort);
      signal?.addEventListener('abort', onAbort);
      void this.get(key).then((snap) => snap && snap.version > version && done(snap));
    });
  }

  /** per watched Gateway, the version a poll found in the store ahead of the one served here */
  private seenAhead = new Map<string, number | null>();

  private async refreshWatched(): Promise<void> {
    const keys = [...this.listeners.keys()];
    for (const k of this.seenAhead.keys()) if (!this.listeners.has(k)) this.seenAhead.delete(k);
    if (keys.length === 0) return;
    try {
      const versions = await readSnapshotVersions(this.db.sql, keys.map(streamOf));
      for (const k of keys) {
        const stored = versions.get(streamOf(k)) ?? null;
        const held = this.cache.get(k)?.version ?? null;
        switch (pollFinds(held, stored, this.seenAhead.get(k))) {
          case 'same': this.seenAhead.delete(k); break;
          case 'wait': this.seenAhead.set(k, stored); break;
          case 'load': this.seenAhead.delete(k); void this.reload(k); break;
        }
      }
    } catch {
      /* the database is away; try again on the next tick */
    }
  }
}

/**
 * What a poll that finds version `stored` in the store (null: none) makes of the version `held`
 * here, given the version the poll before found ahead (undefined: none). A version the worker has
 * just committed is announced a moment after (its delta first), and a load from the store of a
 * 50,000-route table holds this process's loop for seconds and its heap for hundreds of MB: the
 * poll caught such versions between the commit and the notice every few seconds of changes, and
 * the deltas waited behind the load. So a version is loaded only when the poll before found the
 * store ahead already and the notices have not brought the held one up to that version since.
 */
export function pollFinds(held: number | null, stored: number | null, seenBefore: number | null | undefined): 'same' | 'wait' | 'load' {
  if (held === stored) return 'same';
  if (seenBefore === undefined) return 'wait';
  // the notices keep coming, behind the commits: a newer one is seen ahead now
  if (seenBefore !== null && held !== null && stored !== null && stored > held && held >= seenBefore) return 'wait';
  return 'load';
}

/** A body given as a function is made when first read (the Secrets it names must then be known). */
function parse(key: string, version: number, made: string | (() => string), known?: CachedSnapshot['secretRefs'], hash?: string): CachedSnapshot {
  let text = typeof made === 'string' ? made : undefined;
  const body = () => {
    if (text === undefined) {
      const started = performance.now();
      text = (made as () => string)();
      markWork(performance.now() - started);
    }
    return text;
  };
  // Only TLS listeners reference Secrets; any other body is not parsed here at all, and a parsed
  // table is not kept for every cached snapshot (it takes several times the memory of its text).
  const secretRefs = known ?? (mayReferenceSecrets(body()) ? secretRefsOf(parseSnapshot(body()).table, gatewayOf(key).namespace) : []);
  let parsed: WeakRef<CompiledTable> | undefined;
  return {
    key, version, secretRefs, hash,
    get body() {
      return body();
    },
    table() {
      let table = parsed?.deref();
      if (!table) {
        const started = performance.now();
        parsed = new WeakRef((table = parseSnapshot(body()).table));
        markWork(performance.now() - started);
      }
      return table;
    },
  };
}

/** The body with the Secret data its listeners use, for the Gateway's proxies and admins. */
export async function withSecrets(db: Database, snap: CachedSnapshot): Promise<string> {
  return withSecretData(snap.body, await secretsOf(db, snap));
}

/** The Secret data the listeners of `snap` use (none read when they name none). */
export async function secretsOf(db: Database, snap: HeldSnapshot): Promise<SnapshotSecret[]> {
  if (snap.secretRefs.length === 0) return [];
  return readSecretsWithData(db.sql, snap.secretRefs.map((r) => streamKey('Secret', r.namespace, r.name)));
}
