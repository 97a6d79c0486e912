// Serves compiled snapshots to proxies from a per-process cache of the serialized bodies. A change
// made by any worker reaches every API process through the bus; a slow poll of the versions of
// watched Gateways covers notices lost while Redis is away, so nobody is left on an old version.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Database } from '../store/database';
import type { Bus } from './bus';
import type { CompiledTable } from '../../core/compile';
import { snapshotChannel, subscribe } from './channels';

/** A snapshot body is `${snapshotHead(ns, name)}${version}${tail}`; the store keeps the tail deflated. */
export function snapshotHead(ns: string, name: string): string {
  return `${JSON.stringify({ gateway: { namespace: ns, name } }).slice(0, -1)},"version":`;
}

export function deflateTail(tail: string): Buffer {
  return deflateRawSync(tail, { level: 1 });
}

function bodyOf(key: string, version: number, row: { body: string | null; tail_z: Uint8Array | null }): string {
  if (row.tail_z === null || row.tail_z === undefined) return row.body ?? '';
  const [ns, ...rest] = key.split('/');
  return `${snapshotHead(ns, rest.join('/'))}${version}${inflateRawSync(row.tail_z).toString('utf8')}`;
}

export interface CachedSnapshot {
  key: string; // "ns/name"
  version: number;
  /** the Snapshot JSON without secrets, serialized once */
  body: string;
  /** Secrets its listeners reference (namespace/name) */
  secretRefs: { namespace: string; name: string }[];
  /** the compiled table, parsed on first use and kept while memory allows (resolve only) */
  table(): CompiledTable;
}

/** Routes that name the Gateway but are not attached, for resolve's explanations (read on demand). */
export async function unattachedOf(db: Database, key: string): Promise<CompiledTable['unattached']> {
  const rows = await db.sql.$queryRawUnsafe<{ unattached: string }[]>(`SELECT unattached FROM snapshots WHERE gateway = $1`, `Gateway/${key}`);
  return rows[0] ? JSON.parse(rows[0].unattached) : [];
}

type Listener = (snap: CachedSnapshot | null) => void;

export class SnapshotHub {
  private cache = new Map<string, CachedSnapshot | null>();
  private loading = new Map<string, Promise<CachedSnapshot | null>>();
  private listeners = new Map<string, Set<Listener>>();
  private unsubscribe: () => void;
  private timer: NodeJS.Timeout;

  constructor(private readonly db: Database, bus: Bus, pollMs = 1000) {
    this.unsubscribe = subscribe(bus, snapshotChannel, (notice) => {
      if (!notice) return void this.refreshWatched();
      const { gateway, version, body } = notice;
      // a Gateway this process has not served is loaded when first asked for, not on every change
      if (!this.cache.has(gateway) && !this.listeners.has(gateway)) return;
      const cur = this.cache.get(gateway);
      if (cur && version !== null && cur.version >= version) return;
      // a load under way may bring an older version: it is not waited for (it never replaces a newer one)
      if (body !== undefined && version !== null) this.accept(gateway, parse(gateway, version, body));
      else void this.reload(gateway);
    });
    this.timer = setInterval(() => void this.refreshWatched(), pollMs);
    this.timer.unref();
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

  async get(key: string): Promise<CachedSnapshot | null> {
    // a load under way was started by a notice of a newer version: answer with what it brings
    const pending = this.loading.get(key);
    if (pending) return pending;
    if (this.cache.has(key)) return this.cache.get(key)!;
    return this.reload(key);
  }

  private reload(key: string): Promise<CachedSnapshot | null> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const p = (async () => {
      const rows = await this.db.sql.$queryRawUnsafe<{ version: bigint; body: string | null; tail_z: Uint8Array | null }[]>(
        `SELECT version, body, tail_z FROM snapshots WHERE gateway = $1`, `Gateway/${key}`);
      return this.accept(key, rows[0] ? parse(key, Number(rows[0].version), bodyOf(key, Number(rows[0].version), rows[0])) : null);
    })().finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }

