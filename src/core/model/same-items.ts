import { replacedPositions } from './replaced-items';

/** Two lists of the very same items in the same order (identity, not equality). */
export function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return replacedPositions(b, a, 0) !== undefined;
}
