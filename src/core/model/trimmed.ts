// An array built by pushing keeps room for some sixteen more items: one or two backends, hostnames
// or conditions then take 150 bytes more than they hold, and an empty array still takes 32. The
// memos keep such arrays for as long as their route lives (some ten a route, 1.5 KB of a Gateway's
// memory a route before this), so what a memo keeps is copied to its own length when it is made,
// and every empty one is the same frozen array (what a memo keeps is not changed afterwards).

import { SharedTable } from './shared-table';

const NONE: readonly never[] = Object.freeze([]);

/** `items` in an array of its own length (the same items; the one frozen array when there are none). */
export const trimmed = <T>(items: readonly T[]): T[] => (items.length ? items.slice() : (NONE as unknown as T[]));

/** The one frozen empty array, for a memo's member that starts empty and may be replaced, not changed. */
export const noItems = <T>(): T[] => NONE as unknown as T[];

// Short lists of small indices alike are one frozen array: the listeners a route is counted on are
// one or a few, the same for nearly every route of a Gateway (two arrays a route, some 100 bytes).
const INDICES = new SharedTable<string, readonly number[]>(1024);

/** trimmed, for lists of indices: a short one is the same frozen array as every other alike. */
export function sharedIndices(items: readonly number[]): number[] {
  if (items.length === 0) return NONE as unknown as number[];
  if (items.length > 4) return items.slice();
  return INDICES.get(items.join(','), () => Object.freeze(items.slice())) as number[];
}
