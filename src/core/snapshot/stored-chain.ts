// A snapshot as the store keeps it, put back together: the last whole table (its tail, see
// ./format) and the deltas that lead from its version to the current one, each applied in turn
// to the table's parts. Pure: the store's reader (adapters/delivery/snapshots) does the I/O.
import { applyChanges, DeltaMismatch, type SnapshotDelta } from './delta';
import { snapshotBody, snapshotTail, tableTextOfTail } from './format';
import { part, tablePartsOfText, type PartMaker, type TableParts } from './table-parts';
import { tableTextOfParts } from './table-text';

/**
 * The body of version `version` from the whole table's tail (of `baseVersion`) and the deltas'
 * texts after it, in version order, with the parts it was made from (the base of the next delta a
 * reader applies), held as `make` holds them. Throws DeltaMismatch when they do not make a chain
 * from `baseVersion` to `version`.
 */
export function chainedBody(
  namespace: string, name: string, version: number, baseVersion: number, baseTail: string, deltaTexts: readonly string[], make: PartMaker = part,
): { body: string; parts: TableParts } {
  let parts = tablePartsOfText(tableTextOfTail(baseTail), make);
  let at = baseVersion;
  let hash: string | undefined;
  for (const text of deltaTexts) {
    const d = JSON.parse(text) as SnapshotDelta;
    if (d.fromVersion !== at) throw new DeltaMismatch(`the stored delta to version ${d.version} applies to ${d.fromVersion}, not to ${at}`);
    parts = applyChanges(parts, d, make);
    at = d.version;
    hash = d.hash;
  }
  if (at !== version || hash === undefined) throw new DeltaMismatch(`the stored deltas lead to version ${at}, not to ${version}`);
  return { body: bodyOfParts(namespace, name, version, hash, parts), parts };
}

/** The body of a version whose table is `parts` (its text joined from theirs, see ./table-text). */
export function bodyOfParts(namespace: string, name: string, version: number, hash: string, parts: TableParts): string {
  return snapshotBody(namespace, name, version, snapshotTail(hash, tableTextOfParts(parts)));
}
