// What a Kubernetes watch reads besides the log: the first event after a position (whose age says
// whether the position is still within the history the server keeps), and the status changes
// (status_positions) that it merges with the log's events in position order.
import type { Database } from './database';
import type { K8sObject } from '../../core/model/objects';
import { STATUS, withStatus } from './objects';
import { mergeStatusParts } from '../../core/objects/status-parts';
import { HORIZON, TX_SHIFT } from './eventlog';

export async function firstEventAfter(db: Database, position: number): Promise<{ position: number; time: string } | null> {
  const rows = await db.sql.$queryRawUnsafe<{ position: bigint | number; time: Date | string }[]>(
    `SELECT position, time FROM events WHERE position > $1 ORDER BY position LIMIT 1`, position);
  if (!rows[0]) return null;
  const t = rows[0].time;
  return { position: Number(rows[0].position), time: t instanceof Date ? t.toISOString() : new Date(t).toISOString() };
}

/** The newest position of a change a reader can see now, a status's included: a Kubernetes list's resourceVersion. */
export async function lastVisibleChange(db: Database): Promise<number> {
  // each max() over a plain bound, as lastVisiblePosition's: PostgreSQL then reads one index entry
  // from the end; a bound from a CTE made it read every event (13 ms at 10,000, on every list)
  const rows = await db.sql.$queryRawUnsafe<{ p: bigint | number | null }[]>(
    `SELECT GREATEST((SELECT max(position) FROM events WHERE position < ${HORIZON} * ${TX_SHIFT}),
                     (SELECT max(position) FROM status_positions WHERE position < ${HORIZON} * ${TX_SHIFT})) AS p`);
  return Number(rows[0]?.p ?? 0);
}

export interface StatusChange {
  position: number;
  kind: string;
  namespace: string;
  name: string;
  /** the object's stream version */
  version: number;
  time: string;
  /** the object as it is now, with its status */
  object: K8sObject;
}

/**
 * The objects whose status changed after `after` and at or before `upTo` (a bound every reader's
 * horizon has passed), as they are now, each at its status position, oldest first. An object whose
 * last event is newer than its status change is left out: that event carries the status, read as
 * it is now.
 */
export async function statusChangesBetween(db: Database, q: { after: number; upTo: number; kind?: string; namespace?: string; namespaces?: string[] }): Promise<StatusChange[]> {
  const params: unknown[] = [q.after, q.upTo];
  let filter = '';
  const p = (v: unknown) => { params.push(v); return `$${params.length}`; };
  if (q.kind !== undefined) filter += ` AND o.kind = ${p(q.kind)}`;
  if (q.namespace !== undefined) filter += ` AND o.namespace = ${p(q.namespace)}`;
  if (q.namespaces) filter += ` AND ${q.kind === 'Namespace' ? 'o.name' : 'o.namespace'} = ANY(${p(q.namespaces)}::text[])`;
  const rows = await db.sql.$queryRawUnsafe<{ object: K8sObject; position: bigint | number; kind: string; namespace: string; name: string; version: number; time: Date | string; parts: unknown }[]>(
    `SELECT o.object, s.position, o.kind, o.namespace, o.name, o.version, s.time, ${STATUS} AS parts
     FROM status_positions s JOIN objects o ON o.stream = s.stream
     WHERE s.position > $1 AND s.position <= $2 AND NOT o.deleted AND o.position < s.position${filter}
     ORDER BY s.position`, ...params);
  return rows.map((r) => ({
    position: Number(r.position), kind: r.kind, namespace: r.namespace, name: r.name, version: Number(r.version),
    time: r.time instanceof Date ? r.time.toISOString() : new Date(r.time).toISOString(),
    object: withStatus(r.object, r.parts),
  }));
}

/** The statuses of these objects as they are now, by stream (absent: none). */
export async function currentStatuses(db: Database, streams: string[]): Promise<Map<string, unknown>> {
  if (streams.length === 0) return new Map();
  const rows = await db.sql.$queryRawUnsafe<{ stream: string; parts: unknown }[]>(
    `SELECT o.stream, ${STATUS} AS parts FROM objects o WHERE o.stream = ANY($1::text[])`, streams);
  const out = new Map<string, unknown>();
  for (const r of rows) {
    const status = mergeStatusParts(r.parts as never);
    if (status !== undefined) out.set(r.stream, status);
  }
  return out;
}
