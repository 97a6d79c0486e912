// The dispatcher's two statements: read the next batch of the log after its checkpoint, and record
// what it asked for together with the checkpoint it moved to.
import type { Database } from './database';
import { HORIZON, TX_SHIFT } from './eventlog';
import type { K8sObject } from '../../core/model/objects';

// One round trip per batch: the checkpoint, and the events after it that no future commit can
// precede (see readEvents), each with the dependency keys it touches (stamped when it was written).
const BATCH_SQL = `
WITH c AS (SELECT coalesce((SELECT position FROM checkpoints WHERE name = $1), 0) AS p),
     h AS (SELECT ${HORIZON} AS xmin)
SELECT c.p AS checkpoint, h.xmin, e.position, e.stream, e.type, e.kind, e.namespace, e.name, e.version, e.object, e.touches
FROM c CROSS JOIN h CROSS JOIN LATERAL (
  SELECT * FROM events WHERE position > c.p AND position < h.xmin * ${TX_SHIFT} ORDER BY position LIMIT $2
) e
ORDER BY e.position`;

export interface DispatchRow {
  checkpoint: number; xmin: number; position: number; stream: string; type: string; kind: string; namespace: string;
  name: string; version: number; object: K8sObject; touches: string[] | null;
}

export interface DispatchBatch {
  /** the checkpoint the batch was read after */
  from: number;
  /** every event at or below this position has been read when the batch was not full */
  horizon: number;
  rows: DispatchRow[];
}

export async function readDispatchBatch(db: Database, checkpoint: string, limit: number): Promise<DispatchBatch | null> {
  const rows = await db.planned<DispatchRow[]>('switchyard_dispatch_batch_touches', BATCH_SQL, checkpoint, limit);
  if (rows.length === 0) return null;
  return { from: Number(rows[0].checkpoint), horizon: Number(rows[0].xmin) * TX_SHIFT - 1, rows };
}

/** The requests made for a batch, as wanted at its last position, and the checkpoint moved there (forwards only). */
export async function recordDispatched(db: Database, checkpoint: string, position: number, wantKeys: string[]): Promise<void> {
  await db.sql.$executeRawUnsafe(
    `WITH wants AS (
       INSERT INTO reconcile_wants (key, position) SELECT unnest($3::text[]), $2
       ON CONFLICT (key) DO UPDATE SET position = GREATEST(reconcile_wants.position, excluded.position)
       RETURNING 1
     )
     INSERT INTO checkpoints (name, position) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET position = excluded.position WHERE checkpoints.position < excluded.position`,
    checkpoint, position, wantKeys);
}
