// Proxies report which snapshot of a Gateway they serve; the API lists them against the Gateway's
// current snapshot, as `istioctl proxy-status` does: SYNCED, STALE or NOT_SENT.
import type { components } from '../generated/api';
import type { Principal } from './principal';
import { canRead, canReportProxy } from './access';
import { forbidden, invalid } from './errors';
import type { FieldError } from './errors';
import type { ReportRow } from '../adapters/store/proxy-reports';

export type ProxyReport = components['schemas']['ProxyReport'];
export type ProxyStatus = components['schemas']['ProxyStatus'];

const ID = /^[A-Za-z0-9._:-]{1,128}$/;
const HASH = /^[0-9a-f]{64}$/;

/** A report as stored, or the reasons it is refused (422, nothing written). */
export function readReport(id: string, body: unknown): Omit<ReportRow, 'lastSeen'> {
  const errors: FieldError[] = [];
  if (!ID.test(id)) errors.push({ path: 'id', message: 'Invalid value: a proxy id is 1 to 128 of A-Z a-z 0-9 . _ : -' });
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (!body || typeof body !== 'object' || Array.isArray(body)) errors.push({ path: '', message: 'Invalid value: the report is a JSON object' });
  for (const k of Object.keys(b)) if (!['version', 'hash', 'error'].includes(k)) errors.push({ path: k, message: `unknown field "${k}"` });
  const version = b.version;
  if (!(version === null || (Number.isSafeInteger(version) && (version as number) >= 1))) errors.push({ path: 'version', message: 'Required value: the snapshot version served (an integer from 1), or null' });
  const hash = b.hash;
  if (!(hash === null || (typeof hash === 'string' && HASH.test(hash)))) errors.push({ path: 'hash', message: "Required value: the snapshot hash served (64 hex digits), or null" });
  if (b.error !== undefined && (typeof b.error !== 'string' || b.error.length > 1024)) errors.push({ path: 'error', message: 'Invalid value: a string of at most 1024 characters' });
  if (errors.length) throw invalid(`the proxy report is invalid: ${errors.map((e) => `${e.path || 'body'}: ${e.message}`).join('; ')}`, errors);
  return { proxyId: id, version: version as number | null, hash: hash as string | null, error: (b.error as string | undefined) ?? null };
}

export function mayReport(p: Principal, namespace: string, name: string): void {
  if (!canReportProxy(p, namespace, name)) throw forbidden(`this token may not report for the proxies of Gateway ${namespace}/${name}`);
}

export function mayList(p: Principal, namespace: string, name: string): void {
  if (!canRead(p, 'Gateway', namespace, name)) throw forbidden(`this token may not read Gateway ${namespace}/${name}`);
}

/** How a report stands against the Gateway's current snapshot version (null: it has none). */
export function proxyStatus(r: ReportRow, current: number | null): ProxyStatus {
  const nacked = r.xds && Object.values(r.xds.types).some((t) => t.nacked);
  const state: ProxyStatus['state'] = nacked ? 'NACKED' : r.version === null ? 'NOT_SENT' : current !== null && r.version >= current ? 'SYNCED' : 'STALE';
  return { id: r.proxyId, version: r.version, hash: r.hash, state, lastSeen: r.lastSeen.toISOString(), ...(r.error ? { error: r.error } : {}), ...(r.xds ? { xds: r.xds } : {}) };
}
