import { replacedPositions } from './replaced-items';
import type { ListAt } from './chunked-list';

/** Two lists of the very same items in the same order (identity, not equality). */
export function sameItems(a: ListAt<unknown>, b: ListAt<unknown>): boolean {
  return replacedPositions(b, a, 0) !== undefined;
}
