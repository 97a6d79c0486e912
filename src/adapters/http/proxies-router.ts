// The proxies of a Gateway: each reports what it serves (PUT), and anyone who may read the Gateway
// sees them against its current snapshot (GET). Reports go to their own table, never the event log.
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { requireBody } from './body';
import { deleteQuietReports, listReports } from '../store/proxy-reports';
import { mayList, mayReport, proxyStatus, readReport } from '../../service/proxy-reports';
import { reportProxy } from '../../service/report-proxy';

/** One report in this many also deletes the long-quiet entries. */
const SWEEP_EVERY = 100;

export function proxiesRouter(ctx: AppContext): Router {
  const r = Router();
  const ttl = ctx.config.proxyReportTtlSeconds;
  let reports = 0;
  const current = async (ns: string, name: string) => (await ctx.snapshots.get(`${ns}/${name}`))?.version ?? null;

  r.put('/api/v1/namespaces/:namespace/gateways/:name/proxies/:id', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/gateways/:name/proxies/:id';
    try {
      const { namespace, name, id } = req.params as { namespace: string; name: string; id: string };
      mayReport(res.locals.principal, namespace, name);
      const report = readReport(id, requireBody(req, res));
      const saved = await reportProxy({ sql: ctx.db.sql, controllerName: ctx.config.controllerName, eventsRetentionSeconds: ctx.config.kubeEventsRetentionSeconds, logger: ctx.logger }, `${namespace}/${name}`, report);
      const row = saved.row;
      if (++reports % SWEEP_EVERY === 0) void deleteQuietReports(ctx.db.sql, ttl).catch(() => undefined);
      res.json(proxyStatus(row, await current(namespace, name)));
    } catch (e) {
      next(e);
    }
  });

  r.get('/api/v1/namespaces/:namespace/gateways/:name/proxies', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/gateways/:name/proxies';
    try {
      const { namespace, name } = req.params as { namespace: string; name: string };
      mayList(res.locals.principal, namespace, name);
      const [rows, version] = await Promise.all([listReports(ctx.db.sql, `${namespace}/${name}`, ttl), current(namespace, name)]);
      res.json({ snapshotVersion: version, items: rows.map((row) => proxyStatus(row, version)) });
    } catch (e) {
      next(e);
    }
  });
  return r;
}
