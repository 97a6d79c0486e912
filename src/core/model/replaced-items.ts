// A list remade from another by replacing a few of its items in place (a Gateway's routes when one
// of its 50,000 is written) notes where, so that a reader holding the list before learns what
// changed without comparing every item: three readers did so for each change (the dependency
// counts, the loader's reuse of unchanged lists, the translation's merge), some 4 ms a change at
// 50,000 routes. Lists without a note, or further apart than one note, are compared item by item.

import type { ListAt } from './chunked-list';

type List = ListAt<unknown>;

interface Replaced {
  from: List;
  /** ascending; where the item differs from `from`'s */
  at: readonly number[];
}

const NOTES = new WeakMap<List, Replaced>();

/** `next` is `from` (the same length) with the items at `at` replaced, and no others. */
export function noteReplaced(next: List, from: List, at: Iterable<number>): void {
  const changed = [...new Set(at)].filter((i) => next.at(i) !== from.at(i)).sort((a, b) => a - b);
  // one note back only: a note on `from` too would keep every version before it alive through this one
  NOTES.delete(from);
  NOTES.set(next, { from, at: changed });
}

/**
 * The positions (ascending) where `next` holds another item than `before`, compared by identity;
 * undefined when their lengths differ or more than `limit` positions do.
 */
export function replacedPositions(before: List, next: List, limit: number): number[] | undefined {
  if (before === next) return [];
  if (before.length !== next.length) return undefined;
  const note = NOTES.get(next);
  if (note?.from === before) return note.at.length <= limit ? [...note.at] : undefined;
  const out: number[] = [];
  // in step, not by position: a chunked list finds a position by a search
  const was = before[Symbol.iterator]();
  let i = 0;
  for (const x of next) {
    if (x !== was.next().value) {
      if (out.length === limit) return undefined;
      out.push(i);
    }
    i++;
  }
  return out;
}
