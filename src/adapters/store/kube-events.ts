// The kube_events table: the Kubernetes Events recorded for what an operator acts on (see
// core/status/events.ts), apart from the event log. A repeat of an Event (same object, type,
// reason, message and controller: agg_key) counts into its row, as the Kubernetes recorder's
// correlator does; a repeat after the retention starts the count again. Each write gives the row a
// resourceVersion made as the event log's positions are (transaction id * 2^20 + index), so that a
// watch reading below the horizon never skips a row whose transaction commits late.
import type { SqlRunner } from './database';
import { HORIZON, TX_SHIFT } from './eventlog';
import type { EventDraft } from '../../core/status/events';
import type { EventFieldRequirement, StoredKubeEvent } from '../../core/kube/events';

type Runner = Pick<SqlRunner, '$queryRawUnsafe' | '$executeRawUnsafe'>;

export interface EventRecording {
  /** reportingController: the controller's name */
  controller: string;
  /** reportingInstance: this process */
  instance: string;
  /** a repeat of an Event last seen longer ago than this starts a new count */
  retentionSeconds: number;
}

/**
 * The common table expressions that record `drafts` at time `time` (an SQL expression), when
 * `guard` (an SQL condition) holds: to go into the statement of the write the Events belong to.
 * `p` adds a parameter and answers its placeholder. An Event whose object is gone is not recorded.
 */
export function recordEventsCtes(p: (v: unknown) => string, drafts: readonly EventDraft[], rec: EventRecording, time: string, guard = 'true', prefix = 'kev'): string[] {
  const input = drafts.map((d, idx) => ({
    idx, kind: d.regarding.kind, namespace: d.regarding.namespace, name: d.regarding.name, regarding: d.regarding,
    type: d.type, reason: d.reason, action: d.action, note: d.note,
  }));
  const controller = p(rec.controller);
  return [
    `${prefix}_in AS (
      SELECT DISTINCT ON (key) * FROM (
        SELECT d.*, o.object->'metadata'->>'uid' AS uid,
          md5(concat_ws(E'\\x1f', d.regarding::text, o.object->'metadata'->>'uid', d.type, d.reason, d.note, ${controller}::text)) AS key
        FROM jsonb_to_recordset(${p(JSON.stringify(input))}::jsonb) AS d(idx int, kind text, namespace text, name text, regarding jsonb, type text, reason text, action text, note text)
        JOIN objects o ON o.stream = d.kind || '/' || d.namespace || '/' || d.name AND NOT o.deleted
      ) x WHERE uid IS NOT NULL ORDER BY key, idx)`,
    `${prefix} AS (
      INSERT INTO kube_events AS k (agg_key, namespace, name, uid, resource_version, regarding, type, reason, action, note, reporting_controller, reporting_instance, count, first_time, last_time)
      SELECT i.key, i.namespace, i.name || '.' || to_hex((extract(epoch FROM ${time}::timestamptz) * 1000000000)::bigint + i.idx), gen_random_uuid()::text,
        pg_current_xact_id()::text::bigint * ${TX_SHIFT} + i.idx, i.regarding || jsonb_build_object('uid', i.uid), i.type, i.reason, i.action, i.note,
        ${controller}::text, ${p(rec.instance)}::text, 1, ${time}::timestamptz, ${time}::timestamptz
      FROM ${prefix}_in i WHERE ${guard}
      ON CONFLICT (agg_key) DO UPDATE SET
        count = CASE WHEN k.last_time < excluded.last_time - make_interval(secs => ${p(rec.retentionSeconds)}::float8) THEN 1 ELSE k.count + 1 END,
        first_time = CASE WHEN k.last_time < excluded.last_time - make_interval(secs => ${p(rec.retentionSeconds)}::float8) THEN excluded.first_time ELSE k.first_time END,
        last_time = GREATEST(k.last_time, excluded.last_time), resource_version = excluded.resource_version, reporting_instance = excluded.reporting_instance
      RETURNING 1)`,
  ];
}

/** Records `drafts` now, in a statement of their own. Answers how many rows it wrote. */
export async function recordEvents(db: Runner, drafts: readonly EventDraft[], rec: EventRecording): Promise<number> {
  if (drafts.length === 0) return 0;
  const params: unknown[] = [];
  const p = (v: unknown) => { params.push(v); return `$${params.length}`; };
  const ctes = recordEventsCtes(p, drafts, rec, 'now()');
  const [row] = await db.$queryRawUnsafe<{ n: number }[]>(`WITH ${ctes.join(',\n')} SELECT (SELECT count(*) FROM kev)::int AS n`, ...params);
  return Number(row?.n ?? 0);
}

interface Row {
  namespace: string; name: string; uid: string; resource_version: string | number | bigint; regarding: StoredKubeEvent['regarding'];
  type: string; reason: string; action: string; note: string; reporting_controller: string; reporting_instance: string;
  count: number; first_time: Date | string; last_time: Date | string;
}

const COLUMNS = 'namespace, name, uid, resource_version, regarding, type, reason, action, note, reporting_controller, reporting_instance, count, first_time, last_time';

const toEvent = (r: Row): StoredKubeEvent => ({
  namespace: r.namespace, name: r.name, uid: r.uid, resourceVersion: Number(r.resource_version), regarding: r.regarding,
  type: r.type, reason: r.reason, action: r.action, note: r.note, reportingController: r.reporting_controller, reportingInstance: r.reporting_instance,
  count: Number(r.count), firstTime: new Date(r.first_time).toISOString(), lastTime: new Date(r.last_time).toISOString(),
});

