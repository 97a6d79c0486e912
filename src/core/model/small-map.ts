// A Map of a few entries held in the object itself: its first entry in two fields, the others in
// one array of keys and values side by side. A Map's table keeps room for four entries and its
// buckets (some 180 bytes) however few it holds, and the memos keep several maps of one or two
// entries a route (a rule index, a listener index, a list's key): at 50,000 routes that was some
// 50 MB. Lookups walk the entries, as fast as hashing for a few; past SMALL entries they move to a
// Map. Insertion order, and every other behaviour of a Map, is kept, but for one: a walk of a few
// entries goes over them as they were when it began (a Map's walk also meets the keys added during it).

const SMALL = 8;
const EMPTY = Symbol('empty');

// an array of exactly `n` slots (a literal spread or a push leaves room for sixteen more)
const arrayOf = (n: number): unknown[] => new Array<unknown>(n);
const same = (a: unknown, b: unknown): boolean => a === b || (a !== a && b !== b);
// a -0 key is held as +0, as a Map holds it
const keyOf = (k: unknown): unknown => (Object.is(k, -0) ? 0 : k);

export class SmallMap<K, V> implements Map<K, V> {
  // the first entry (k is EMPTY when there is none); `rest`: the others as [k1, v1, k2, v2, ...],
  // each array of its own length and replaced on every change, or, past SMALL entries, a Map of all
  private k: unknown = EMPTY;
  private v: unknown = undefined;
  private rest: readonly unknown[] | Map<K, V> | undefined = undefined;

  constructor(entries?: Iterable<readonly [K, V]>) {
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  private restAt(key: unknown): number {
    const a = this.rest as readonly unknown[] | undefined;
    if (a) for (let i = 0; i < a.length; i += 2) if (same(a[i], key)) return i;
    return -1;
  }

  get size(): number {
    if (this.rest instanceof Map) return this.rest.size;
    return this.k === EMPTY ? 0 : 1 + (this.rest ? this.rest.length / 2 : 0);
  }

  get(key: K): V | undefined {
    if (this.rest instanceof Map) return this.rest.get(key);
    if (this.k !== EMPTY && same(this.k, key)) return this.v as V;
    const i = this.restAt(key);
    return i < 0 ? undefined : ((this.rest as readonly unknown[])[i + 1] as V);
  }

  has(key: K): boolean {
    if (this.rest instanceof Map) return this.rest.has(key);
    return (this.k !== EMPTY && same(this.k, key)) || this.restAt(key) >= 0;
  }

  set(key: K, value: V): this {
    const rest = this.rest;
    if (rest instanceof Map) {
      rest.set(key, value);
      return this;
    }
    if (this.k === EMPTY) {
      this.k = keyOf(key);
      this.v = value;
      return this;
    }
    if (same(this.k, key)) {
      this.v = value;
      return this;
    }
    const a = rest ?? [];
    const i = this.restAt(key);
    if (i >= 0) {
      const next = a.slice();
      next[i + 1] = value;
      this.rest = next;
    } else if (1 + a.length / 2 >= SMALL) {
      const m = new Map<K, V>([[this.k as K, this.v as V]]);
      for (let j = 0; j < a.length; j += 2) m.set(a[j] as K, a[j + 1] as V);
      this.rest = m.set(key, value);
      this.k = EMPTY;
      this.v = undefined;
    } else {
      const next = arrayOf(a.length + 2);
      for (let j = 0; j < a.length; j++) next[j] = a[j];
      next[a.length] = keyOf(key);
      next[a.length + 1] = value;
      this.rest = next;
    }
    return this;
  }

  delete(key: K): boolean {
    const rest = this.rest;
    if (rest instanceof Map) return rest.delete(key);
    if (this.k !== EMPTY && same(this.k, key)) {
      // the second entry becomes the first
      if (rest && rest.length) {
        this.k = rest[0];
        this.v = rest[1];
        this.rest = rest.length > 2 ? rest.slice(2) : undefined;
      } else {
        this.k = EMPTY;
        this.v = undefined;
      }
      return true;
    }
    const i = this.restAt(key);
    if (i < 0) return false;
    const a = rest!;
    if (a.length === 2) this.rest = undefined;
    else {
      const next = arrayOf(a.length - 2);
      for (let j = 0, n = 0; j < a.length; j++) if (j !== i && j !== i + 1) next[n++] = a[j];
      this.rest = next;
    }
    return true;
  }

  clear(): void {
    this.k = EMPTY;
    this.v = undefined;
    this.rest = undefined;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this) fn.call(thisArg, v, k, this);
  }

  *entries(): MapIterator<[K, V]> {
    const { k, v, rest } = this;
    if (rest instanceof Map) {
      yield* rest.entries();
      return;
    }
    if (k === EMPTY) return;
    yield [k as K, v as V];
    if (rest) for (let i = 0; i < rest.length; i += 2) yield [rest[i] as K, rest[i + 1] as V];
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
