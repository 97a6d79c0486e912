// Deltas for the clients that ask for them (the watch's ?delta=true, GET ?since=): the parts of the
// last few versions of a Gateway this process served, and the delta from any of them to the
// current one, made once and shared by every client at that version. Nothing is kept for a Gateway
// nobody asked a delta of, so clients that only take whole snapshots cost nothing here.
import type { CompiledTable } from '../../core/compile/types';
import { tableParts, type TableParts } from '../../core/snapshot/table-parts';
import { snapshotDelta } from '../../core/snapshot/delta';

/** How many earlier versions of a Gateway a client may be behind and still get a delta. */
export const DELTA_HISTORY = 8;

/** What of a cached snapshot (./snapshots) a delta needs. */
export interface CachedSnapshot {
  version: number;
  body: string;
  table(): CompiledTable;
}

const HASH_IN_HEAD = /"version":\d+,"hash":"([0-9a-f]+)"/;

export class DeltaHistory {
  private readonly past = new Map<string, { version: number; parts: TableParts }[]>();
  private readonly wanted = new Set<string>();
  private readonly partsOf = new WeakMap<CachedSnapshot, TableParts>();
  private readonly deltas = new WeakMap<CachedSnapshot, Map<number, string | null>>();

  constructor(private readonly depth = DELTA_HISTORY) {}

  /** From now on, the versions of `key` that are replaced are kept for deltas. */
  want(key: string): void {
    this.wanted.add(key);
  }

  /** `next` replaced `prev` as the current snapshot of `key`. */
  retire(key: string, prev: CachedSnapshot | null | undefined, next: CachedSnapshot | null): void {
    if (!next) return void this.past.delete(key);
    if (!prev || !this.wanted.has(key) || prev.version >= next.version) return;
    const list = this.past.get(key) ?? [];
    list.push({ version: prev.version, parts: this.parts(key, prev) });
    while (list.length > this.depth) list.shift();
    this.past.set(key, list);
  }

  private parts(key: string, snap: CachedSnapshot): TableParts {
    let p = this.partsOf.get(snap);
    if (!p) {
      // parts equal to the previous version's share their text with it
      const list = this.past.get(key);
      this.partsOf.set(snap, (p = tableParts(snap.table(), list?.[list.length - 1]?.parts)));
    }
    return p;
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
    const base = this.past.get(key)?.find((p) => p.version === from);
    const hash = HASH_IN_HEAD.exec(to.body.slice(0, 512))?.[1];
    let text: string | null = null;
    if (base && hash) {
      const at = key.indexOf('/');
      const gateway = { namespace: key.slice(0, at), name: key.slice(at + 1) };
      text = JSON.stringify(snapshotDelta(gateway, from, to.version, hash, base.parts, this.parts(key, to)));
    }
    byFrom.set(from, text);
    return text;
  }
}
