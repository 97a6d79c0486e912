// Every 4xx/5xx body is application/problem+json: {type, title, status, detail, errors?, requestId?}.
import type { Response } from 'express';
import type { FieldError, ServiceError, ServiceErrorKind } from '../../service/errors';
import { requestIdOf } from './request-id';

export type { FieldError };

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 412: 'Precondition Failed', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 503: 'Service Unavailable', 504: 'Gateway Timeout',
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
  'bad-request': 400, forbidden: 403, 'not-found': 404, conflict: 409, 'too-large': 413, 'unsupported-media-type': 415, invalid: 422,
};

export function sendServiceProblem(res: Response, err: ServiceError): void {
  sendProblem(res, STATUS_OF[err.kind], err.detail, err.errors);
}

export function sendProblem(res: Response, status: number, detail: string, errors?: FieldError[]): void {
  const body: Record<string, unknown> = {
    type: `https://switchyard.dev/problems/${status}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
  };
  if (errors && errors.length) body.errors = errors;
  // the id the access log line carries: what a user quotes when reporting the error
  const requestId = requestIdOf(res);
  if (requestId !== undefined) body.requestId = requestId;
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
}
