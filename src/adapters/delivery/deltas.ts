// Deltas for the clients that ask for them (the watch's ?delta=true, GET ?since=): the parts of the
// last few versions of a Gateway this process served, and the delta from any of them to the
// current one, made once and shared by every client at that version. Nothing is kept for a Gateway
// nobody asked a delta of, so clients that only take whole snapshots cost nothing here.
import type { CompiledTable } from '../../core/compile/types';
import { tableParts, textPart, type TableParts } from '../../core/snapshot/table-parts';
import { snapshotDeltaText } from '../../core/snapshot/delta';

/** How many earlier versions of a Gateway a client may be behind and still get a delta. */
export const DELTA_HISTORY = 8;

/** What of a held snapshot (./snapshots) a delta needs: a version held without its body has no parts here. */
export interface CachedSnapshot {
  version: number;
  readonly body?: string;
  readonly hash?: string;
  table?(): CompiledTable;
}

const HASH_IN_HEAD = /"version":\d+,"hash":"([0-9a-f]+)"/;

/** The table's hash, read off the head of a snapshot's body. */
export const hashInHead = (body: string): string | undefined => HASH_IN_HEAD.exec(body.slice(0, 512))?.[1];

export class DeltaHistory {
  /** versions replaced, oldest first: their parts once made, else (the last few only) the snapshot to make them from */
  private readonly past = new Map<string, { version: number; parts?: TableParts; snap?: CachedSnapshot }[]>();
  private readonly wanted = new Set<string>();
  private readonly partsOf = new WeakMap<CachedSnapshot, TableParts>();
  private readonly deltas = new WeakMap<CachedSnapshot, Map<number, string | null>>();
  /** deltas the worker made, by Gateway, then the version each applies to (the last few only) */
  private readonly offered = new Map<string, Map<number, { to: number; text: string }>>();

  constructor(private readonly depth = DELTA_HISTORY) {}

  /** `snap` was made from these parts (a delta applied, or a stored chain): they need not be made again. */
  hold(snap: CachedSnapshot, parts: TableParts): void {
    this.partsOf.set(snap, parts);
  }

  /** From now on, the versions of `key` that are replaced are kept for deltas. */
  want(key: string): void {
    this.wanted.add(key);
  }

  /** A delta made elsewhere (the worker that wrote version `to`), used instead of one made here. */
  offer(key: string, from: number, to: number, text: string): void {
    let m = this.offered.get(key);
    if (!m) this.offered.set(key, (m = new Map()));
    m.delete(from);
    m.set(from, { to, text });
    while (m.size > this.depth) m.delete(m.keys().next().value!);
  }

  /** `next` replaced `prev` as the current snapshot of `key`. */
  retire(key: string, prev: CachedSnapshot | null | undefined, next: CachedSnapshot | null): void {
    // no delta is made here to a version held without its body: the earlier versions' parts go
    if (!next || !next.table) return void this.past.delete(key);
    if (!prev || !this.wanted.has(key) || prev.version >= next.version) return;
    const list = this.past.get(key) ?? [];
    // a table is parsed into parts only when a delta from it is asked for and the worker made none
    const parts = this.partsOf.get(prev);
    list.push(parts ? { version: prev.version, parts } : { version: prev.version, snap: prev });
    // whole bodies are held for the last two versions only; older ones without parts are let go
    for (let i = 0; i < list.length - 2; i++) delete list[i].snap;
    const kept = list.filter((p) => p.parts || p.snap).slice(-this.depth);
    this.past.set(key, kept);
  }

  /** The parts of `snap` (the cached snapshot of `key`), made from its table unless held already; none without its body. */
  partsFor(key: string, snap: CachedSnapshot): TableParts | undefined {
    let p = this.partsOf.get(snap);
    if (!p && snap.table) {
      // parts equal to the previous version's share their text with it
      const list = this.past.get(key);
      this.partsOf.set(snap, (p = tableParts(snap.table(), list?.findLast((x) => x.parts)?.parts, textPart)));
    }
    return p;
  }

  /**
   * The worker's deltas that lead from version `from` to `to` one after the other, oldest first, for
   * a watch (which sends each as its own event); null when they are not all kept here.
   */
  offeredChain(key: string, from: number, to: number): { to: number; text: string }[] | null {
    const next = this.offered.get(key);
    const chain: { to: number; text: string }[] = [];
    for (let v = from; v !== to; v = chain[chain.length - 1].to) {
      const step = next?.get(v);
      if (!step || step.to > to || chain.length > this.depth) return null;
      chain.push(step);
    }
    return chain;
  }

  /**
   * The delta's JSON text from version `from` to `to` (the current snapshot), without Secret data;
   * null when `from` is not one of the versions kept (the client gets the whole snapshot).
   */
  deltaText(key: string, from: number, to: CachedSnapshot): string | null {
    this.want(key);
    let byFrom = this.deltas.get(to);
    if (!byFrom) this.deltas.set(to, (byFrom = new Map()));
    if (byFrom.has(from)) return byFrom.get(from)!;
    const offered = this.offered.get(key)?.get(from);
    const made = offered?.to === to.version ? offered.text : undefined;
    if (made !== undefined) {
      byFrom.set(from, made);
      return made;
    }
    const base = this.past.get(key)?.find((p) => p.version === from);
    if (base && !base.parts && base.snap) {
      base.parts = this.partsFor(key, base.snap);
      delete base.snap;
    }
    const hash = to.hash ?? (to.body === undefined ? undefined : hashInHead(to.body));
    const toParts = base?.parts && hash ? this.partsFor(key, to) : undefined;
    let text: string | null = null;
    if (base?.parts && hash && toParts) {
      const at = key.indexOf('/');
      const gateway = { namespace: key.slice(0, at), name: key.slice(at + 1) };
      text = snapshotDeltaText(gateway, from, to.version, hash, base.parts, toParts);
    }
    byFrom.set(from, text);
    return text;
  }
}
