// What the feed holds to apply deltas to: the parts of the table it last took, with its version and
// the Secrets that came with it. A delta that does not fit (another base version, a part that is
// not where it says, a table that does not hash as the API says) throws DeltaMismatch, and the feed
// fetches the whole snapshot instead; the table being served is never touched by a failed delta.
import { tableParts, type TableParts } from '../core/snapshot/table-parts';
import { applyDelta, DeltaMismatch, type SnapshotDelta } from '../core/snapshot/delta';
import type { Snapshot, SnapshotSecret } from '../core/compile/types';

export { DeltaMismatch };

export interface Held {
  version: number;
  parts: TableParts;
  secrets: SnapshotSecret[];
}

export function heldOf(snap: Snapshot): Held {
  return { version: snap.version, parts: tableParts(snap.table), secrets: snap.secrets ?? [] };
}

/** The snapshot a delta leads to from what is held, and what to hold next. */
export function appliedSnapshot(held: Held | null, d: SnapshotDelta): { snapshot: Snapshot; held: Held } {
  if (!held) throw new DeltaMismatch(`a delta to version ${d.version} came before any whole snapshot`);
  // a delta that carries Secrets replaces them all; one that carries none leaves them as they were
  const secrets = d.secrets ?? held.secrets;
  const out = applyDelta(held.parts, held.version, d, secrets);
  return {
    snapshot: { gateway: d.gateway, version: d.version, hash: out.hash, table: out.table, secrets },
    held: { version: d.version, parts: out.parts, secrets },
  };
}
