// The statements of a recompute: what a Gateway's last recompute wrote, the one statement that
// writes a new one (gate, changed status parts, dependencies, snapshot), the check for changes it
// may have missed, and a GatewayClass's status.
import type { Database } from './database';
import { HORIZON, TX_SHIFT } from './eventlog';
import type { K8sObject } from '../../core/model/objects';
import { inReadingOrder } from '../../core/objects/order';
import { scoped } from './scope';
import type { EventDraft } from '../../core/status/events';
import { recordEventsCtes } from './kube-events';

/**
 * What one Gateway's last recompute wrote: `gate` is the source position it wrote at. It is the
 * base for lastTransitionTime and for sending only what changed.
 */
export interface Written {
  gate: number | null;
  gatewayStatus?: Record<string, unknown>;
  /** route status.parents and BackendTLSPolicy status.ancestors parts, by stream */
  parts: Map<string, { parents?: unknown[]; ancestors?: unknown[] }>;
  /** the dependency keys, sorted, as JSON */
  deps: string;
  /** the snapshot's hash and unattached list as stored; undefined when not known */
  hash?: string | null;
  unattached?: string;
}

/** What one recompute writes: only what differs from `baseGate`'s write. */
export interface RecomputePlan {
  /** the gate row: one per Gateway and controller, moved only forwards */
  gateKey: string;
  /** the Gateway's stream: its snapshot key and the stream of its status */
  owner: string;
  /** the controller name */
  scope: string;
  sourcePosition: number;
  /** the gate this plan was made against; nothing is written if the store shows another */
  baseGate: number | null;
  now: string;
  durationMs: number;
  statusChanges: { stream: string; owner: string; status: unknown }[];
  /** route status parts of this Gateway to remove: all but `keep`, or exactly `streams` */
  removeParts: { keep: string[] } | { streams: string[] } | null;
  removeGatewayStatus: boolean;
  /** the Gateway's dependencies when they changed: all of them (a first write), or what changed */
  deps: { all: string[] } | { add: string[]; remove: string[] } | null;
  /** look for changes to these after sourcePosition, and want the Gateway again if any */
  missedDeps: string[];
  snapshot:
    | { kind: 'put'; hash: string; content?: SnapshotContent & { unattached: string }; unattached?: string }
    | { kind: 'delete' }
    | { kind: 'none' };
  /** the Kubernetes Events of this write's status transitions, recorded with it (see store/kube-events) */
  events?: { drafts: EventDraft[]; instance: string; retentionSeconds: number } | null;
}

/**
 * A new table as stored: whole (its tail deflated, see core/snapshot/format), or as its delta from
 * the version the store holds (openapi/schemas/snapshot-delta.yaml), which must then be
 * `delta.from` and lead to `from + 1`; readers rebuild the body from the last whole table and the
 * deltas after it. `wholeBytes` and `deltaText` are for the writer's own bookkeeping.
 */
export type SnapshotContent =
  | { delta: { from: number; text: string } }
  | { tailZ: Buffer; wholeBytes: number; deltaText?: string };

export interface WriteAnswer {
  /** the gate before the statement */
  old: number | null;
  /** the gate moved: everything was written */
  ok: boolean;
  version: number | null;
  snapshotWritten: boolean;
  missed: boolean;
  /** a delta was to be stored, but the store holds another version than it was made from: nothing was written */
  chainBroken: boolean;
}

/** Events after a position that touch any of a Gateway's dependencies ($1 position, $2 deps): keys stamped at write time. */
// Each event's few keys are looked up in the dependencies, which PostgreSQL hashes once (= ANY of a
// parameter, planned with its value: see Database.prepared): `touches && deps` compared every key with
// every dependency, some 3 s of PostgreSQL's CPU for 2,000 events against 50,000 dependencies.
const depEvents = (position: string, deps: string) =>
  `FROM events e WHERE e.position > ${position} AND EXISTS (SELECT 1 FROM unnest(e.touches) AS t(dep) WHERE t.dep = ANY(${deps}::text[]))`;

/**
 * The dispatcher learns what a Gateway depends on from that Gateway's last recompute. A change to a
 * new dependency that lands while the recompute runs may be dispatched before the dependency is
 * recorded, and so reach nobody. After writing, a recompute therefore looks for changes to its
 * dependencies after the position it read from; if there are any it must run again. With `wantKey`
 * that is also recorded as wanted, so that nobody takes the Gateway for caught up in between.
 */
