// Idempotency-Key records of apply: one per actor and key, live for 24 hours.
import type { SqlRunner } from './database';

type Runner = Pick<SqlRunner, '$queryRawUnsafe' | '$executeRawUnsafe'>;

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
