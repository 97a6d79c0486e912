// What a Kubernetes watch reads besides the log: the first event after a position (whose age says
// whether the position is still within the history the server keeps), and the objects a recompute
// may have given a new status.
import type { Database } from './database';
import type { K8sObject } from '../../core/model/objects';
import { STATUS, withStatus } from './objects';
import { scoped } from './scope';

export async function firstEventAfter(db: Database, position: number): Promise<{ position: number; time: string } | null> {
  const rows = await db.sql.$queryRawUnsafe<{ position: bigint | number; time: Date | string }[]>(
    `SELECT position, time FROM events WHERE position > $1 ORDER BY position LIMIT 1`, position);
  if (!rows[0]) return null;
  const t = rows[0].time;
  return { position: Number(rows[0].position), time: t instanceof Date ? t.toISOString() : new Date(t).toISOString() };
}

/**
 * The objects of a kind a recompute of these Gateways may have given a new status: the Gateways
 * themselves and the objects holding a status part one of them owns, with their merged status and
 * position. A watch re-reads these after a recompute instead of the whole kind.
 */
export async function objectsStatusedBy(db: Database, kind: string, gateways: string[], controllerName: string): Promise<{ object: K8sObject; position: number }[]> {
  const owners = gateways.map((g) => scoped(controllerName, g));
  const rows = await db.sql.$queryRawUnsafe<{ object: K8sObject; position: bigint | number; parts: unknown }[]>(
    `SELECT o.object, o.position, ${STATUS} AS parts FROM objects o
     WHERE o.kind = $1 AND NOT o.deleted
       AND (o.stream = ANY($2::text[]) OR EXISTS (SELECT 1 FROM status_parts p WHERE p.stream = o.stream AND p.owner = ANY($3::text[])))`,
    kind, gateways, owners);
  return rows.map((r) => ({ object: withStatus(r.object, r.parts), position: Number(r.position) }));
}
