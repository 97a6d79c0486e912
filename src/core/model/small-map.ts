// A Map of a few entries held in one array of keys and values side by side. A Map's table keeps
// room for four entries and its buckets (some 180 bytes) however few it holds, and the memos keep
// several maps of one or two entries a route (a rule index, a listener index, a list's key): at
// 50,000 routes that was some 50 MB. Lookups walk the array, as fast as hashing for a few
// entries; past SMALL entries the entries move to a Map. Insertion order, and every other
// behaviour of a Map, is kept.

const SMALL = 8;
const NONE: readonly unknown[] = Object.freeze([]);

// an array of exactly `n` slots (a literal spread or a push leaves room for sixteen more)
const arrayOf = (n: number): unknown[] => new Array<unknown>(n);

export class SmallMap<K, V> implements Map<K, V> {
  // [k0, v0, k1, v1, ...] in insertion order, each array of its own length; or the Map past SMALL
  private held: readonly unknown[] | Map<K, V> = NONE;

  constructor(entries?: Iterable<readonly [K, V]>) {
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  private at(key: K): number {
    const a = this.held as readonly unknown[];
    for (let i = 0; i < a.length; i += 2) if (a[i] === key || (a[i] !== a[i] && key !== key)) return i;
    return -1;
  }

  get size(): number {
    return this.held instanceof Map ? this.held.size : this.held.length / 2;
  }

  get(key: K): V | undefined {
    if (this.held instanceof Map) return this.held.get(key);
    const i = this.at(key);
    return i < 0 ? undefined : (this.held[i + 1] as V);
  }

  has(key: K): boolean {
    return this.held instanceof Map ? this.held.has(key) : this.at(key) >= 0;
  }

  set(key: K, value: V): this {
    if (this.held instanceof Map) {
      this.held.set(key, value);
      return this;
    }
    const a = this.held;
    const i = this.at(key);
    if (i >= 0) {
      const next = a.slice();
      next[i + 1] = value;
      this.held = next;
    } else if (a.length / 2 >= SMALL) {
      const m = new Map<K, V>();
      for (let k = 0; k < a.length; k += 2) m.set(a[k] as K, a[k + 1] as V);
      this.held = m.set(key, value);
    } else {
      const next = arrayOf(a.length + 2);
      for (let k = 0; k < a.length; k++) next[k] = a[k];
      // a -0 key is held as +0, as a Map holds it
      next[a.length] = Object.is(key, -0) ? 0 : key;
      next[a.length + 1] = value;
      this.held = next;
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.held instanceof Map) return this.held.delete(key);
    const i = this.at(key);
    if (i < 0) return false;
    const a = this.held;
    if (a.length === 2) this.held = NONE;
    else {
      const next = arrayOf(a.length - 2);
      for (let k = 0, j = 0; k < a.length; k++) if (k !== i && k !== i + 1) next[j++] = a[k];
      this.held = next;
    }
    return true;
  }

  clear(): void {
    this.held = NONE;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this) fn.call(thisArg, v, k, this);
  }

  *entries(): MapIterator<[K, V]> {
    const held = this.held;
    if (held instanceof Map) {
      yield* held.entries();
      return;
    }
    // the entries as they were when the walk began (a Map's walk also meets the keys added during
    // it and skips those deleted): the array is replaced on every change, never changed in place
    for (let i = 0; i < held.length; i += 2) yield [held[i] as K, held[i + 1] as V];
  }

  *keys(): MapIterator<K> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Map';
  }
}
