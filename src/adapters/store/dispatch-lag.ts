// How far the dispatcher is behind the log: the committed events after its checkpoint, and how
// long the oldest of them has waited (0 when there is none). The count stops at LAG_COUNT_LIMIT so
// that a scrape stays cheap however far behind it is.
import type { SqlRunner } from './database';

export const LAG_COUNT_LIMIT = 1_000_000;

const LAG_SQL = `
WITH c AS (SELECT coalesce((SELECT position FROM checkpoints WHERE name = $1), 0) AS p)
SELECT
  (SELECT count(*) FROM (SELECT 1 FROM events, c WHERE events.position > c.p LIMIT ${LAG_COUNT_LIMIT}) behind) AS events,
  coalesce((SELECT greatest(0, extract(epoch FROM now() - e.time)) FROM events e, c WHERE e.position > c.p ORDER BY e.position LIMIT 1), 0) AS seconds`;

export interface DispatchLag {
  events: number;
  seconds: number;
}

export async function readDispatchLag(db: { sql: Pick<SqlRunner, '$queryRawUnsafe'> }, checkpoint: string): Promise<DispatchLag> {
  const [row] = await db.sql.$queryRawUnsafe<{ events: bigint | number | string; seconds: number | string }[]>(LAG_SQL, checkpoint);
  return { events: Number(row?.events ?? 0), seconds: Number(row?.seconds ?? 0) };
}
