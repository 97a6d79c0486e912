// Inside apply's write transaction: one apply commits at a time, and what it read but does not
// write is share-locked and checked against the versions it read.
import type { SqlRunner } from './database';

type Runner = Pick<SqlRunner, '$queryRawUnsafe' | '$executeRawUnsafe'>;

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