export async function missedChanges(db: Database, sourcePosition: number, deps: readonly string[], wantKey?: string): Promise<boolean> {
  if (deps.length === 0) return false;
  const rows = wantKey === undefined
    ? await db.sql.$queryRawUnsafe<unknown[]>(`SELECT 1 ${depEvents('$1', '$2')} LIMIT 1`, sourcePosition, deps)
    : await db.sql.$queryRawUnsafe<unknown[]>(
      `INSERT INTO reconcile_wants (key, position) SELECT $3, max(e.position) ${depEvents('$1', '$2')} HAVING max(e.position) IS NOT NULL
       ON CONFLICT (key) DO UPDATE SET position = GREATEST(reconcile_wants.position, excluded.position) RETURNING 1`,
      sourcePosition, deps, wantKey);
  return rows.length > 0;
}

/** What this controller last wrote for a Gateway, in one statement. */
export async function readWritten(db: Database, gateKey: string, owner: string, scope: string): Promise<Written> {
  const [row] = await db.planned<{ gate: number | null; gw: Record<string, unknown> | null; parts: [string, { parents?: unknown[]; ancestors?: unknown[] }][] | null; deps: string[] | null; hash: string | null; unattached: string | null }[]>(
    'switchyard_written_for',
    `SELECT (SELECT source_position FROM recomputes WHERE gateway = $1) AS gate,
       (SELECT status FROM status_parts WHERE stream = $2 AND owner = $3) AS gw,
       (SELECT json_agg(json_build_array(stream, status)) FROM status_parts WHERE owner = $1) AS parts,
       (SELECT array_agg(dep ORDER BY dep) FROM gateway_deps WHERE gateway = $1) AS deps,
       (SELECT hash FROM snapshots WHERE gateway = $2) AS hash,
       (SELECT unattached FROM snapshots WHERE gateway = $2) AS unattached`,
    gateKey, owner, scope);
  return {
    gate: row.gate === null ? null : Number(row.gate),
    gatewayStatus: row.gw ?? undefined,
    parts: new Map(row.parts ?? []),
    deps: JSON.stringify(row.deps ?? []),
    hash: row.hash,
    unattached: row.unattached ?? undefined,
  };
}

/**
 * Gives every stream `sources` yields (a SELECT of a `stream` column) a new status position: this
 * transaction's id * 2^20 + the stream's index among them, in the log's position space, so that a
 * reader's horizon covers it as it covers events (see eventlog.ts). A transaction that writes
 * statuses appends no events, so its indexes are its own.
 */
export const insertStatusPositions = (sources: string) => `INSERT INTO status_positions (stream, position, time)
      SELECT t.stream, pg_current_xact_id()::text::bigint * ${TX_SHIFT} + row_number() OVER (ORDER BY t.stream), now()
      FROM (SELECT DISTINCT stream FROM (${sources}) s) t
      ON CONFLICT (stream) DO UPDATE SET position = excluded.position, time = excluded.time`;

/**
 * One statement, so one round trip and one commit. The gate row is locked first; everything else
 * is written only if it moved, and only if it still showed `plan.baseGate`: otherwise the plan was
 * made against something the store no longer holds.
 */
