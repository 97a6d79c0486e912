// A list remade from another by replacing a few of its items in place (a Gateway's routes when one
// of its 50,000 is written) notes where, so that a reader holding the list before learns what
// changed without comparing every item: three readers did so for each change (the dependency
// counts, the loader's reuse of unchanged lists, the translation's merge), some 4 ms a change at
// 50,000 routes. Lists without a note, or further apart than one note, are compared item by item.

interface Replaced {
  from: readonly unknown[];
  /** ascending; where the item differs from `from`'s */
  at: readonly number[];
}

const NOTES = new WeakMap<readonly unknown[], Replaced>();

/** `next` is `from` (the same length) with the items at `at` replaced, and no others. */
export function noteReplaced(next: readonly unknown[], from: readonly unknown[], at: Iterable<number>): void {
  const changed = [...new Set(at)].filter((i) => next[i] !== from[i]).sort((a, b) => a - b);
  // one note back only: a note on `from` too would keep every version before it alive through this one
  NOTES.delete(from);
  NOTES.set(next, { from, at: changed });
}

/**
 * The positions (ascending) where `next` holds another item than `before`, compared by identity;
 * undefined when their lengths differ or more than `limit` positions do.
 */
export function replacedPositions(before: readonly unknown[], next: readonly unknown[], limit: number): number[] | undefined {
  if (before === next) return [];
  if (before.length !== next.length) return undefined;
  const note = NOTES.get(next);
  if (note?.from === before) return note.at.length <= limit ? [...note.at] : undefined;
  const out: number[] = [];
  for (let i = 0; i < next.length; i++) {
    if (next[i] === before[i]) continue;
    if (out.length === limit) return undefined;
    out.push(i);
  }
  return out;
}
