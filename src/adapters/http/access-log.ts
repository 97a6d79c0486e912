// The access log: one line per answered request in pino-http's shape ({reqId, req, res,
// responseTime}), at info below 400, warn for 4xx and error for 5xx, so LOG_LEVEL filters it as it
// does any other line. ACCESS_LOG and ACCESS_LOG_SAMPLE decide which requests are written. Whether
// a success is in the sample is decided when the request arrives; one out of it gets the same line
// if it ends at 400 or above. The line is written on the process's logger when the answer ends:
// pino-http, which made a child logger per request, cost a fifth of an object GET's CPU.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Logger, LevelWithSilent } from 'pino';
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

const serializers = {
  req: (req: Req) => ({ method: req.method, url: req.originalUrl ?? req.url, ...(req.traceparent ? { traceparent: req.traceparent } : {}) }),
  res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
};

function fields(req: Req, res: ServerResponse, val: Record<string, unknown>): Record<string, unknown> {
  const locals = (res as Response).locals ?? {};
  return {
    reqId: req.id,
    ...val,
    ...(locals.route ? { route: locals.route } : {}),
    ...(locals.principal?.name ? { actor: locals.principal.name } : {}),
  };
}

/** Whether a request arriving now is in the sample of successes written (see levelFor). */
export type SampleDecision = () => boolean;

export function sampler(o: AccessLogOptions): SampleDecision {
  const random = o.random ?? Math.random;
  return () => o.mode === 'all' && (o.sample >= 1 || (o.sample > 0 && random() < o.sample));
}

const everything: AccessLogOptions = { mode: 'all', sample: 1 };
const failuresOnly: AccessLogOptions = { mode: 'errors', sample: 0 };

/** Writes the line of an answered request (started: Date.now() at its arrival), when its level is on. */
export function writeAccessLine(logger: Logger, req: Req, res: ServerResponse, started: number, sampled: boolean): void {
  const level = levelFor(sampled ? everything : failuresOnly, res.statusCode, false);
  // a line LOG_LEVEL drops is not built either
  if (level === 'silent' || !logger.isLevelEnabled(level)) return;
  const failed = res.statusCode >= 500;
  logger[level]({
    ...fields(req, res, {
      req: serializers.req(req), res: serializers.res(res), responseTime: Date.now() - started,
      ...(failed ? { err: new Error(`failed with status code ${res.statusCode}`) } : {}),
    }),
  }, failed ? 'request errored' : res.writableEnded ? 'request completed' : 'request aborted');
}

/** The access log middleware, or null when ACCESS_LOG=off. Expects req.id set (see request-id.ts). */
export function accessLog(logger: Logger, o: AccessLogOptions): RequestHandler | null {
  if (o.mode === 'off') return null;
  const inSample = sampler(o);
  return (req, res, next) => {
    const sampled = inSample();
    const started = Date.now();
    // 'close' ends every answer, after 'finish' when it was sent whole: one listener for both
    res.on('close', () => writeAccessLine(logger, req as Req, res, started, sampled));
    next();
  };
}
