// Reads of the object projection, with status parts merged in.
import type { SqlRunner } from './database';
import type { K8sObject } from '../../core/model/objects';
import type { CurrentState } from '../../core/objects/write';
import type { Requirement } from '../../core/objects/label-selector';
import { mergeStatusParts } from '../../core/objects/status-parts';
import { inReadingOrder } from '../../core/objects/order';

type Runner = Pick<SqlRunner, '$queryRawUnsafe'>;

export const STATUS = `(SELECT jsonb_agg(jsonb_build_object('owner', sp.owner, 'status', sp.status)) FROM status_parts sp WHERE sp.stream = o.stream)`;

/** The position of an object's last change, its last event's or its status's (see status_positions). */
export const LAST_CHANGE = `GREATEST(o.position, coalesce((SELECT sp.position FROM status_positions sp WHERE sp.stream = o.stream), 0))`;

export interface ObjectRow extends CurrentState {
  stream: string;
  /** the position of the object's last event */
  position: number;
  /** of its last change, its status's included: the Kubernetes paths' resourceVersion */
  lastChange: number;
}

export function withStatus(object: K8sObject, parts: unknown): K8sObject {
  const status = mergeStatusParts(parts as never);
  return inReadingOrder(status ? { ...object, status } : object);
}

function rowOf(r: any, status: boolean): ObjectRow {
  return {
    stream: r.stream, version: Number(r.version), deleted: r.deleted, position: Number(r.position), lastChange: Number(r.last_change ?? r.position),
    object: status ? withStatus(r.object, r.parts) : inReadingOrder(r.object),
  };
}

export async function getObject(db: Runner, stream: string, opts: { status?: boolean } = {}): Promise<ObjectRow | null> {
  const status = opts.status !== false;
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT o.stream, o.version, o.deleted, o.object, o.position, ${LAST_CHANGE} AS last_change${status ? `, ${STATUS} AS parts` : ''}
     FROM objects o WHERE o.stream = $1`,
    stream,
  );
  return rows[0] ? rowOf(rows[0], status) : null;
}

/** Several objects (with status) in one statement: the rows found, by stream. */
export async function getObjects(db: Runner, streams: string[]): Promise<Map<string, ObjectRow>> {
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT o.stream, o.version, o.deleted, o.object, o.position, ${LAST_CHANGE} AS last_change, ${STATUS} AS parts FROM objects o WHERE o.stream = ANY($1::text[])`,
    streams,
  );
  return new Map(rows.map((r) => [r.stream, rowOf(r, true)]));
}

export interface ListQuery {
  kind: string;
  namespace?: string;
  /** only these namespaces (a Namespace object counts as in itself) */
  namespaces?: string[];
  selector?: Requirement[];
  limit?: number;
  after?: { namespace: string; name: string };
}

/** `positions[i]`: the position of the last change of `items[i]`, its status's included (the Kubernetes paths' resourceVersion). */
export async function listObjects(db: Runner, q: ListQuery): Promise<{ items: K8sObject[]; more: boolean; positions: number[] }> {
  const params: unknown[] = [q.kind];
  const where: string[] = ['o.kind = $1', 'NOT o.deleted'];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (q.namespace !== undefined) where.push(`o.namespace = ${p(q.namespace)}`);
  if (q.namespaces) where.push(`${q.kind === 'Namespace' ? 'o.name' : 'o.namespace'} = ANY(${p(q.namespaces)}::text[])`);
  if (q.after) where.push(`(o.namespace, o.name) > (${p(q.after.namespace)}, ${p(q.after.name)})`);
  const labels = `(o.object->'metadata'->'labels')`;
  for (const r of q.selector ?? []) {
    switch (r.op) {
      case 'eq': where.push(`${labels}->>${p(r.key)} = ${p(r.value)}`); break;
      case 'neq': where.push(`${labels}->>${p(r.key)} IS DISTINCT FROM ${p(r.value)}`); break;
      case 'exists': where.push(`coalesce(jsonb_exists(${labels}, ${p(r.key)}), false)`); break;
      case 'notexists': where.push(`NOT coalesce(jsonb_exists(${labels}, ${p(r.key)}), false)`); break;
      case 'in': where.push(`${labels}->>${p(r.key)} = ANY(${p(r.values)}::text[])`); break;
      case 'notin': where.push(`NOT coalesce(${labels}->>${p(r.key)} = ANY(${p(r.values)}::text[]), false)`); break;
    }
  }
  const limit = q.limit ? ` LIMIT ${p(q.limit + 1)}` : '';
  const rows = await db.$queryRawUnsafe<any[]>(
    `SELECT o.object, ${LAST_CHANGE} AS position, ${STATUS} AS parts FROM objects o WHERE ${where.join(' AND ')} ORDER BY o.namespace, o.name${limit}`,
    ...params,
  );
  const more = q.limit !== undefined && rows.length > q.limit;
  const kept = more ? rows.slice(0, q.limit) : rows;
  return { items: kept.map((r) => withStatus(r.object, r.parts)), more, positions: kept.map((r) => Number(r.position)) };
}

export async function getSecretData(db: Runner, stream: string): Promise<Record<string, string> | null> {
  const rows = await db.$queryRawUnsafe<{ data: Record<string, string> }[]>(
    `SELECT data FROM secret_data WHERE stream = $1`, stream,
  );
  return rows[0]?.data ?? null;
}

/** The data and digest of several Secrets, by stream (absent when none is stored). */
export async function getSecretsData(db: Runner, streams: string[]): Promise<Map<string, { data: Record<string, string>; digest: string }>> {
  const rows = await db.$queryRawUnsafe<{ stream: string; data: Record<string, string>; digest: string }[]>(
    `SELECT stream, data, digest FROM secret_data WHERE stream = ANY($1::text[])`, streams);
  return new Map(rows.map((r) => [r.stream, { data: r.data ?? {}, digest: String(r.digest ?? '') }]));
}
