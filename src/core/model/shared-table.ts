// Values many holders have alike, kept once by a key. Bounded: when full it is emptied, which only
// keeps values made later from sharing with those made before (their holders keep them). Only for
// values nothing changes once made.
export class SharedTable<K, V> {
  private readonly held = new Map<K, V>();

  constructor(private readonly limit: number) {}

  /** The value kept for `key`, made (and kept) when there is none. */
  get(key: K, make: () => V): V {
    let v = this.held.get(key);
    if (v === undefined) {
      if (this.held.size >= this.limit) this.held.clear();
      this.held.set(key, (v = make()));
    }
    return v;
  }
}
