// The request id and trace context a request carries: a client's X-Request-Id is kept when it is
// short and plain (it ends up in logs and headers, so nothing that could forge a log line or a
// header), else one is made; a W3C traceparent is kept only when well formed.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/;
// version 00-fe, trace id and parent id not all zeros (W3C Trace Context, section 3.2)
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$/;

export function saneRequestId(header: string | undefined): string | undefined {
  return header !== undefined && SANE_ID.test(header) ? header : undefined;
}

export function validTraceparent(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 512) return undefined;
  const v = header.trim();
  // version 00 has exactly four fields; later versions may append more
  if (!TRACEPARENT.test(v) || (v.startsWith('00-') && v.length !== 55)) return undefined;
  return v;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** the request's id (requestIds sets it first) */
    id?: string;
    /** the W3C trace context the client sent, when well formed */
    traceparent?: string;
  }
}

/** Stamps every request with its id (echoed in the response) and its trace context. */
export function requestIds(req: Request, res: Response, next: NextFunction): void {
  const sent = req.headers['x-request-id'];
  const id = saneRequestId(typeof sent === 'string' ? sent : undefined) ?? randomUUID();
  req.id = id;
  const tp = req.headers.traceparent as string | undefined; // node joins a repeated header: one string
  if (tp !== undefined) req.traceparent = validTraceparent(tp);
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}

/** The id of the request being answered, for problem+json bodies. */
export function requestIdOf(res: Response): string | undefined {
  const id = res.req?.id;
  return typeof id === 'string' ? id : undefined;
}
