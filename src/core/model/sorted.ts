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

/**
 * A sorted list from an earlier one: the elements `keep` keeps (all without it), then `added`
 * inserted in place, each after every element that does not come after it (insertSorted's order).
 * The added are sorted and merged in one pass: inserted one at a time, the hundreds a burst adds
 * to a list of thousands each moved the rest of the list.
 */
export function patchSorted<T>(previous: readonly T[], keep: ((x: T) => boolean) | undefined, added: Iterable<T>, cmp: (a: T, b: T) => number): T[] {
  // a stable sort: equal ones keep the order they came in, as inserting them in turn would
  const adding = [...added].sort(cmp);
  const list: T[] = [];
  let i = 0;
  const take = (to: number) => {
    for (; i < to; i++) if (!keep || keep(previous[i])) list.push(previous[i]);
  };
  for (const x of adding) {
    // past every element that does not come after x: found by a search, not compared one by one
    let hi = previous.length;
    for (let lo = i; lo < hi;) {
      const mid = (lo + hi) >>> 1;
      if (cmp(previous[mid], x) <= 0) lo = mid + 1;
      else hi = mid;
    }
    take(hi);
    list.push(x);
  }
  take(previous.length);
  return list;
}
