// The express application: metrics and logs around every request, then the routers, then one
// error handler that answers problem+json.
import { markWork } from '../../runtime/idle-gc';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError, sendProblem, sendServiceProblem } from './problem';
import { ServiceError } from '../../service/errors';
import { jsonBody } from './body';
import { checkRequestPath } from './request-path';
import { bearerToken } from './auth';
import { systemRouter } from './system-router';
import { eventsRouter } from './events-router';
import { resourcesRouter } from './resources-router';
import { applyRouter } from './apply-router';
import { requestIds } from './request-id';
import { accessLog } from './access-log';
import { isDatabaseUnavailable } from '../store/unavailable';
import { kubeRouter } from './kube/router';
import { snapshotPoll } from './snapshot-poll';

/** seconds a client is told to wait while PostgreSQL is away: about how long a restart takes */
const UNAVAILABLE_RETRY_AFTER_S = 2;

export type RouterFactory = (ctx: AppContext) => express.Router;

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;

/** /api/v1/ and at least the start of a name: the Switchyard paths, none of them the system's or Kubernetes' */
const OBJECT_PATH = /^\/api\/v1\/[^/]/i;
/** what `app.use('/api', …)` matches, tested without express's prefix trimming on every request */
const UNDER_API = /^\/api(?:\/|$)/i;
/** what the delivery router serves (case-insensitive, a trailing slash allowed, as express routes) */
const DELIVERY_PATH = /^\/api\/v1\/namespaces\/[^/]+\/gateways\/[^/]+\/(?:snapshot(?:\/watch)?|resolve)\/?$/i;

const unlessObjectPath = (h: Handler): Handler => (req, res, next) => (OBJECT_PATH.test(req.path) ? next() : h(req, res, next));
const onlyUnderApi = (h: Handler): Handler => (req, res, next) => (UNDER_API.test(req.path) ? h(req, res, next) : next());
const onlyMatching = (paths: RegExp, h: Handler): Handler => (req, res, next) => (paths.test(req.path) ? h(req, res, next) : next());

/**
 * Several middleware as one layer of the app: each calls the next as express would (an error, or
 * the last one's next, goes on to the app's next layer). Every layer express walks costs a request
 * its matching, prefix trimming and promise checks; a conditional snapshot GET walked a dozen.
 */
export function inSequence(handlers: Handler[]): Handler {
  if (handlers.length === 1) return handlers[0];
  return (req, res, next) => {
    let i = 0;
    // a router passed through ends with done(undefined), or done(null) after next('route' or 'router')
    const step = (err?: unknown) => {
      if (err != null || i === handlers.length) return next(err ?? undefined);
      try {
        const out = handlers[i++](req, res, step);
        if (out instanceof Promise) out.then(undefined, (e: unknown) => step(e ?? new Error('Rejected promise')));
      } catch (e) {
        step(e);
      }
    };
    step();
  };
}

export interface AppRouters {
  /** routers after the objects' (tokens, proxies...) */
  extra?: RouterFactory[];
  /** the proxies' snapshot paths: matched before the objects' router, which does not serve them */
  delivery?: RouterFactory;
}

export function createApp(ctx: AppContext, routers: AppRouters = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  const observe: Handler = (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const route = (res.locals.route as string | undefined) ?? (req.path.startsWith('/api/') ? 'unmatched' : req.path);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      // writes are what come in bursts (a sync of thousands of objects); reads are steady
      if (req.method !== 'GET' && req.method !== 'HEAD') markWork(seconds * 1000);
      ctx.metrics.requests.inc({ method: req.method, route, code: String(res.statusCode) });
      ctx.metrics.latency.observe({ method: req.method, route }, seconds);
    });
    next();
  };
  const logOptions = { mode: ctx.config.accessLog, sample: ctx.config.accessLogSample };
  const log = accessLog(ctx.logger, logOptions);
  // proxies' polls that find nothing new, before every other layer (see snapshot-poll.ts)
  if (routers.delivery) app.use(snapshotPoll(ctx, log ? logOptions : null, ctx.logger));
  // request id, access log, metrics and the path's check, in this order, as one layer
  app.use(inSequence([requestIds, ...(log ? [log] : []), observe, checkRequestPath]));
  // Neither serves a path under /api/v1/<name>, and every object write would otherwise walk their layers;
  // the Kubernetes paths answer Status errors and read their own bodies: before /api's problem+json
  app.use(unlessObjectPath(inSequence([systemRouter(ctx), kubeRouter(ctx)])));
  const authenticate: Handler = async (req, res, next) => {
    try {
      const principal = await ctx.auth.authenticate(bearerToken(req));
      if (!principal) throw new HttpError(401, 'the bearer token is unknown, revoked or expired', undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
      res.locals.principal = principal;
      next();
    } catch (e) {
      next(e);
    }
  };
  app.use(onlyUnderApi(inSequence([authenticate, ctx.limits.rate])));
  app.use(jsonBody(ctx.config.bodyLimitBytes));
  // what proxies poll, many times a second each, goes straight to its router; the objects' router
  // passes these paths on, and a path of neither shape no longer walks the delivery router's layers
  if (routers.delivery) app.use(onlyMatching(DELIVERY_PATH, routers.delivery(ctx)));
  // the objects next, as most requests are theirs: its paths (a kind's plural after /api/v1/ or
  // /api/v1/namespaces/<ns>/) are none of the other routers' (tokens, apply, events, proxies)
  app.use(resourcesRouter(ctx));
  for (const make of routers.extra ?? []) app.use(make(ctx));
  app.use(applyRouter(ctx));
  app.use(eventsRouter(ctx));

  app.use((req: Request, res: Response, next: NextFunction) => {
    next(res.locals.bodyError ?? new HttpError(404, `no resource at ${req.method} ${req.path}`));
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof HttpError) {
      for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
      return sendProblem(res, err.status, err.detail, err.errors);
    }
    if (err instanceof ServiceError) return sendServiceProblem(res, err);
    const e = err as { type?: string; status?: number; message?: string; code?: string; cause?: { code?: string } };
    // a deadlock or serialization failure is a lost race with another writer: retry, as with any 409
    if (/40P01|40001/.test(`${e?.code ?? ''} ${e?.cause?.code ?? ''} ${e?.message ?? ''}`))
      return sendProblem(res, 409, 'a concurrent write conflicted with this one; nothing was written; retry');
    // an outage, not a fault of this request: say when to try again (readyz says what is down)
    if (isDatabaseUnavailable(err)) {
      ctx.logger.warn({ method: req.method, path: req.path, err: (err as Error)?.message }, 'PostgreSQL unavailable');
      res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
      return sendProblem(res, 503, 'PostgreSQL is unavailable; the request may not have been carried out; retry it');
    }
    if (e?.type === 'entity.too.large') return sendProblem(res, 413, 'the request body is too large');
    if (e?.type === 'entity.parse.failed') return sendProblem(res, 400, `the request body is not valid JSON: ${e.message}`);
    ctx.logger.error({ err, reqId: req.id, method: req.method, path: req.path }, 'unhandled error');
    sendProblem(res, 500, 'an internal error occurred; it has been logged');
  });
  return app;
}
