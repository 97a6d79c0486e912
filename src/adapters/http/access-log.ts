// The access log: one line per answered request in pino-http's shape ({reqId, req, res,
// responseTime}), at info below 400, warn for 4xx and error for 5xx, so LOG_LEVEL filters it as it
// does any other line. ACCESS_LOG and ACCESS_LOG_SAMPLE decide which requests are written. Whether
// a success is in the sample is decided when the request arrives: one that can only be written if it
// fails (ACCESS_LOG=errors, or out of the sample) does not go through pino-http, whose child logger
// per request cost a fifth of an object GET's CPU, but gets the same line if it ends at 400 or above.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Logger, LevelWithSilent } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AccessLogMode } from '../../config/env';

export interface AccessLogOptions {
  mode: AccessLogMode;
  /** the share of requests answered below 400 that are written */
  sample: number;
  random?: () => number;
}

type Req = IncomingMessage & { id?: unknown; traceparent?: string; originalUrl?: string };

/** The level of a request's line, or silent when it is not written. */
export function levelFor(o: AccessLogOptions, status: number, failed: boolean): LevelWithSilent {
  if (failed || status >= 500) return 'error';
  if (status >= 400) return 'warn';
  if (o.mode !== 'all' || o.sample <= 0) return 'silent';
  return o.sample >= 1 || (o.random ?? Math.random)() < o.sample ? 'info' : 'silent';
}

// pino-http binds `req` to a child logger for every request (serialized there and then), so the
// serializers must be small: the raw objects would be stringified whole.
const serializers = {
  req: (req: Req) => ({ method: req.method, url: req.originalUrl ?? req.url, ...(req.traceparent ? { traceparent: req.traceparent } : {}) }),
  res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
};

function fields(req: Req, res: ServerResponse, val: Record<string, unknown>): Record<string, unknown> {
  const locals = (res as Response).locals ?? {};
  return {
    reqId: req.id,
    ...val,
    req,
    ...(locals.route ? { route: locals.route } : {}),
    ...(locals.principal?.name ? { actor: locals.principal.name } : {}),
  };
}

/** The access log middleware, or null when ACCESS_LOG=off. Expects req.id set (see request-id.ts). */
export function accessLog(logger: Logger, o: AccessLogOptions): RequestHandler | null {
  if (o.mode === 'off') return null;
  const everything: AccessLogOptions = { mode: 'all', sample: 1 };
  const failuresOnly: AccessLogOptions = { mode: 'errors', sample: 0 };
  const log = pinoHttp<Req, ServerResponse>({
    logger,
    // pino-http makes a child logger per request (req.log, bound to req) and, with quietReqLogger,
    // a second one; the line is written on the parent with the id in it, so one child is all it costs
    quietReqLogger: false,
    quietResLogger: true,
    wrapSerializers: false,
    serializers,
    customLogLevel: (_req, res, err) => {
      // only sampled requests come here: every line is theirs to write
      const level = levelFor(everything, res.statusCode, Boolean(err));
      // a line LOG_LEVEL drops is not built either
      return level === 'silent' || logger.isLevelEnabled(level) ? level : 'silent';
    },
    customSuccessObject: fields,
    customErrorObject: (req, res, _err, val) => fields(req, res, val),
    customSuccessMessage: (req, res) => (res.writableEnded ? 'request completed' : 'request aborted'),
  }) as unknown as RequestHandler;
  const random = o.random ?? Math.random;
  return (req, res, next) => {
    const sampled = o.mode === 'all' && (o.sample >= 1 || (o.sample > 0 && random() < o.sample));
    if (sampled) return log(req, res, next);
    const started = Date.now();
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      const level = levelFor(failuresOnly, res.statusCode, false);
      if (level === 'silent' || !logger.isLevelEnabled(level)) return;
      // pino-http's line, as a sampled request would have had it
      const failed = res.statusCode >= 500;
      logger[level]({
        ...fields(req, res, {
          res: serializers.res(res), responseTime: Date.now() - started,
          ...(failed ? { err: new Error(`failed with status code ${res.statusCode}`) } : {}),
        }),
        // the parent logger has not pino-http's serializers
        req: serializers.req(req as Req),
      }, failed ? 'request errored' : res.writableEnded ? 'request completed' : 'request aborted');
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
