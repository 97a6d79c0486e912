// What a use case refuses, and why, in the service's own words: the HTTP adapter alone knows which
// status code and problem+json title each kind becomes.
import type { components } from '../generated/api';

export type FieldError = components['schemas']['FieldError'];

export type ServiceErrorKind =
  | 'bad-request'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'too-large'
  | 'unsupported-media-type'
  | 'invalid';

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    readonly detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) => new ServiceError('bad-request', detail, errors);
export const forbidden = (detail: string, errors?: FieldError[]) => new ServiceError('forbidden', detail, errors);
export const notFound = (detail: string) => new ServiceError('not-found', detail);
export const conflict = (detail: string) => new ServiceError('conflict', detail);
export const invalid = (detail: string, errors?: FieldError[]) => new ServiceError('invalid', detail, errors);

/** The core's apply rejections and write decisions speak in status codes; here they become kinds. */
const BY_STATUS: Record<number, ServiceErrorKind> = {
  400: 'bad-request', 403: 'forbidden', 404: 'not-found', 409: 'conflict', 413: 'too-large', 415: 'unsupported-media-type', 422: 'invalid',
};

export function fromStatus(status: 400 | 403 | 404 | 409 | 413 | 415 | 422, detail: string, errors?: FieldError[]): ServiceError {
  return new ServiceError(BY_STATUS[status], detail, errors);
}

export function isConflict(e: unknown): e is ServiceError {
  return e instanceof ServiceError && e.kind === 'conflict';
}