export async function writeRecompute(db: Database, plan: RecomputePlan): Promise<WriteAnswer> {
  const params: unknown[] = [plan.gateKey, plan.sourcePosition, plan.now, plan.baseGate, plan.durationMs];
  const p = (v: unknown) => { params.push(v); return `$${params.length}`; };
  const snap = plan.snapshot;
  const delta = snap.kind === 'put' && snap.content && 'delta' in snap.content ? snap.content.delta : undefined;
  const ctes: string[] = [`old AS (SELECT source_position FROM recomputes WHERE gateway = $1 FOR UPDATE)`];
  let chained = '';
  if (delta) {
    // a delta is stored only on the version it was made from, and leads to the next one
    const o = p(plan.owner);
    const from = p(delta.from);
    ctes.push(`chain AS (SELECT 1 WHERE (SELECT version FROM snapshots WHERE gateway = ${o}) = ${from}::bigint
      AND (SELECT version FROM snapshot_versions WHERE gateway = ${o}) = ${from}::bigint)`);
    chained = ' AND EXISTS (SELECT 1 FROM chain)';
  }
  ctes.push(
    `up AS (
      INSERT INTO recomputes (gateway, source_position, at, duration_ms)
      SELECT $1, $2::bigint, $3::timestamptz, $5::float8 WHERE (SELECT source_position FROM old) IS NOT DISTINCT FROM $4::bigint${chained}
      ON CONFLICT (gateway) DO UPDATE SET source_position = excluded.source_position, at = excluded.at, duration_ms = excluded.duration_ms
        WHERE recomputes.source_position < excluded.source_position
      RETURNING 1)`);
  const go = 'EXISTS (SELECT 1 FROM up)';
  // the streams whose merged status this statement changes: each gets a new status position
  const statusTouched: string[] = [];
  if (plan.statusChanges.length) {
    ctes.push(`parts AS (
      INSERT INTO status_parts (stream, owner, position, status)
      SELECT stream, owner, $2::bigint, status FROM jsonb_to_recordset(${p(JSON.stringify(plan.statusChanges))}::jsonb) AS x(stream text, owner text, status jsonb) WHERE ${go}
      ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status RETURNING stream)`);
    statusTouched.push('SELECT stream FROM parts');
  }
  if (plan.removeParts && 'keep' in plan.removeParts) {
    ctes.push(`gone AS (DELETE FROM status_parts WHERE owner = $1 AND NOT (stream = ANY(${p(plan.removeParts.keep)}::text[])) AND ${go} RETURNING stream)`);
    statusTouched.push('SELECT stream FROM gone');
  } else if (plan.removeParts && plan.removeParts.streams.length) {
    ctes.push(`gone AS (DELETE FROM status_parts WHERE owner = $1 AND stream = ANY(${p(plan.removeParts.streams)}::text[]) AND ${go} RETURNING stream)`);
    statusTouched.push('SELECT stream FROM gone');
  }
  if (plan.removeGatewayStatus) {
    ctes.push(`gone_self AS (DELETE FROM status_parts WHERE stream = ${p(plan.owner)} AND owner = ${p(plan.scope)} AND ${go} RETURNING stream)`);
    statusTouched.push('SELECT stream FROM gone_self');
  }
  if (statusTouched.length) ctes.push(`spos AS (${insertStatusPositions(statusTouched.join(' UNION ALL '))} RETURNING 1)`);
  if (plan.deps && 'all' in plan.deps) {
    const deps = p(plan.deps.all);
    ctes.push(`gone_deps AS (DELETE FROM gateway_deps WHERE gateway = $1 AND NOT (dep = ANY(${deps}::text[])) AND ${go} RETURNING 1)`,
      `deps AS (INSERT INTO gateway_deps (dep, gateway) SELECT unnest(${deps}::text[]), $1 WHERE ${go} ON CONFLICT DO NOTHING RETURNING 1)`);
  } else if (plan.deps) {
    // only what changed: the whole set of a Gateway of 50,000 routes cost PostgreSQL some 200 ms a write
    if (plan.deps.remove.length) ctes.push(`gone_deps AS (DELETE FROM gateway_deps WHERE gateway = $1 AND dep = ANY(${p(plan.deps.remove)}::text[]) AND ${go} RETURNING 1)`);
    if (plan.deps.add.length) ctes.push(`deps AS (INSERT INTO gateway_deps (dep, gateway) SELECT unnest(${p(plan.deps.add)}::text[]), $1 WHERE ${go} ON CONFLICT DO NOTHING RETURNING 1)`);
  }
  if (plan.missedDeps.length) {
    // changes to a dependency after the position read, which the dispatcher may have sent nowhere
    // (see missedChanges): wanted again in the same statement, so that no one sees this Gateway
    // caught up before the recompute that follows
    ctes.push(`missed AS (
      INSERT INTO reconcile_wants (key, position)
      SELECT $1, max(e.position) ${depEvents('$2::bigint', p(plan.missedDeps))} AND ${go}
      HAVING max(e.position) IS NOT NULL
      ON CONFLICT (key) DO UPDATE SET position = GREATEST(reconcile_wants.position, excluded.position) RETURNING 1)`);
  }
  if (plan.events?.drafts.length) {
    // in the same statement: the Events of a write that lands, and of no other
    ctes.push(...recordEventsCtes(p, plan.events.drafts, { controller: plan.scope, instance: plan.events.instance, retentionSeconds: plan.events.retentionSeconds }, '$3', go));
  }
  let version = 'NULL::bigint';
  let snapshotWritten = 'false';
  if (snap.kind === 'put') {
    // snapshot_versions outlives rebuilds: the same content keeps its version, new content gets the next one
    const o = p(plan.owner);
    const h = p(snap.hash);
    ctes.push(`sv AS (
      INSERT INTO snapshot_versions (gateway, version, hash) SELECT ${o}, 1, ${h} WHERE ${go}
      ON CONFLICT (gateway) DO UPDATE SET version = snapshot_versions.version + 1, hash = excluded.hash
        WHERE snapshot_versions.hash IS DISTINCT FROM excluded.hash
      RETURNING version)`,
    `ver AS (SELECT coalesce((SELECT version FROM sv), (SELECT version FROM snapshot_versions WHERE gateway = ${o})) AS version)`);
    version = '(SELECT version FROM ver)';
    if (snap.content && delta) {
      // the whole table stays where it is; the row moves to the new version and the delta is added
      ctes.push(`snap AS (
        UPDATE snapshots SET version = ver.version, hash = ${h}, base_version = coalesce(snapshots.base_version, snapshots.version),
          source_position = $2::bigint, updated_at = $3::timestamptz, unattached = ${p(snap.content.unattached)}::text, controller = ${p(plan.scope)}::text
        FROM ver WHERE snapshots.gateway = ${o} AND ver.version = ${p(delta.from + 1)}::bigint AND ${go}
        RETURNING 1)`,
      `delta AS (INSERT INTO snapshot_deltas (gateway, version, delta) SELECT ${o}, ver.version, ${p(delta.text)}::text FROM ver
        WHERE ver.version = ${p(delta.from + 1)}::bigint AND ${go} RETURNING 1)`);
      snapshotWritten = '(SELECT count(*) FROM snap) > 0';
    } else if (snap.content && 'tailZ' in snap.content) {
      // the store keeps what follows the version, deflated (see core/snapshot/format); the deltas
      // that led to the table before are no longer needed
      ctes.push(`snap AS (
        INSERT INTO snapshots (gateway, version, hash, body, tail_z, base_version, source_position, updated_at, unattached, controller)
        SELECT ${o}, ver.version, ${h}, NULL, ${p(snap.content.tailZ)}::bytea, NULL,
          $2::bigint, $3::timestamptz, ${p(snap.content.unattached)}::text, ${p(plan.scope)}::text FROM ver WHERE ${go}
        ON CONFLICT (gateway) DO UPDATE SET version = excluded.version, hash = excluded.hash, body = NULL, tail_z = excluded.tail_z,
          base_version = NULL, source_position = excluded.source_position, updated_at = excluded.updated_at, unattached = excluded.unattached,
          controller = excluded.controller
          WHERE snapshots.hash IS DISTINCT FROM excluded.hash OR snapshots.unattached IS DISTINCT FROM excluded.unattached
        RETURNING 1)`,
      `undelta AS (DELETE FROM snapshot_deltas WHERE gateway = ${o} AND EXISTS (SELECT 1 FROM snap) RETURNING 1)`);
      // the plain subselect reads the row as it was before this statement
      snapshotWritten = `(SELECT count(*) FROM snap) > 0 AND (SELECT hash FROM snapshots WHERE gateway = ${o}) IS DISTINCT FROM ${h}`;
    } else if (snap.unattached !== undefined) {
      ctes.push(`unatt AS (UPDATE snapshots SET unattached = ${p(snap.unattached)} WHERE gateway = ${o} AND ${go} RETURNING 1)`);
    }
  } else if (snap.kind === 'delete') {
    const o = p(plan.owner);
    ctes.push(`del AS (DELETE FROM snapshots WHERE gateway = ${o} AND controller = ${p(plan.scope)} AND ${go} RETURNING 1)`,
      `undelta AS (DELETE FROM snapshot_deltas WHERE gateway = ${o} AND EXISTS (SELECT 1 FROM del) RETURNING 1)`);
    snapshotWritten = '(SELECT count(*) FROM del) > 0';
  }
  // every data-modifying CTE runs whether or not the final SELECT reads it
  const text = `WITH ${ctes.join(',\n')}
     SELECT (SELECT source_position FROM old) AS old, ${go} AS ok, ${version} AS version, ${snapshotWritten} AS snapshot_written,
       ${plan.missedDeps.length ? 'EXISTS (SELECT 1 FROM missed)' : 'false'} AS missed,
       ${delta ? 'NOT EXISTS (SELECT 1 FROM chain)' : 'false'} AS chain_broken`;
  // planned with its values: its check for missed changes hashes an `= ANY` of the dependencies
  const [row] = await db.planned<{ old: number | null; ok: boolean; version: number | null; snapshot_written: boolean; missed: boolean; chain_broken: boolean }[]>(
    'switchyard_write', text, ...params);
  return {
    old: row.old === null ? null : Number(row.old), ok: Boolean(row.ok),
    version: row.version === null ? null : Number(row.version), snapshotWritten: Boolean(row.snapshot_written), missed: Boolean(row.missed),
    chainBroken: Boolean(row.chain_broken),
  };
}

