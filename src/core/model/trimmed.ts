// An array built by pushing keeps room for some sixteen more items: one or two backends, hostnames
// or conditions then take 150 bytes more than they hold. The memos keep such arrays for as long as
// their route lives (some ten a route, 1.5 KB of a Gateway's memory a route before this), so what
// a memo keeps is copied to its own length when it is made.

/** `items` in an array of its own length (the same items, in a new array). */
export const trimmed = <T>(items: readonly T[]): T[] => items.slice();
