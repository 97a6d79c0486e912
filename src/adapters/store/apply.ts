// The store's side of apply: reading many objects in one statement, the members of an apply set,
// the read-set check inside the write transaction, and the Idempotency-Key records.
import type { Database } from './database';
import type { K8sObject } from '../../core/model/objects';
import type { CurrentRow } from '../../core/apply/plan';
import { mergeStatusParts } from '../../core/objects/status-parts';
import { inReadingOrder } from '../../core/objects/order';

type Runner = Pick<Database['prisma'], '$queryRawUnsafe' | '$executeRawUnsafe'>;

export const APPLY_SET_LABEL = 'switchyard.dev/apply-set';
/** The expression the objects_apply_set_idx index is built on (migration 20261129200000). */
const APPLY_SET_EXPR = `(object->'metadata'->'labels'->>'${APPLY_SET_LABEL}')`;

function toRow(r: any): CurrentRow {
  return {
    stream: r.stream, kind: r.kind, namespace: r.namespace, name: r.name, version: Number(r.version),
    deleted: r.deleted, object: r.object as K8sObject, position: Number(r.position),
  };
}

/** The projection rows of these streams (tombstones included), without status. */
export async function readObjects(db: Runner, streams: string[]): Promise<Map<string, CurrentRow>> {
  const out = new Map<string, CurrentRow>();
  if (streams.length === 0) return out;
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT stream, kind, namespace, name, version, deleted, object, position FROM objects WHERE stream = ANY($1::text[])`,
    streams,
  );
  for (const r of rows) out.set(r.stream, toRow(r));
  return out;
}

/** Live objects labelled as members of an apply set. */
export async function readApplySet(db: Runner, name: string): Promise<CurrentRow[]> {
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT stream, kind, namespace, name, version, deleted, object, position FROM objects
     WHERE NOT deleted AND ${APPLY_SET_EXPR} = $1 ORDER BY stream`,
    name,
  );
  return rows.map(toRow);
}

const APPLY_LOCK = 7_340_002;

/**
 * Inside the write transaction, first: applies commit one at a time. Without it, two applies that
 * each read what the other writes would lock each other's rows in opposite orders and wait for
 * PostgreSQL's deadlock detector (a second) before one of them fails; with it the later one finds
 * the changed versions at once. The commit is short (the decisions are made before it).
 */
export async function lockApplies(tx: Runner): Promise<void> {
  await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(${APPLY_LOCK})::text`);
}

/**
 * Inside the write transaction: locks the rows an apply read but does not write (share locks, in
 * stream order) and returns those whose version is no longer the one read. Rows it writes need no
 * lock: the unique (stream, version) of the log refuses a second writer of the same version.
 */
export async function lockUnchanged(tx: Runner, expected: Map<string, number>): Promise<string[]> {
  if (expected.size === 0) return [];
  const streams = [...expected.keys()];
  const rows = await tx.$queryRawUnsafe<{ stream: string; version: number; deleted: boolean }[]>(
    `SELECT stream, version, deleted FROM objects WHERE stream = ANY($1::text[]) ORDER BY stream FOR SHARE`,
    streams,
  );
  const seen = new Map(rows.map((r) => [r.stream, r]));
  const stale: string[] = [];
  for (const [stream, version] of expected) {
    const r = seen.get(stream);
    if (!r || Number(r.version) !== version || r.deleted) stale.push(stream);
  }
  return stale;
}

/** Current statuses of these streams, merged from their parts. */
export async function readStatuses(db: Runner, streams: string[]): Promise<Map<string, { status?: Record<string, unknown>; generation?: number }>> {
  const out = new Map<string, { status?: Record<string, unknown>; generation?: number }>();
  if (streams.length === 0) return out;
  const rows = await db.$queryRawUnsafe<{ stream: string; generation: number | null; parts: unknown }[]>(
    `SELECT o.stream, (o.object->'metadata'->>'generation')::int AS generation,
            (SELECT jsonb_agg(jsonb_build_object('owner', sp.owner, 'status', sp.status)) FROM status_parts sp WHERE sp.stream = o.stream) AS parts
     FROM objects o WHERE o.stream = ANY($1::text[]) AND NOT o.deleted`,
    streams,
  );
  for (const r of rows) out.set(r.stream, { status: mergeStatusParts(r.parts as never), generation: r.generation ?? undefined });
  return out;
}

export function presentRow(row: CurrentRow): K8sObject {
  return inReadingOrder(row.object);
}

// --- Idempotency-Key records -------------------------------------------------------------------

export interface IdempotencyRecord {
  requestHash: string;
  status: number;
  response: unknown;
}

const LIVE = `created_at > now() - interval '24 hours'`;

export async function findIdempotency(db: Runner, actor: string, key: string): Promise<IdempotencyRecord | null> {
  const rows = await db.$queryRawUnsafe<{ request_hash: string; status: number; response: unknown }[]>(
    `SELECT request_hash, status, response FROM apply_idempotency WHERE actor = $1 AND key = $2 AND ${LIVE}`,
    actor, key,
  );
  const r = rows[0];
  return r ? { requestHash: r.request_hash, status: Number(r.status), response: r.response } : null;
}

/**
 * Records a key (replacing an expired record of it). False when a live record already holds it:
 * a concurrent request with the same key got there first.
 */
export async function recordIdempotency(db: Runner, actor: string, key: string, rec: IdempotencyRecord): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<{ ok: number }[]>(
    `INSERT INTO apply_idempotency (actor, key, request_hash, status, response, created_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, now())
     ON CONFLICT (actor, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
       response = excluded.response, created_at = excluded.created_at
     WHERE apply_idempotency.created_at <= now() - interval '24 hours'
     RETURNING 1 AS ok`,
    actor, key, rec.requestHash, rec.status, JSON.stringify(rec.response),
  );
  return rows.length > 0;
}

/** The answer of a recorded apply once its wait is over (the first answer, with conditions). */
export async function updateIdempotencyResponse(db: Runner, actor: string, key: string, requestHash: string, response: unknown): Promise<void> {
  await db.$executeRawUnsafe(
    `UPDATE apply_idempotency SET response = $4::jsonb WHERE actor = $1 AND key = $2 AND request_hash = $3`,
    actor, key, requestHash, JSON.stringify(response),
  );
}

/** Drops records past their 24 hours (called now and then by apply). */
export async function expireIdempotency(db: Runner): Promise<void> {
  await db.$executeRawUnsafe(`DELETE FROM apply_idempotency WHERE created_at <= now() - interval '24 hours'`);
}
