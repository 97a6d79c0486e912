// The event log and the object projection, written together in one statement.
//
// Positions: a plain sequence lets a tailing reader skip an event whose transaction commits late.
// Instead an event's position is its transaction id * 2^20 + its index in that transaction, and
// readers see only events of transactions older than the oldest one still running
// (pg_snapshot_xmin). Every transaction that could still commit has an id >= that horizon, so its
// events land above every position a reader has already been shown: no gap can open behind it.
import { queryPrepared, type SqlRunner } from './database';
import type { K8sObject } from '../../core/model/objects';
import type { EventType } from '../../core/objects/write';
import type { components } from '../../generated/api';
import { inReadingOrder } from '../../core/objects/order';

export const TX_SHIFT = 1_048_576; // 2^20 events per transaction at most

export interface AppendEvent {
  stream: string;
  kind: string;
  namespace: string;
  name: string;
  /** the stream version this event creates: expectedVersion + 1 */
  version: number;
  type: EventType;
  actor: string;
  time: string;
  /** what the log keeps (Secret data replaced by its digest) */
  object: K8sObject;
  /** what the projection keeps (the same as object, but a Secret without data) */
  projection: K8sObject;
  /** the dependency keys the change touches (src/core/deps touchedBy) */
  touches: readonly string[];
  secret?: { op: 'put'; data: Record<string, string>; digest: string } | { op: 'delete' };
}

/** An event as the feed shows it (the spec's Event), with the object typed. */
export type StoredEvent = Omit<components['schemas']['Event'], 'object'> & { object: K8sObject };

export class VersionConflictError extends Error {
  constructor(public readonly streams: string[]) {
    super(`a concurrent write changed ${streams.join(', ')}`);
  }
}

type Runner = SqlRunner;

const appendSql = (secrets: boolean) => `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
    idx int, stream text, kind text, namespace text, name text, version int, type text, actor text,
    time timestamptz, object jsonb, projection jsonb, touches text[])
), tx AS (
  SELECT pg_current_xact_id()::text::bigint AS xid
), ev AS (
  INSERT INTO events (position, xid, stream, kind, namespace, name, version, type, actor, time, object, touches)
  SELECT tx.xid * ${TX_SHIFT} + $2::int + input.idx, tx.xid, input.stream, input.kind, input.namespace,
         input.name, input.version, input.type, input.actor, input.time, input.object, input.touches
  FROM input, tx
  RETURNING position, stream, version
), proj AS (
  INSERT INTO objects (stream, kind, namespace, name, version, deleted, object, position)
  SELECT input.stream, input.kind, input.namespace, input.name, input.version, input.type = 'Deleted',
         coalesce(input.projection, input.object), ev.position
  FROM input JOIN ev ON ev.stream = input.stream AND ev.version = input.version
  ON CONFLICT (stream) DO UPDATE SET version = excluded.version, deleted = excluded.deleted,
    object = excluded.object, position = excluded.position
  RETURNING 1
)${secrets ? `, sput AS (
  INSERT INTO secret_data (stream, data, digest)
  SELECT s.stream, s.data, s.digest FROM jsonb_to_recordset($3::jsonb) AS s(stream text, data jsonb, digest text)
  ON CONFLICT (stream) DO UPDATE SET data = excluded.data, digest = excluded.digest
  RETURNING 1
), sdel AS (
  DELETE FROM secret_data WHERE stream IN (SELECT jsonb_array_elements_text($4::jsonb))
  RETURNING 1
)` : ''}
SELECT ev.position, ev.stream, ev.version, (SELECT count(*) FROM proj) AS projected FROM ev ORDER BY ev.position`;
const APPEND_MANY_SQL = appendSql(false);
const APPEND_WITH_SECRETS_SQL = appendSql(true);

// One event without Secret data is the common write: a plain statement that PostgreSQL plans cheaply.
const APPEND_ONE_SQL = `
WITH tx AS (
  SELECT pg_current_xact_id()::text::bigint AS xid
), ev AS (
  INSERT INTO events (position, xid, stream, kind, namespace, name, version, type, actor, time, object, touches)
  SELECT tx.xid * ${TX_SHIFT} + $1::int, tx.xid, $2, $3, $4, $5, $6::int, $7, $8, $9::timestamptz, $10::jsonb, $11::text[] FROM tx
  RETURNING position, stream, version
), proj AS (
  INSERT INTO objects (stream, kind, namespace, name, version, deleted, object, position)
  SELECT $2, $3, $4, $5, $6::int, $7 = 'Deleted', $10::jsonb, ev.position FROM ev
  ON CONFLICT (stream) DO UPDATE SET version = excluded.version, deleted = excluded.deleted,
    object = excluded.object, position = excluded.position
  RETURNING 1
)
SELECT ev.position, ev.stream, ev.version FROM ev`;

/**
 * Appends events (and their projections) atomically. Within one transaction, pass `offset` so that
 * several appends keep distinct positions.
 */
