// Whether the reconciler has caught up with a log position.
import type { Database } from './database';
import { dispatchCheckpoint, scoped } from './scope';

/**
 * Whether the reconciler has caught up with the log up to `position`: the dispatcher has read past
 * it and every key it has asked for so far has been recomputed since. (A key keeps only its newest
 * request, so requests made on account of later events count too: stricter, never wrong.)
 */
export async function caughtUp(db: Database, position: number, scope?: string): Promise<boolean> {
  const prefix = scope === undefined ? '%' : `${scoped(scope, '')}%`;
  const rows = await db.sql.$queryRawUnsafe<{ ok: boolean }[]>(
    `SELECT coalesce((SELECT min(position) FROM checkpoints WHERE name LIKE $1), 0) >= $2
        AND NOT EXISTS (
          SELECT 1 FROM reconcile_wants w LEFT JOIN recomputes r ON r.gateway = w.key
          WHERE w.key LIKE $3 AND (r.source_position IS NULL OR r.source_position < w.position)
        ) AS ok`,
    dispatchCheckpoint(scope ?? '%'), position, prefix);
  return Boolean(rows[0]?.ok);
}
