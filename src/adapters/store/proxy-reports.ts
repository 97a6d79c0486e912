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

export async function saveReport(db: Runner, gateway: string, report: Omit<ReportRow, 'lastSeen'>): Promise<ReportRow> {
  const [row] = await db.$queryRawUnsafe<Row[]>(
    `INSERT INTO proxy_reports (gateway, proxy_id, version, hash, error, last_seen, xds) VALUES ($1, $2, $3, $4, $5, now(), $6::jsonb)
     ON CONFLICT (gateway, proxy_id) DO UPDATE SET version = excluded.version, hash = excluded.hash, error = excluded.error, last_seen = excluded.last_seen, xds = excluded.xds
     RETURNING proxy_id, version, hash, error, last_seen, xds`,
    gateway, report.proxyId, report.version, report.hash, report.error, report.xds ? JSON.stringify(report.xds) : null);
  return toRow(row);
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