export async function appendEvents(
  db: Runner,
  events: AppendEvent[],
  offset = 0,
): Promise<{ position: number; stream: string; version: number }[]> {
  if (events.length === 0) return [];
  if (offset + events.length >= TX_SHIFT) throw new Error(`too many events in one transaction (${offset + events.length})`);
  const single = events.length === 1 && !events[0].secret && events[0].object === events[0].projection ? events[0] : null;
  const input = events.map((e, idx) => ({
    idx, stream: e.stream, kind: e.kind, namespace: e.namespace, name: e.name, version: e.version,
    // the projection is the object but for a Secret's data: the same object is sent once
    type: e.type, actor: e.actor, time: e.time, object: e.object, projection: e.projection === e.object ? null : e.projection, touches: e.touches,
  }));
  const puts = events.flatMap((e) => (e.secret?.op === 'put' ? [{ stream: e.stream, data: e.secret.data, digest: e.secret.digest }] : []));
  const dels = events.flatMap((e) => (e.secret?.op === 'delete' ? [e.stream] : []));
  try {
    const rows = single
      ? await queryPrepared<{ position: bigint | number; stream: string; version: number }[]>(
          db, 'switchyard_append_one', APPEND_ONE_SQL, offset, single.stream, single.kind, single.namespace, single.name, single.version,
          single.type, single.actor, single.time, JSON.stringify(single.object), single.touches,
        )
      : puts.length === 0 && dels.length === 0
        ? await queryPrepared<{ position: bigint | number; stream: string; version: number }[]>(
            db, 'switchyard_append_many', APPEND_MANY_SQL, JSON.stringify(input), offset,
          )
        // the delete of Secret data looks rows up by key: planned with its values (see Database.prepared)
        : await db.$queryRawUnsafe<{ position: bigint | number; stream: string; version: number }[]>(
            APPEND_WITH_SECRETS_SQL, JSON.stringify(input), offset, JSON.stringify(puts), JSON.stringify(dels),
          );
    return rows.map((r) => ({ position: Number(r.position), stream: r.stream, version: Number(r.version) }));
  } catch (err) {
    if (isUniqueViolation(err)) throw new VersionConflictError(events.map((e) => e.stream));
    throw err;
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string; meta?: { code?: string }; cause?: { code?: string } };
  const text = `${e?.code ?? ''} ${e?.meta?.code ?? ''} ${e?.cause?.code ?? ''} ${e?.message ?? ''}`;
  return /23505|P2002|unique constraint|duplicate key/i.test(text);
}

export interface ReadEventsQuery {
  after: number;
  limit: number;
  kind?: string;
  namespace?: string;
}

/** The oldest transaction still running: no event below `HORIZON * TX_SHIFT` can still appear. */
export const HORIZON = `pg_snapshot_xmin(pg_current_snapshot())::text::bigint`;

/** Events after a position that no future commit can precede, oldest first, plus the horizon. */
export async function readEvents(db: Runner, q: ReadEventsQuery): Promise<{ items: StoredEvent[]; horizon: number }> {
  const params: unknown[] = [q.after, q.limit];
  let filter = '';
  if (q.kind) {
    params.push(q.kind);
    filter += ` AND kind = $${params.length}`;
  }
  if (q.namespace !== undefined) {
    params.push(q.namespace);
    filter += ` AND namespace = $${params.length}`;
  }
  const rows = await db.$queryRawUnsafe<any[]>(
    `WITH h AS (SELECT ${HORIZON} AS xmin)
     SELECT e.position, e.type, e.kind, e.namespace, e.name, e.version, e.actor, e.time, e.object, h.xmin
     FROM h LEFT JOIN LATERAL (
       SELECT * FROM events WHERE position > $1 AND position < h.xmin * ${TX_SHIFT} ${filter}
       ORDER BY position LIMIT $2
     ) e ON true ORDER BY e.position`,
    ...params,
  );
  const horizon = Number(rows[0]?.xmin ?? 0) * TX_SHIFT - 1;
  const items = rows.filter((r) => r.position !== null).map(toStoredEvent);
  return { items, horizon };
}

/** The newest position a reader can see now. */
export async function lastVisiblePosition(db: Runner): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ p: bigint | null }[]>(
    `SELECT max(position) AS p FROM events WHERE position < ${HORIZON} * ${TX_SHIFT}`,
  );
  return Number(rows[0]?.p ?? 0);
}

export async function readStream(db: Runner, stream: string): Promise<StoredEvent[]> {
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT position, type, kind, namespace, name, version, actor, time, object FROM events WHERE stream = $1 ORDER BY version`,
    stream,
  );
  return rows.map(toStoredEvent);
}

export async function readStreamVersion(db: Runner, stream: string, version: number): Promise<StoredEvent | null> {
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT position, type, kind, namespace, name, version, actor, time, object FROM events WHERE stream = $1 AND version = $2`,
    stream, version,
  );
  return rows[0] ? toStoredEvent(rows[0]) : null;
}

function toStoredEvent(r: any): StoredEvent {
  return {
    position: Number(r.position),
    type: r.type,
    kind: r.kind,
    namespace: r.namespace,
    name: r.name,
    version: Number(r.version),
    actor: r.actor,
    time: r.time instanceof Date ? r.time.toISOString() : new Date(r.time).toISOString(),
    object: inReadingOrder(r.object),
  };
}