export interface EventScope {
  /** one namespace */
  namespace?: string;
  /** else only these (undefined: every namespace) */
  namespaces?: readonly string[];
  /** a field selector, its fields by their core v1 names (core/kube/events.ts parseEventFieldSelector) */
  fields?: readonly EventFieldRequirement[];
}

/** Each selectable field's column: a selector is a condition of the query, not a filter of its pages. */
const FIELD_SQL: Record<string, string> = {
  'metadata.name': 'name', 'metadata.namespace': 'namespace', reason: 'reason', type: 'type',
  reportingComponent: 'reporting_controller', source: 'reporting_controller',
  'involvedObject.kind': `(regarding->>'kind')`, 'involvedObject.namespace': `(regarding->>'namespace')`, 'involvedObject.name': `(regarding->>'name')`,
  'involvedObject.uid': `(regarding->>'uid')`, 'involvedObject.apiVersion': `(regarding->>'apiVersion')`,
  'involvedObject.resourceVersion': `coalesce(regarding->>'resourceVersion', '')`, 'involvedObject.fieldPath': `coalesce(regarding->>'fieldPath', '')`,
};

function scopeFilter(scope: EventScope, p: (v: unknown) => string): string {
  let out = '';
  if (scope.namespace !== undefined) out += ` AND namespace = ${p(scope.namespace)}`;
  else if (scope.namespaces !== undefined) out += ` AND namespace = ANY(${p([...scope.namespaces])}::text[])`;
  for (const f of scope.fields ?? []) {
    const column = FIELD_SQL[f.field];
    if (column) out += ` AND ${column} ${f.op === 'eq' ? '=' : 'IS DISTINCT FROM'} ${p(f.value)}`;
  }
  return out;
}

/**
 * Events within the retention, by namespace and name (the order kube-apiserver lists in), after
 * `after`, at most `limit`. `resourceVersion`: a watch from it sees every write the list did not.
 */
export async function listEvents(db: Runner, scope: EventScope, retentionSeconds: number, page: { after?: { namespace: string; name: string }; limit?: number } = {}): Promise<{ items: StoredKubeEvent[]; resourceVersion: number; more: boolean }> {
  const params: unknown[] = [retentionSeconds];
  const p = (v: unknown) => { params.push(v); return `$${params.length}`; };
  let filter = scopeFilter(scope, p);
  if (page.after) filter += ` AND (namespace, name) > (${p(page.after.namespace)}, ${p(page.after.name)})`;
  const limit = page.limit !== undefined ? ` LIMIT ${p(page.limit + 1)}` : '';
  const rows = await db.$queryRawUnsafe<(Row & { xmin: string | number | bigint })[]>(
    `WITH h AS (SELECT ${HORIZON} AS xmin)
     SELECT e.*, h.xmin FROM h LEFT JOIN LATERAL (
       SELECT ${COLUMNS} FROM kube_events WHERE last_time > now() - make_interval(secs => $1::float8)${filter}
       ORDER BY namespace, name${limit}) e ON true
     ORDER BY e.namespace, e.name`, ...params);
  const found = rows.filter((r) => r.name !== null).map(toEvent);
  const more = page.limit !== undefined && found.length > page.limit;
  return { items: more ? found.slice(0, page.limit) : found, resourceVersion: Number(rows[0].xmin) * TX_SHIFT - 1, more };
}

export async function readEvent(db: Runner, namespace: string, name: string, retentionSeconds: number): Promise<StoredKubeEvent | null> {
  const [row] = await db.$queryRawUnsafe<Row[]>(
    `SELECT ${COLUMNS} FROM kube_events WHERE namespace = $1 AND name = $2 AND last_time > now() - make_interval(secs => $3::float8)`, namespace, name, retentionSeconds);
  return row ? toEvent(row) : null;
}

/**
 * Writes after `cursor` that no later commit can precede, oldest first, at most `limit`, and the
 * cursor to read on from (past the horizon when fewer came back).
 */
export async function eventsSince(db: Runner, cursor: number, scope: EventScope, retentionSeconds: number, limit: number): Promise<{ items: StoredKubeEvent[]; next: number }> {
  const params: unknown[] = [cursor, retentionSeconds, limit];
  const p = (v: unknown) => { params.push(v); return `$${params.length}`; };
  const rows = await db.$queryRawUnsafe<(Row & { xmin: string | number | bigint })[]>(
    `WITH h AS (SELECT ${HORIZON} AS xmin)
     SELECT e.*, h.xmin FROM h LEFT JOIN LATERAL (
       SELECT ${COLUMNS} FROM kube_events WHERE resource_version > $1::bigint AND resource_version < h.xmin * ${TX_SHIFT}
         AND last_time > now() - make_interval(secs => $2::float8)${scopeFilter(scope, p)}
       ORDER BY resource_version LIMIT $3) e ON true
     ORDER BY e.resource_version`, ...params);
  const items = rows.filter((r) => r.name !== null).map(toEvent);
  const horizon = Number(rows[0].xmin) * TX_SHIFT - 1;
  const next = items.length === limit ? items[items.length - 1].resourceVersion : Math.max(cursor, horizon);
  return { items, next };
}

/** Deletes the Events last seen longer ago than the retention; answers how many. */
export async function deleteExpiredEvents(db: Runner, retentionSeconds: number): Promise<number> {
  return Number(await db.$executeRawUnsafe(`DELETE FROM kube_events WHERE last_time < now() - make_interval(secs => $1::float8)`, retentionSeconds));
}
