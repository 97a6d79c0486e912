// What apply reads before it decides: the objects a body names (tombstones included), the members of
// an apply set, and, once the reconciler caught up, their statuses.
import type { SqlRunner } from './database';
import type { K8sObject } from '../../core/model/objects';
import type { CurrentRow } from '../../core/apply/plan';
import { mergeStatusParts } from '../../core/objects/status-parts';

type Runner = Pick<SqlRunner, '$queryRawUnsafe' | '$executeRawUnsafe'>;

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
