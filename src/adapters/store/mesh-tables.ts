// The mesh's statements: the mesh table of a client namespace (stored whole, its version moved only
// when its hash changes and only by a newer log position), the namespaces that get one, and the
// Service parent entries of route statuses (status parts of one owner, the mesh's).
import type { Database } from './database';
import { insertStatusPositions } from './recompute-write';

export interface StoredMeshTable {
  version: number;
  hash: string;
  body: string;
  sourcePosition: number;
}

/** The stored table of a namespace; with `newerThan`, only when its version is newer (else undefined). */
export async function readMeshTable(db: Database, namespace: string, controller: string, newerThan = -1): Promise<StoredMeshTable | undefined> {
  const [row] = await db.sql.$queryRawUnsafe<{ version: bigint; hash: string; body: string; source_position: bigint }[]>(
    'SELECT version, hash, body, source_position FROM mesh_tables WHERE namespace = $1 AND controller = $2 AND version > $3', namespace, controller, newerThan);
  return row ? { version: Number(row.version), hash: row.hash, body: row.body, sourcePosition: Number(row.source_position) } : undefined;
}

/**
 * Writes a namespace's table read at `sourcePosition`: a new hash gets the next version; the same
 * hash keeps its version; a write from an older position than the stored one changes nothing.
 * Answers the version the store holds afterwards and whether this write made it. In the same
 * statement the job's gate (`gateKey` in recomputes) records the position read, for the sweep and
 * apply's wait.
 */
export async function writeMeshTable(
  db: Database, t: { namespace: string; controller: string; hash: string; body: string; sourcePosition: number; now: string; gateKey: string; durationMs: number },
): Promise<{ version: number; changed: boolean }> {
  const [row] = await db.sql.$queryRawUnsafe<{ version: bigint; changed: boolean }[]>(
    `WITH old AS (SELECT hash FROM mesh_tables WHERE namespace = $1 AND controller = $2),
     up AS (
       INSERT INTO mesh_tables (namespace, controller, version, hash, body, source_position, updated_at)
       VALUES ($1, $2, 1, $3, $4, $5::bigint, $6::timestamptz)
       ON CONFLICT (namespace, controller) DO UPDATE SET
         version = CASE WHEN mesh_tables.hash = excluded.hash THEN mesh_tables.version ELSE mesh_tables.version + 1 END,
         hash = excluded.hash, body = excluded.body, source_position = excluded.source_position, updated_at = excluded.updated_at
         WHERE mesh_tables.source_position < excluded.source_position
       RETURNING version),
     gate AS (
       INSERT INTO recomputes (gateway, source_position, at, duration_ms) VALUES ($7, $5::bigint, $6::timestamptz, $8)
       ON CONFLICT (gateway) DO UPDATE SET source_position = excluded.source_position, at = excluded.at, duration_ms = excluded.duration_ms
         WHERE recomputes.source_position < excluded.source_position
       RETURNING 1)
     SELECT coalesce((SELECT version FROM up), (SELECT version FROM mesh_tables WHERE namespace = $1 AND controller = $2)) AS version,
       EXISTS (SELECT 1 FROM up) AND coalesce((SELECT hash FROM old) <> $3, true) AS changed`,
    t.namespace, t.controller, t.hash, t.body, t.sourcePosition, t.now, t.gateKey, t.durationMs);
  return { version: Number(row.version), changed: row.changed };
}

/** Every namespace whose clients may use the mesh: those with a Namespace object or any object, and those with a table. */
export async function meshNamespaces(db: Database, controller: string): Promise<string[]> {
  const rows = await db.sql.$queryRawUnsafe<{ ns: string }[]>(
    `SELECT DISTINCT namespace AS ns FROM objects WHERE NOT deleted AND namespace <> ''
     UNION SELECT name FROM objects WHERE kind = 'Namespace' AND NOT deleted
     UNION SELECT namespace FROM mesh_tables WHERE controller = $1`, controller);
  return rows.map((r) => r.ns).sort();
}

/** The mesh's status parts of this owner, by stream. */
export async function readMeshParts(db: Database, owner: string): Promise<Map<string, { parents?: unknown[] }>> {
  const rows = await db.sql.$queryRawUnsafe<{ stream: string; status: { parents?: unknown[] } }[]>(
    'SELECT stream, status FROM status_parts WHERE owner = $1', owner);
  return new Map(rows.map((r) => [r.stream, r.status]));
}

/**
 * Writes the Service parent entries of route statuses: `put` replaces a route's part, `remove`
 * drops the parts of routes that name no Service any more; only when the owner's gate (a row in
 * recomputes) is older than `sourcePosition`. Each route whose merged status changes gets a new
 * status position, as the Gateway recomputes' writes give theirs.
 */
export async function writeMeshParts(
  db: Database, owner: string, sourcePosition: number, now: string, put: { stream: string; status: unknown }[], remove: string[],
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const gate = await tx.$queryRawUnsafe<unknown[]>(
      `INSERT INTO recomputes (gateway, source_position, at, duration_ms) VALUES ($1, $2::bigint, $3::timestamptz, 0)
       ON CONFLICT (gateway) DO UPDATE SET source_position = excluded.source_position, at = excluded.at
         WHERE recomputes.source_position < excluded.source_position RETURNING 1`, owner, sourcePosition, now);
    if (gate.length === 0) return false;
    if (put.length) {
      await tx.$executeRawUnsafe(
        `WITH parts AS (
           INSERT INTO status_parts (stream, owner, position, status)
           SELECT stream, $2, $3::bigint, status FROM jsonb_to_recordset($1::jsonb) AS x(stream text, status jsonb)
           ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status RETURNING stream)
         ${insertStatusPositions('SELECT stream FROM parts')}`, JSON.stringify(put), owner, sourcePosition);
    }
    if (remove.length) {
      await tx.$executeRawUnsafe(
        `WITH gone AS (DELETE FROM status_parts WHERE owner = $1 AND stream = ANY($2::text[]) RETURNING stream)
         ${insertStatusPositions('SELECT stream FROM gone')}`, owner, remove);
    }
    return true;
  });
}

/** Records that a mesh job has read the log up to `sourcePosition` (what the sweep and apply's wait compare). */
export async function markRecomputed(db: Database, key: string, sourcePosition: number, now: string, durationMs: number): Promise<void> {
  await db.sql.$executeRawUnsafe(
    `INSERT INTO recomputes (gateway, source_position, at, duration_ms) VALUES ($1, $2::bigint, $3::timestamptz, $4)
     ON CONFLICT (gateway) DO UPDATE SET source_position = excluded.source_position, at = excluded.at, duration_ms = excluded.duration_ms
       WHERE recomputes.source_position < excluded.source_position`, key, sourcePosition, now, durationMs);
}