/**
 * The whole table of version `version` stored in place of the table and deltas that lead to it,
 * while the store's chain of deltas runs through that version: from an older whole table up to it
 * or past it (the deltas after it then stay, and chain from it). Else nothing is written: a newer
 * whole table has been stored. Readers see the chain or the whole table, as one statement writes
 * both. Answers whether it was written.
 */
export async function compactSnapshot(db: Database, owner: string, scope: string, version: number, tailZ: Buffer): Promise<boolean> {
  const [row] = await db.sql.$queryRawUnsafe<{ n: number }[]>(`WITH snap AS (
      UPDATE snapshots SET tail_z = $4::bytea, body = NULL, base_version = CASE WHEN version = $3::bigint THEN NULL ELSE $3::bigint END
      WHERE gateway = $1 AND controller = $2 AND version >= $3::bigint AND base_version < $3::bigint RETURNING 1),
    undelta AS (DELETE FROM snapshot_deltas WHERE gateway = $1 AND version <= $3::bigint AND EXISTS (SELECT 1 FROM snap) RETURNING 1)
    SELECT (SELECT count(*) FROM snap)::int AS n`, owner, scope, version, tailZ);
  return Number(row?.n ?? 0) > 0;
}

/**
 * A GatewayClass's status, in one transaction: the class read under lock, `statusOf` computing the
 * new status from it and its current one (undefined: this controller writes none). Answers the log
 * position read: every event below it is reflected.
 */
