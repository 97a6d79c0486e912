// Every error on the Kubernetes paths leaves as a meta/v1 Status (problem+json stays on the
// Switchyard paths): the code, the StatusReason, and a cause per field for invalid objects.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ServiceError } from '../../../service/errors';
import { HttpError } from '../problem';
import { causesOf, failure, type StatusDetails } from '../../../core/kube/status';
import type { KubeStatus } from '../../../core/kube/types';
import { isDatabaseUnavailable } from '../../store/unavailable';
import { ApplyRejection } from '../../../core/apply/types';

/** What the failing request was about (set by the handler): Status details name it. */
export interface KubeTarget {
  /** the resource (plural), as NotFound and Conflict name it */
  kind?: string;
  /** the Kind, as Invalid names it ("The HTTPRoute "x" is invalid") */
  kindName?: string;
  group?: string;
  name?: string;
}

const CODE_OF: Record<ServiceError['kind'], number> = {
  'bad-request': 400, forbidden: 403, 'not-found': 404, 'already-exists': 409, conflict: 409, 'too-large': 413,
  'unsupported-media-type': 415, invalid: 422,
};

const REASON_OF: Partial<Record<ServiceError['kind'], string>> = { 'already-exists': 'AlreadyExists', conflict: 'Conflict', invalid: 'Invalid' };

export function sendStatus(res: Response, status: KubeStatus, headers: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  const text = JSON.stringify(status);
  res.statusCode = status.code;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function statusOf(err: unknown, target: KubeTarget | undefined, logger: Logger, req: Request): { status: KubeStatus; headers?: Record<string, string> } {
  const details: StatusDetails = { name: target?.name, group: target?.group, kind: target?.kind };
  if (err instanceof ServiceError) {
    const code = CODE_OF[err.kind];
    const kind = err.kind === 'invalid' ? target?.kindName ?? details.kind : details.kind;
    return { status: failure(code, err.detail, REASON_OF[err.kind], { ...details, kind, causes: causesOf(err.errors) }) };
  }
  if (err instanceof HttpError) {
    const kind = err.status === 422 ? target?.kindName ?? details.kind : details.kind;
    return { status: failure(err.status, err.detail, undefined, { ...details, kind, causes: causesOf(err.errors) }), headers: err.headers };
  }
  if (err instanceof ApplyRejection) {
    const code = err.status;
    return { status: failure(code, err.message, undefined, { ...details, causes: (err.issues ?? []).map((i) => ({ field: i.path, message: i.message })) }) };
  }
  const e = err as { type?: string; message?: string; code?: string; cause?: { code?: string } };
  if (/40P01|40001/.test(`${e?.code ?? ''} ${e?.cause?.code ?? ''} ${e?.message ?? ''}`))
    return { status: failure(409, 'a concurrent write conflicted with this one; nothing was written; retry', 'Conflict', details) };
  if (isDatabaseUnavailable(err))
    return { status: failure(503, 'PostgreSQL is unavailable; the request may not have been carried out; retry it', undefined, { retryAfterSeconds: 2 }), headers: { 'Retry-After': '2' } };
  logger.error({ err, reqId: req.id, method: req.method, path: req.path }, 'unhandled error');
  return { status: failure(500, 'an internal error occurred; it has been logged') };
}

/** The router's last handler. */
export function kubeErrors(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const { status, headers } = statusOf(err, res.locals.kubeTarget as KubeTarget | undefined, logger, req);
    sendStatus(res, status, headers);
  };
}
