// The proxy_reports table: each proxy's last report per Gateway. A report overwrites the proxy's
// previous one; lists leave out proxies quiet for longer than the time to live, and a report now and
// then deletes the long-quiet ones.
import type { SqlRunner } from './database';

type Runner = Pick<SqlRunner, '$queryRawUnsafe' | '$executeRawUnsafe'>;

export interface ReportRow {
  proxyId: string;
  version: number | null;
  hash: string | null;
  error: string | null;
  lastSeen: Date;
  /** an xDS node's per-type acknowledgements (see service/proxy-reports), absent for a snapshot proxy */
  xds?: XdsReport | null;
}

export interface XdsReport {
  variant: 'sotw' | 'delta';
  types: Record<string, { acked?: string; nacked?: { version: string; error: string } }>;
}

interface Row { proxy_id: string; version: string | number | null; hash: string | null; error: string | null; last_seen: Date | string; xds: XdsReport | string | null }

const toRow = (r: Row): ReportRow => ({
  proxyId: r.proxy_id, version: r.version === null ? null : Number(r.version), hash: r.hash, error: r.error, lastSeen: new Date(r.last_seen),
  ...(r.xds ? { xds: typeof r.xds === 'string' ? JSON.parse(r.xds) : r.xds } : {}),
});

/**
 * How long a proxy may serve an older table than the Gateway's current one before it counts as
 * stale: a healthy proxy is sent a new version within milliseconds (long-poll, SSE) and reports
 * right after it swaps; one still behind after this is stuck.
 */
export const STALE_AFTER_SECONDS = 5;

/** A report as saved, with the report it replaced (undefined: the proxy's first) and the Gateway's current version. */
export interface SavedReport {
  row: ReportRow;
  stale: boolean;
  previous?: { version: number | null; error: string | null; stale: boolean };
  current: number | null;
}

export async function saveReport(db: Runner, gateway: string, report: Omit<ReportRow, 'lastSeen'>): Promise<SavedReport> {
  const [row] = await db.$queryRawUnsafe<(Row & { stale: boolean; current: string | number | null; old_version: string | number | null; old_error: string | null; old_stale: boolean | null; existed: boolean })[]>(
    `WITH old AS (SELECT version, error, stale FROM proxy_reports WHERE gateway = $1 AND proxy_id = $2),
       cur AS (SELECT version, updated_at FROM snapshots WHERE gateway = $6)
     INSERT INTO proxy_reports (gateway, proxy_id, version, hash, error, last_seen, stale, xds)
     VALUES ($1, $2, $3, $4, $5, now(), coalesce((SELECT $3::bigint < version AND updated_at < now() - make_interval(secs => $7::float8) FROM cur), false), $8::jsonb)
     ON CONFLICT (gateway, proxy_id) DO UPDATE SET version = excluded.version, hash = excluded.hash, error = excluded.error, last_seen = excluded.last_seen, stale = excluded.stale, xds = excluded.xds
     RETURNING proxy_id, version, hash, error, last_seen, stale, xds, (SELECT version FROM cur) AS current,
       (SELECT version FROM old) AS old_version, (SELECT error FROM old) AS old_error, (SELECT stale FROM old) AS old_stale, EXISTS (SELECT 1 FROM old) AS existed`,
    gateway, report.proxyId, report.version, report.hash, report.error, `Gateway/${gateway}`, STALE_AFTER_SECONDS, report.xds ? JSON.stringify(report.xds) : null);
  return {
    row: toRow(row), stale: Boolean(row.stale), current: row.current === null ? null : Number(row.current),
    ...(row.existed ? { previous: { version: row.old_version === null ? null : Number(row.old_version), error: row.old_error, stale: Boolean(row.old_stale) } } : {}),
  };
}

/** One report of a batch: the Gateway ("<namespace>/<name>") it is for. */
export interface GatewayReport { gateway: string; report: Omit<ReportRow, 'lastSeen'> }

