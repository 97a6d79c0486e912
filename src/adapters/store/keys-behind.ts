// The recompute keys the store shows behind: asked for (reconcile_wants, written by the dispatcher
// and by recomputes that found missed changes) at a position above the one their last recompute
// read. The same comparison as caughtUp (checkpoints.ts), key by key.
import type { Database } from './database';
import { scoped } from './scope';

export interface KeyBehind {
  /** the recompute key, without the controller's scope */
  key: string;
  /** the position it is wanted at */
  position: number;
}

export async function keysBehind(db: Database, scope: string, limit: number): Promise<KeyBehind[]> {
  const prefix = scoped(scope, '');
  const rows = await db.planned<{ key: string; position: number }[]>(
    'switchyard_keys_behind',
    `SELECT w.key, w.position FROM reconcile_wants w LEFT JOIN recomputes r ON r.gateway = w.key
     WHERE starts_with(w.key, $1) AND (r.source_position IS NULL OR r.source_position < w.position)
     ORDER BY w.position LIMIT $2`,
    prefix, limit);
  return rows.map((r) => ({ key: r.key.slice(prefix.length), position: Number(r.position) }));
}
