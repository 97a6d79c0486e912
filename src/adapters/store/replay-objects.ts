// Drops the object projection and replays the whole log into it, inside one transaction so that
// writers wait rather than interleave. Secret data is not a projection and is left alone.
import type { Database } from './database';
import { evolve, type ProjectionRow } from '../../core/objects/projection';

const BATCH = 5000;

export async function replayLogIntoObjects(db: Database): Promise<{ events: number; objects: number }> {
  return db.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('LOCK TABLE events IN SHARE MODE');
    await tx.$executeRawUnsafe('TRUNCATE objects');
    const rows = new Map<string, ProjectionRow>();
    let after = -1;
    let events = 0;
    for (;;) {
      const batch = await tx.$queryRawUnsafe<any[]>(
        `SELECT position, stream, type, kind, namespace, name, version, object FROM events WHERE position > $1 ORDER BY position LIMIT ${BATCH}`,
        after,
      );
      for (const r of batch) {
        const ev = { ...r, position: Number(r.position), version: Number(r.version) };
        rows.set(ev.stream, evolve(rows.get(ev.stream), ev));
      }
      events += batch.length;
      if (batch.length < BATCH) break;
      after = Number(batch[batch.length - 1].position);
    }
    const all = [...rows.values()];
    for (let i = 0; i < all.length; i += BATCH) {
      await tx.$executeRawUnsafe(
        `INSERT INTO objects (stream, kind, namespace, name, version, deleted, object, position)
         SELECT stream, kind, namespace, name, version, deleted, object, position
         FROM jsonb_to_recordset($1::jsonb) AS x(stream text, kind text, namespace text, name text, version int, deleted boolean, object jsonb, position bigint)`,
        JSON.stringify(all.slice(i, i + BATCH)),
      );
    }
    return { events, objects: all.length };
  }, { timeout: 600_000, maxWait: 60_000 });
}
