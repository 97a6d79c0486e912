// Stamps the dependency keys on events written before events.touches existed (and on any an older
// process writes during an upgrade): a batch at a time, each event with the version before it.
import type { SqlRunner } from './database';
import { touchedBy } from '../../core/deps';
import type { K8sObject } from '../../core/model/objects';

const BATCH = 2000;

const PENDING_SQL = `
SELECT e.position, e.kind, e.type, e.object, prev.object AS previous
FROM (SELECT * FROM events WHERE touches IS NULL ORDER BY position LIMIT $1) e
LEFT JOIN events prev ON prev.stream = e.stream AND prev.version = e.version - 1
ORDER BY e.position`;

export async function backfillTouches(db: SqlRunner): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await db.$queryRawUnsafe<{ position: bigint; kind: string; type: string; object: K8sObject; previous: K8sObject | null }[]>(PENDING_SQL, BATCH);
    if (rows.length === 0) return total;
    const positions = rows.map((r) => String(r.position));
    // a re-create follows a tombstone, not a live version; a delete's object is the version deleted
    const touches = rows.map((r) => JSON.stringify(touchedBy(r.kind, r.type === 'Created' ? null : r.previous, r.object)));
    await db.$executeRawUnsafe(
      `UPDATE events SET touches = ARRAY(SELECT jsonb_array_elements_text(x.t::jsonb))
       FROM unnest($1::bigint[], $2::text[]) AS x(position, t) WHERE events.position = x.position`,
      positions, touches);
    total += rows.length;
  }
}
