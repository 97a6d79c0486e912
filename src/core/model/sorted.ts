// Keeping a sorted list sorted: what the incremental steps (ordering, compile) use to patch the
// previous recompute's order instead of sorting every route again.

/** The first index whose element does not come before `x` (its place, when it is not there). */
export function findSorted<T, X>(list: readonly T[], x: X, order: (a: T, x: X) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order(list[mid], x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** findSorted over anything read by position (a chunked list, an editor of one). */
export function findSortedAt<T, X>(list: { readonly length: number; at(i: number): T | undefined }, x: X, order: (a: T, x: X) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order(list.at(mid) as T, x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts `item` after every element that does not come after it under `cmp`. */
export function insertSorted<T>(list: T[], item: T, cmp: (a: T, b: T) => number): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(list[mid], item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, item);
}

/** A sorted list from an earlier one: the elements `keep` keeps (all without it), then `added` inserted in place. */
export function patchSorted<T>(previous: readonly T[], keep: ((x: T) => boolean) | undefined, added: Iterable<T>, cmp: (a: T, b: T) => number): T[] {
  const list = keep ? previous.filter(keep) : previous.slice();
  for (const x of added) insertSorted(list, x, cmp);
  return list;
}