export async function writeGatewayClassStatus(
  db: Database, stream: string, scope: string, now: string,
  statusOf: (gc: K8sObject, current: unknown) => unknown,
): Promise<number> {
  return db.transaction(async (tx) => {
    const [{ xmin }] = await tx.$queryRawUnsafe<{ xmin: bigint }[]>(`SELECT ${HORIZON} AS xmin`);
    const read = Number(xmin) * TX_SHIFT - 1;
    const rowsFound = await tx.$queryRawUnsafe<{ object: K8sObject; status: unknown }[]>(
      `SELECT o.object, (SELECT sp.status FROM status_parts sp WHERE sp.stream = o.stream AND sp.owner = $2) AS status
       FROM objects o WHERE o.stream = $1 AND NOT o.deleted FOR UPDATE`, stream, scope);
    await tx.$executeRawUnsafe(
      `INSERT INTO recomputes (gateway, source_position, at) VALUES ($1, $2, $3::timestamptz)
       ON CONFLICT (gateway) DO UPDATE SET source_position = GREATEST(recomputes.source_position, excluded.source_position), at = excluded.at`,
      scoped(scope, stream), read, now);
    const status = rowsFound[0] ? statusOf(inReadingOrder(rowsFound[0].object), rowsFound[0].status ?? undefined) : undefined;
    const changed = !status
      ? await tx.$executeRawUnsafe(`DELETE FROM status_parts WHERE stream = $1 AND owner = $2`, stream, scope)
      : await tx.$executeRawUnsafe(
        `INSERT INTO status_parts (stream, owner, position, status) VALUES ($1, $4, $2, $3::jsonb)
         ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status
           WHERE status_parts.position <= excluded.position AND status_parts.status IS DISTINCT FROM excluded.status`,
        stream, read, JSON.stringify(status), scope);
    if (changed > 0) await tx.$executeRawUnsafe(insertStatusPositions('SELECT $1::text AS stream'), stream);
    return read;
  });
}