  /** Keeps a snapshot unless a newer one is held, whatever order loads and notices arrive in. */
  private accept(key: string, snap: CachedSnapshot | null): CachedSnapshot | null {
    const prev = this.cache.get(key);
    if (prev && snap && prev.version > snap.version) return prev;
    this.cache.set(key, snap);
    if ((prev?.version ?? null) !== (snap?.version ?? null)) for (const fn of this.listeners.get(key) ?? []) fn(snap);
    return snap;
  }

  /** Calls fn with every newer snapshot of `key` until the returned function is called. */
  watch(key: string, fn: Listener): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set!.delete(fn);
      if (set!.size === 0) this.listeners.delete(key);
    };
  }

  /** Resolves with a snapshot newer than `version`, or null when `ms` pass first. */
  waitNewer(key: string, version: number, ms: number, signal?: AbortSignal): Promise<CachedSnapshot | null> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(null);
      const done = (v: CachedSnapshot | null) => {
        clearTimeout(t);
        stop();
        this.closers.delete(onAbort);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onAbort = () => done(null);
      const stop = this.watch(key, (snap) => {
        if (snap && snap.version > version) done(snap);
      });
      const t = setTimeout(() => done(null), ms);
      this.closers.add(onAbort);
      signal?.addEventListener('abort', onAbort);
      void this.get(key).then((snap) => snap && snap.version > version && done(snap));
    });
  }

  private async refreshWatched(): Promise<void> {
    const keys = [...this.listeners.keys()];
    if (keys.length === 0) return;
    try {
      const rows = await this.db.sql.$queryRawUnsafe<{ gateway: string; version: bigint }[]>(
        `SELECT gateway, version FROM snapshots WHERE gateway = ANY($1::text[])`, keys.map((k) => `Gateway/${k}`));
      const versions = new Map(rows.map((r) => [r.gateway.slice('Gateway/'.length), Number(r.version)]));
      for (const k of keys) {
        const cur = this.cache.get(k);
        if ((cur?.version ?? null) !== (versions.get(k) ?? null)) void this.reload(k);
      }
    } catch {
      /* the database is away; try again on the next tick */
    }
  }
}

function parse(key: string, version: number, body: string): CachedSnapshot {
  // Only TLS listeners reference Secrets; any other body is not parsed here at all, and a parsed
  // table is not kept for every cached snapshot (it takes several times the memory of its text).
  const secretRefs = body.includes('"certificateRefs"') ? secretRefsOf(key, JSON.parse(body)) : [];
  let parsed: WeakRef<CompiledTable> | undefined;
  return {
    key, version, body, secretRefs,
    table() {
      let table = parsed?.deref();
      if (!table) parsed = new WeakRef((table = (JSON.parse(body) as { table: CompiledTable }).table));
      return table;
    },
  };
}

function secretRefsOf(key: string, snap: { table?: { listeners?: { tls?: { certificateRefs?: { namespace?: string; name: string }[] } }[] } }) {
  const [ns] = key.split('/');
  const refs = new Map<string, { namespace: string; name: string }>();
  for (const l of snap.table?.listeners ?? []) for (const r of l.tls?.certificateRefs ?? []) {
    const namespace = r.namespace ?? ns;
    refs.set(`${namespace}/${r.name}`, { namespace, name: r.name });
  }
  return [...refs.values()];
}

/** The body with the Secret data its listeners use, for the Gateway's proxies and admins. */
export async function withSecrets(db: Database, snap: CachedSnapshot): Promise<string> {
  // a slice and a concatenation: V8 copies nothing until the string is written out
  if (snap.secretRefs.length === 0) return `${snap.body.slice(0, -1)},"secrets":[]}`;
  const rows = await db.sql.$queryRawUnsafe<{ namespace: string; name: string; type: string | null; data: Record<string, string> | null }[]>(
    `SELECT o.namespace, o.name, o.object->>'type' AS type, d.data FROM objects o LEFT JOIN secret_data d ON d.stream = o.stream
     WHERE o.stream = ANY($1::text[]) AND NOT o.deleted ORDER BY o.namespace, o.name`,
    snap.secretRefs.map((r) => `Secret/${r.namespace}/${r.name}`));
  const secrets = rows.map((r) => ({ namespace: r.namespace, name: r.name, ...(r.type ? { type: r.type } : {}), data: r.data ?? {} }));
  return snap.body.replace(/}$/, `,"secrets":${JSON.stringify(secrets)}}`);
}
