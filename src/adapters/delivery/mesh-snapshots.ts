// The mesh tables as the API serves them: per client namespace the newest version this process
// knows, from the workers' notices (with the body when it travelled) or the store, and the
// watchers and long-polls waiting for a newer one. A notice is a hint: namespaces someone waits on
// are read from the store again every few seconds, so a lost notice delays a change, never loses it.
import type { Database } from '../store/database';
import type { Bus } from './bus';
import { meshSnapshotChannel, subscribe } from './channels';
import { readMeshTable } from '../store/mesh-tables';
import { meshSnapshotBody, type MeshTable } from '../../core/mesh';

export interface MeshSnapshot {
  namespace: string;
  version: number;
  /** the MeshSnapshot JSON */
  body: string;
  /** the table, parsed once when asked for */
  table(): MeshTable;
}

type Listener = (snap: MeshSnapshot) => void;

const POLL_MS = 2_000;

export class MeshHub {
  private readonly held = new Map<string, MeshSnapshot>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly db: Database, bus: Bus, private readonly controller: string) {
    this.unsubscribe = subscribe(bus, meshSnapshotChannel, (m) => {
      if (!m) return;
      const have = this.held.get(m.namespace);
      if (have && have.version >= m.version) return;
      if (m.body) this.offer(snapshotOf(m.namespace, m.version, m.body));
      else void this.refresh(m.namespace).catch(() => undefined);
    });
    this.timer = setInterval(() => {
      for (const ns of this.listeners.keys()) void this.refresh(ns).catch(() => undefined);
    }, POLL_MS);
    this.timer.unref();
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.timer);
  }

  private offer(snap: MeshSnapshot): void {
    const have = this.held.get(snap.namespace);
    if (have && have.version >= snap.version) return;
    this.held.set(snap.namespace, snap);
    for (const l of this.listeners.get(snap.namespace) ?? []) l(snap);
  }

  /** Reads the store's version of a namespace's table. */
  async refresh(namespace: string): Promise<MeshSnapshot | undefined> {
    const have = this.held.get(namespace);
    const row = await readMeshTable(this.db, namespace, this.controller, have?.version ?? -1);
    if (!row) return have;
    if (!have || have.version < row.version) this.offer(snapshotOf(namespace, row.version, meshSnapshotBody(namespace, row.version, row.hash, row.body)));
    return this.held.get(namespace);
  }

  /**
   * The store's version (one indexed read; a version already held is not parsed again), so that a
   * read right after a worker's write sees it even before its notice arrives; undefined when the
   * namespace has no table yet.
   */
  async get(namespace: string): Promise<MeshSnapshot | undefined> {
    return this.refresh(namespace);
  }

  watch(namespace: string, listener: Listener): () => void {
    let set = this.listeners.get(namespace);
    if (!set) this.listeners.set(namespace, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(namespace);
    };
  }

  /** A version newer than `have`, or undefined when the time runs out or the caller goes. */
  waitNewer(namespace: string, have: number, ms: number, signal: AbortSignal): Promise<MeshSnapshot | undefined> {
    return new Promise((resolve) => {
      const cur = this.held.get(namespace);
      if (cur && cur.version > have) return resolve(cur);
      let stop = () => {};
      const done = (v: MeshSnapshot | undefined) => {
        clearTimeout(timer);
        stop();
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onAbort = () => done(undefined);
      const timer = setTimeout(() => done(undefined), ms);
      stop = this.watch(namespace, (s) => { if (s.version > have) done(s); });
      signal.addEventListener('abort', onAbort);
    });
  }
}

function snapshotOf(namespace: string, version: number, body: string): MeshSnapshot {
  let table: MeshTable | undefined;
  return { namespace, version, body, table: () => (table ??= (JSON.parse(body) as { table: MeshTable }).table) };
}
