// A proxy's poll that finds nothing new, answered at the front of the app. GET .../snapshot with an
// If-None-Match naming the version this process holds is most of what an API process answers (every
// proxy, about every second), and the layers behind it (routers matching, async handlers, each
// middleware's bookkeeping) cost more than the 304 itself. What this path needs is all in memory:
// the token (known lately, see TokenStore.peek), its access, its rate bucket, the version held.
// Anything else — a token not known yet, a newer version, a load under way, a query (?wait, ?since),
// a body, another spelling of the path — goes on to the routers, which answer as they always did;
// so this path answers only what they would have answered, with the same headers, log line and
// metrics.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { AppContext } from './context';
import { canReadSnapshot } from '../../service/access';
import { requestIds } from './request-id';
import { sampler, writeAccessLine, type AccessLogOptions } from './access-log';

export const SNAPSHOT_ROUTE = '/api/v1/namespaces/:namespace/gateways/:name/snapshot';

/** the path exactly as the delivery router's route spells it, with nothing after it */
const POLL_PATH = /^\/api\/v1\/namespaces\/([a-z0-9][a-z0-9.-]{0,252})\/gateways\/([a-z0-9][a-z0-9.-]{0,252})\/snapshot$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** what the delivery router takes as the version a client holds (see etagVersion there) */
const ETAG_VERSION = /^(?:W\/)?"?(\d+)"?$/;

const noop = () => undefined;

export function snapshotPoll(ctx: AppContext, log: AccessLogOptions | null, logger: Logger) {
  const answered = ctx.metrics.requests.labels('GET', SNAPSHOT_ROUTE, '304');
  const latency = ctx.metrics.latency.labels('GET', SNAPSHOT_ROUTE);
  const inSample = log ? sampler(log) : null;
  return (req: Request, res: Response, next: NextFunction): void => {
    const inm = req.headers['if-none-match'];
    if (inm === undefined || req.method !== 'GET') return next();
    const path = POLL_PATH.exec(req.url);
    if (!path || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return next();
    const have = ETAG_VERSION.exec(inm.trim());
    const auth = req.headers.authorization;
    const bearer = auth === undefined ? null : BEARER.exec(auth);
    if (!have || !bearer) return next();
    const principal = ctx.auth.peek?.(bearer[1]);
    if (!principal || !canReadSnapshot(principal, path[1], path[2])) return next();
    const held = ctx.snapshots.peek(`${path[1]}/${path[2]}`);
    if (!held || held.version > Number(have[1]) || !ctx.limits.tryTake(principal)) return next();

    const start = process.hrtime.bigint();
    const started = Date.now();
    const sampled = inSample ? inSample() : false;
    requestIds(req, res, noop);
    res.locals.route = SNAPSHOT_ROUTE;
    res.locals.principal = principal;
    res.statusCode = 304;
    res.setHeader('ETag', `"${held.version}"`);
    res.setHeader('Cache-Control', 'no-cache');
    res.end();
    answered.inc();
    latency.observe(Number(process.hrtime.bigint() - start) / 1e9);
    if (inSample) writeAccessLine(logger, req, res, started, sampled);
  };
}
