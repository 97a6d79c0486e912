// An array built by pushing keeps room for some sixteen more items: one or two backends, hostnames
// or conditions then take 150 bytes more than they hold, and an empty array still takes 32. The
// memos keep such arrays for as long as their route lives (some ten a route, 1.5 KB of a Gateway's
// memory a route before this), so what a memo keeps is copied to its own length when it is made,
// and every empty one is the same frozen array (what a memo keeps is not changed afterwards).

const NONE: readonly never[] = Object.freeze([]);

/** `items` in an array of its own length (the same items; the one frozen array when there are none). */
export const trimmed = <T>(items: readonly T[]): T[] => (items.length ? items.slice() : (NONE as unknown as T[]));