/**
 * Saves many reports in one statement (at most one per Gateway and proxy id: the caller coalesces),
 * each as saveReport saves it, and answers each as saveReport does (without the xDS detail), with
 * its Gateway, in no order.
 */
export async function saveReports(db: Runner, items: readonly GatewayReport[]): Promise<(SavedReport & { gateway: string })[]> {
  if (items.length === 0) return [];
  // the batch as one JSON parameter (thousands of rows: arrays of text would each be escaped element by element)
  const input = JSON.stringify(items.map((i) => ({ g: i.gateway, p: i.report.proxyId, v: i.report.version, h: i.report.hash, e: i.report.error, x: i.report.xds ?? null })));
  const rows = await db.$queryRawUnsafe<(Omit<Row, 'xds'> & { gateway: string; stale: boolean; current: string | number | null; old_version: string | number | null; old_error: string | null; old_stale: boolean | null; existed: boolean })[]>(
    `WITH input AS (
       SELECT g AS gateway, p AS proxy_id, v AS version, h AS hash, e AS error, x AS xds
       FROM jsonb_to_recordset($1::jsonb) AS i(g text, p text, v bigint, h text, e text, x jsonb)),
     old AS (SELECT p.gateway, p.proxy_id, p.version, p.error, p.stale FROM proxy_reports p JOIN input i USING (gateway, proxy_id)),
     cur AS (SELECT substr(s.gateway, 9) AS gateway, s.version, s.updated_at FROM snapshots s WHERE s.gateway IN (SELECT DISTINCT 'Gateway/' || gateway FROM input)),
     ins AS (
       INSERT INTO proxy_reports (gateway, proxy_id, version, hash, error, last_seen, stale, xds)
       SELECT i.gateway, i.proxy_id, i.version, i.hash, i.error, now(),
         coalesce(i.version < c.version AND c.updated_at < now() - make_interval(secs => $2::float8), false), CASE WHEN jsonb_typeof(i.xds) = 'null' THEN NULL ELSE i.xds END
       FROM input i LEFT JOIN cur c USING (gateway)
       ON CONFLICT (gateway, proxy_id) DO UPDATE SET version = excluded.version, hash = excluded.hash, error = excluded.error, last_seen = excluded.last_seen, stale = excluded.stale, xds = excluded.xds
       RETURNING gateway, proxy_id, version, hash, error, last_seen, stale)
     SELECT ins.*, c.version AS current, o.version AS old_version, o.error AS old_error, o.stale AS old_stale, o.proxy_id IS NOT NULL AS existed
     FROM ins LEFT JOIN old o USING (gateway, proxy_id) LEFT JOIN cur c USING (gateway)`,
    input, STALE_AFTER_SECONDS);
  // each row as saved, without its xDS detail (what the caller makes Events of needs none)
  return rows.map((row) => ({
    gateway: row.gateway, row: toRow({ ...row, xds: null }), stale: Boolean(row.stale), current: row.current === null ? null : Number(row.current),
    ...(row.existed ? { previous: { version: row.old_version === null ? null : Number(row.old_version), error: row.old_error, stale: Boolean(row.old_stale) } } : {}),
  }));
}

export async function listReports(db: Runner, gateway: string, ttlSeconds: number): Promise<ReportRow[]> {
  const rows = await db.$queryRawUnsafe<Row[]>(
    `SELECT proxy_id, version, hash, error, last_seen, xds FROM proxy_reports
     WHERE gateway = $1 AND last_seen > now() - make_interval(secs => $2) ORDER BY proxy_id`,
    gateway, ttlSeconds);
  return rows.map(toRow);
}

/** Deletes the reports of proxies quiet for ten times the time to live. */
export async function deleteQuietReports(db: Runner, ttlSeconds: number): Promise<void> {
  await db.$executeRawUnsafe(`DELETE FROM proxy_reports WHERE last_seen < now() - make_interval(secs => $1)`, ttlSeconds * 10);
}
