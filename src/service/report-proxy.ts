// A proxy's report, saved, and the Kubernetes Events it gives its Gateway (a table it refused, an
// xDS NACK among them; a proxy falling behind or back in sync): one path for snapshot proxies and
// xDS nodes, so that both are reported the same way.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { SqlRunner } from '../adapters/store/database';
import { saveReport, saveReports, type GatewayReport, type ReportRow, type SavedReport } from '../adapters/store/proxy-reports';
import { recordEvents } from '../adapters/store/kube-events';
import { proxyReportEvents, type EventDraft } from '../core/status/events';

export interface ReportDeps {
  sql: SqlRunner;
  controllerName: string;
  /** 0: no Kubernetes Events are recorded */
  eventsRetentionSeconds: number;
  logger: Logger;
}

/** `gateway`: `<namespace>/<name>`. */
export async function reportProxy(deps: ReportDeps, gateway: string, report: Omit<ReportRow, 'lastSeen'>): Promise<SavedReport> {
  const saved = await saveReport(deps.sql, gateway, report);
  await recordReportEvents(deps, eventsOf(deps, gateway, saved));
  return saved;
}

/**
 * Many reports at once (at most one per Gateway and proxy id), in one statement, with the Events
 * they give in one more: what an API process's xDS nodes report, gathered over a moment.
 */
export async function reportProxies(deps: ReportDeps, items: readonly GatewayReport[]): Promise<(SavedReport & { gateway: string })[]> {
  const saved = await saveReports(deps.sql, items);
  await recordReportEvents(deps, saved.flatMap((s) => eventsOf(deps, s.gateway, s)));
  return saved;
}

function eventsOf(deps: ReportDeps, gateway: string, saved: SavedReport): EventDraft[] {
  if (deps.eventsRetentionSeconds <= 0) return [];
  const [namespace, name] = gateway.split('/');
  const row = saved.row;
  return proxyReportEvents({ namespace, name }, row.proxyId, saved.previous, { error: row.error, stale: saved.stale, version: row.version }, saved.current);
}

async function recordReportEvents(deps: ReportDeps, events: EventDraft[]): Promise<void> {
  if (events.length === 0) return;
  await recordEvents(deps.sql, events, { controller: deps.controllerName, instance: hostname(), retentionSeconds: deps.eventsRetentionSeconds })
    .catch((err: unknown) => deps.logger.warn({ err, gateways: [...new Set(events.map((e) => `${e.regarding.namespace}/${e.regarding.name}`))].slice(0, 5) }, 'recording the Kubernetes Events of proxy reports failed'));
}
