// A long list that is edited a few items at a time and kept version after version: the items in
// chunks of some hundreds, a new version sharing every chunk its edits did not touch. A Gateway of
// 50,000 routes has lists of 150,000 entry ids; copying one for each change copies megabytes,
// which the engine allocates apart from its other objects (in pages fresh from the system, a page
// fault each) and frees only in a full collection. Here a change copies the chunks it edits and
// the short list of chunks.

const CHUNK = 512;

/** A list as it is only read: its length and its items in order (an array is one). */
export type ReadList<T> = Iterable<T> & { readonly length: number };

/** A list read in order or by position (an array is one). */
export type ListAt<T> = ReadList<T> & { at(i: number): T | undefined };

/** The chunk holding position `i` of a list whose chunks end at `ends` (0 <= i < its length). */
function chunkAt(ends: readonly number[], i: number): number {
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ends[mid] <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// what a list and an editor of one read alike, over chunks and their ends
const startOf = (ends: readonly number[], c: number): number => (c === 0 ? 0 : ends[c - 1]);
const lengthOf = (ends: readonly number[]): number => (ends.length ? ends[ends.length - 1] : 0);

function itemAt<T>(chunks: readonly (readonly T[])[], ends: readonly number[], i: number): T | undefined {
  if (i < 0 || i >= lengthOf(ends)) return undefined;
  const c = chunkAt(ends, i);
  return chunks[c][i - startOf(ends, c)];
}

/** The first position of `x` (compared by identity) in [from, to), or -1. */
function positionOf<T>(chunks: readonly (readonly T[])[], ends: readonly number[], x: T, from: number, to: number): number {
  if (from >= to || from >= lengthOf(ends)) return -1;
  for (let c = chunkAt(ends, Math.max(0, from)); c < chunks.length; c++) {
    const start = startOf(ends, c);
    if (start >= to) break;
    const k = chunks[c].indexOf(x, Math.max(0, from - start));
    if (k >= 0) return start + k < to ? start + k : -1;
  }
  return -1;
}

export class ChunkedList<T> implements Iterable<T> {
  /** made by `from`, `empty` and an editor's `done` */
  constructor(
    private readonly chunks: readonly (readonly T[])[],
    /** ends[c]: the position after chunk c's last item */
    private readonly ends: readonly number[],
  ) {}

  static from<T>(items: readonly T[]): ChunkedList<T> {
    const chunks: T[][] = [];
    const ends: number[] = [];
    for (let i = 0; i < items.length; i += CHUNK) {
      chunks.push(items.slice(i, i + CHUNK));
      ends.push(Math.min(items.length, i + CHUNK));
    }
    return new ChunkedList(chunks, ends);
  }

  static empty<T>(): ChunkedList<T> {
    return new ChunkedList<T>([], []);
  }

  get length(): number {
    return lengthOf(this.ends);
  }

  at(i: number): T | undefined {
    return itemAt(this.chunks, this.ends, i);
  }

  /** The first position of `x` in [from, to), or -1. */
  indexOf(x: T, from = 0, to = this.length): number {
    return positionOf(this.chunks, this.ends, x, from, to);
  }

  /**
   * Into `out`, the positions in [from, to) of the items of `wanted` that the list holds there (of
   * an item held twice, the later), read chunk by chunk.
   */
  positionsOf(wanted: ReadonlySet<T>, out = new Map<T, number>(), from = 0, to = this.length): Map<T, number> {
    if (from >= to || from >= this.length) return out;
    for (let c = chunkAt(this.ends, Math.max(0, from)); c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      const start = startOf(this.ends, c);
      if (start >= to) break;
      const end = Math.min(chunk.length, to - start);
      for (let i = Math.max(0, from - start); i < end; i++) if (wanted.has(chunk[i])) out.set(chunk[i], start + i);
    }
    return out;
  }

  [Symbol.iterator](): Iterator<T> {
    // not a generator: a loop over 150,000 ids should cost what a loop over an array does
    const chunks = this.chunks;
    let c = 0;
    let i = 0;
    return {
      next(): IteratorResult<T> {
        while (c < chunks.length && i >= chunks[c].length) {
          c++;
          i = 0;
        }
        return c < chunks.length ? { value: chunks[c][i++], done: false } : { value: undefined, done: true };
      },
    };
  }

  map<U>(fn: (x: T) => U): U[] {
    const out = new Array<U>(this.length);
    let k = 0;
    for (const chunk of this.chunks) for (let i = 0; i < chunk.length; i++) out[k++] = fn(chunk[i]);
    return out;
  }

  toArray(): T[] {
    return this.map((x) => x);
  }

  /**
   * The list read through `fn`, made as it is read: no array of the list's length is made (one of
   * 50,000 items is allocated apart from other objects and freed only by a full collection).
   * `fn` is called again on each read, so it must answer the same each time.
   */
  mapped<U>(fn: (x: T) => U): ReadList<U> {
    const items = (): Iterator<U> => {
      const it = this[Symbol.iterator]();
      return {
        next(): IteratorResult<U> {
          const r = it.next();
          return r.done ? r : { value: fn(r.value), done: false };
        },
      };
    };
    return { length: this.length, [Symbol.iterator]: items, toJSON: () => this.map(fn) } as ReadList<U>;
  }

  /** An editor of a new version: this one is left as it is. */
  edit(): ChunkedEdit<T> {
    return new ChunkedEdit(this.chunks.slice(), this.ends.slice());
  }
}

/** Edits a new version of a list, copying each chunk the first time it edits it. */
export class ChunkedEdit<T> {
  private readonly owned = new Set<readonly T[]>();

  constructor(private readonly chunks: (readonly T[])[], private readonly ends: number[]) {}

  get length(): number {
    return lengthOf(this.ends);
  }

  at(i: number): T | undefined {
    return itemAt(this.chunks, this.ends, i);
  }

  /** The first position of `x` (compared by identity), or -1. */
  indexOf(x: T): number {
    return positionOf(this.chunks, this.ends, x, 0, this.length);
  }

  /** Puts `x` at position `i` (0 <= i < length) in place of what is there. */
  set(i: number, x: T): void {
    if (i < 0 || i >= this.length) throw new RangeError(`set(${i}) of a list of ${this.length}`);
    const c = chunkAt(this.ends, i);
    this.own(c)[i - startOf(this.ends, c)] = x;
  }

  private own(c: number): T[] {
    let chunk = this.chunks[c];
    if (!this.owned.has(chunk)) {
      chunk = chunk.slice();
      this.chunks[c] = chunk;
      this.owned.add(chunk);
    }
    return chunk as T[];
  }

  private shiftEnds(from: number, by: number): void {
    for (let c = from; c < this.ends.length; c++) this.ends[c] += by;
  }

  /** Removes `count` items from position `at` (all within the list). */
  remove(at: number, count: number): void {
    if (at < 0 || count < 0 || at + count > this.length) throw new RangeError(`remove(${at}, ${count}) of a list of ${this.length}`);
    while (count > 0) {
      const c = chunkAt(this.ends, at);
      const start = startOf(this.ends, c);
      const n = Math.min(count, this.ends[c] - at);
      if (n === this.ends[c] - start) {
        // the whole chunk goes
        this.chunks.splice(c, 1);
        this.ends.splice(c, 1);
        this.shiftEnds(c, -n);
      } else {
        this.own(c).splice(at - start, n);
        this.shiftEnds(c, -n);
      }
      count -= n;
    }
  }

  /** Inserts `items` at position `at` (0 <= at <= length). */
  insert(at: number, items: readonly T[]): void {
    if (at < 0 || at > this.length) throw new RangeError(`insert at ${at} into a list of ${this.length}`);
    if (items.length === 0) return;
    if (this.chunks.length === 0) {
      const chunk = items.slice();
      this.chunks.push(chunk);
      this.owned.add(chunk);
      this.ends.push(chunk.length);
      this.split(0);
      return;
    }
    // at the end of a chunk rather than the start of the next: appending stays in the last chunk
    const c = at === this.length ? this.chunks.length - 1 : chunkAt(this.ends, at);
    const start = startOf(this.ends, c);
    this.own(c).splice(at - start, 0, ...items);
    this.shiftEnds(c, items.length);
    this.split(c);
  }

  /** Chunk c cut in two (and again) while it is twice the size. */
  private split(c: number): void {
    const chunk = this.chunks[c];
    if (chunk.length < 2 * CHUNK) return;
    const start = startOf(this.ends, c);
    const pieces: T[][] = [];
    for (let i = 0; i < chunk.length; i += CHUNK) pieces.push(chunk.slice(i, i + CHUNK));
    for (const p of pieces) this.owned.add(p);
    this.chunks.splice(c, 1, ...pieces);
    this.ends.splice(c, 1, ...pieces.map((p, k) => start + Math.min(chunk.length, (k + 1) * CHUNK)));
  }

  /** The new version (the editor is not used after). */
  done(): ChunkedList<T> {
    return new ChunkedList(this.chunks, this.ends);
  }
}
