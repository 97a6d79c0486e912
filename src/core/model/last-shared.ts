// Routes translated one after another often make the same value (the same message, the same
// statuses, the same name key): the last one made is answered again when the next reads the same,
// so that they share one copy instead of each keeping its own (a Gateway of 50,000 routes kept
// 50,000). Only for values nothing changes once made.

/** A function answering the last value it was given when `value` is the same as it, else `value`. */
export function lastShared<T>(same: (a: T, b: T) => boolean = (a, b) => a === b): (value: T) => T {
  let last: { value: T } | undefined;
  return (value) => (last && same(last.value, value) ? last.value : (last = { value }).value);
}
