// Which ids of a table's parts a translation touched, kept beside the parts it made: the table's
// delta from the parts it was made from is then found from those ids, without comparing the lists
// whole (a change to one route of 50,000 touches a handful). Every list not named is the very
// list the earlier parts hold.
import type { TableParts } from './table-parts';

export interface ListChangesOf {
  /** the parts these were made from */
  from: TableParts;
  /** by list ('routes', 'rules', or an entries key): the ids removed, added or replaced there */
  touched: ReadonlyMap<string, ReadonlySet<string>>;
}

const CHANGES = new WeakMap<TableParts, ListChangesOf>();

export function rememberChanges(parts: TableParts, from: TableParts, touched: ReadonlyMap<string, ReadonlySet<string>>): void {
  // what made `from` is not asked for again (a delta is made from the version before): were it
  // kept, every version would keep the one before it alive
  CHANGES.delete(from);
  CHANGES.set(parts, { from, touched });
}

/** What made `parts` from `from`, when it is known. */
export function changesFrom(parts: TableParts, from: TableParts): ListChangesOf | undefined {
  const c = CHANGES.get(parts);
  return c && c.from === from ? c : undefined;
}
