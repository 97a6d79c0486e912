// A proxy's report, saved, and the Kubernetes Events it gives its Gateway (a table it refused, an
// xDS NACK among them; a proxy falling behind or back in sync): one path for snapshot proxies and
// xDS nodes, so that both are reported the same way.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { SqlRunner } from '../adapters/store/database';
import { saveReport, type ReportRow, type SavedReport } from '../adapters/store/proxy-reports';
import { recordEvents } from '../adapters/store/kube-events';
import { proxyReportEvents } from '../core/status/events';

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
  if (deps.eventsRetentionSeconds > 0) {
    const [namespace, name] = gateway.split('/');
    const row = saved.row;
    const events = proxyReportEvents({ namespace, name }, row.proxyId, saved.previous, { error: row.error, stale: saved.stale, version: row.version }, saved.current);
    if (events.length) {
      await recordEvents(deps.sql, events, { controller: deps.controllerName, instance: hostname(), retentionSeconds: deps.eventsRetentionSeconds })
        .catch((err: unknown) => deps.logger.warn({ err, gateway }, 'recording the Kubernetes Events of a proxy report failed'));
    }
  }
  return saved;
}
