// What a Kubernetes watch asks of the log before it streams: the first event after a position,
// whose age says whether the position is still within the history the server keeps.
import type { Database } from './database';

export async function firstEventAfter(db: Database, position: number): Promise<{ position: number; time: string } | null> {
  const rows = await db.sql.$queryRawUnsafe<{ position: bigint | number; time: Date | string }[]>(
    `SELECT position, time FROM events WHERE position > $1 ORDER BY position LIMIT 1`, position);
  if (!rows[0]) return null;
  const t = rows[0].time;
  return { position: Number(rows[0].position), time: t instanceof Date ? t.toISOString() : new Date(t).toISOString() };
}
