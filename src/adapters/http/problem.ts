// Every 4xx/5xx body is application/problem+json: {type, title, status, detail, reason, errors?,
// requestId?}. `reason` is the Kubernetes StatusReason of the failure and each error's `reason` its
// CauseType, so that a client can act on them without reading the words.
import type { Response } from 'express';
import type { components } from '../../generated/api';
import { withReasons } from '../../core/validate';
import type { FieldError, ServiceError, ServiceErrorKind } from '../../service/errors';
import { requestIdOf } from './request-id';

export type { FieldError };
export type StatusReason = components['schemas']['StatusReason'];
export type Problem = components['schemas']['Problem'];

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** The reason of a status when nothing more precise is known (a 409 may also be AlreadyExists). */
export const REASON_OF_STATUS: Readonly<Record<number, StatusReason>> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
  406: 'NotAcceptable', 409: 'Conflict', 413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType',
  422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout',
};

export class HttpError extends Error {
  constructor(
    public readonly status: number,
    public readonly detail: string,
    public readonly errors?: FieldError[],
    public readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }
}

const STATUS_OF: Record<ServiceErrorKind, number> = {
  'bad-request': 400, forbidden: 403, 'not-found': 404, 'already-exists': 409, conflict: 409, 'too-large': 413,
  'unsupported-media-type': 415, invalid: 422,
};

const REASON_OF_KIND: Record<ServiceErrorKind, StatusReason> = {
  'bad-request': 'BadRequest', forbidden: 'Forbidden', 'not-found': 'NotFound', 'already-exists': 'AlreadyExists',
  conflict: 'Conflict', 'too-large': 'RequestEntityTooLarge', 'unsupported-media-type': 'UnsupportedMediaType', invalid: 'Invalid',
};

/** The problem a service error becomes. */
export function serviceProblem(err: ServiceError): Problem {
  return problem(STATUS_OF[err.kind], err.detail, err.errors, REASON_OF_KIND[err.kind]);
}

/** The problem of a status; the reason defaults to the status's (an unlisted 5xx is InternalError). */
export function problem(status: number, detail: string, errors?: readonly FieldError[], reason?: StatusReason): Problem {
  const body: Problem = {
    type: `https://switchyard.dev/problems/${status}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    reason: reason ?? REASON_OF_STATUS[status] ?? (status >= 500 ? 'InternalError' : 'BadRequest'),
  };
  if (errors && errors.length) body.errors = withReasons(errors);
  return body;
}

export function sendServiceProblem(res: Response, err: ServiceError): void {
  writeProblem(res, serviceProblem(err));
}

export function sendProblem(res: Response, status: number, detail: string, errors?: FieldError[]): void {
  writeProblem(res, problem(status, detail, errors));
}

/** A problem with more members than the common ones (apply's 504 carries the results known so far). */
export function writeProblem(res: Response, body: Problem & Record<string, unknown>): void {
  // the id the access log line carries: what a user quotes when reporting the error
  const requestId = requestIdOf(res);
  if (requestId !== undefined) body.requestId = requestId;
  res.status(body.status).type('application/problem+json').send(JSON.stringify(body));
}
