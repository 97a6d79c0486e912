// What a use case refuses, and why, in the service's own words: the HTTP adapter alone knows which
// status code and problem+json title each kind becomes.
import type { components } from '../generated/api';
import { withReasons } from '../core/validate';

type WireFieldError = components['schemas']['FieldError'];

/** A field error as use cases make it: the reason may be left to its message (core/validate withReasons). */
export type FieldError = Omit<WireFieldError, 'reason'> & Partial<Pick<WireFieldError, 'reason'>>;

export const SERVICE_ERROR_KINDS = [
  'bad-request',
  'forbidden',
  'not-found',
  'already-exists',
  'conflict',
  'too-large',
  'unsupported-media-type',
  'invalid',
] as const;

export type ServiceErrorKind = (typeof SERVICE_ERROR_KINDS)[number];

export class ServiceError extends Error {
  /** every entry carries its reason, so that no path out of a use case can drop one */
  readonly errors?: WireFieldError[];

  constructor(
    readonly kind: ServiceErrorKind,
    readonly detail: string,
    errors?: readonly FieldError[],
  ) {
    super(detail);
    if (errors) this.errors = withReasons(errors);
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) => new ServiceError('bad-request', detail, errors);
export const forbidden = (detail: string, errors?: FieldError[]) => new ServiceError('forbidden', detail, errors);
export const notFound = (detail: string) => new ServiceError('not-found', detail);
export const alreadyExists = (detail: string) => new ServiceError('already-exists', detail);
export const conflict = (detail: string) => new ServiceError('conflict', detail);
export const invalid = (detail: string, errors?: FieldError[]) => new ServiceError('invalid', detail, errors);

/** The core's apply rejections speak in status codes; here they become kinds. */
const BY_STATUS: Record<number, ServiceErrorKind> = {
  400: 'bad-request', 403: 'forbidden', 404: 'not-found', 409: 'conflict', 413: 'too-large', 415: 'unsupported-media-type', 422: 'invalid',
};

export function fromStatus(status: 400 | 403 | 404 | 409 | 413 | 415 | 422, detail: string, errors?: FieldError[]): ServiceError {
  return new ServiceError(BY_STATUS[status], detail, errors);
}

/** The core's write decisions name their Kubernetes reason (core/objects/write.ts). */
const BY_DECISION: Record<'NotFound' | 'AlreadyExists' | 'Conflict', ServiceErrorKind> = {
  NotFound: 'not-found', AlreadyExists: 'already-exists', Conflict: 'conflict',
};

export function fromDecision(decision: { reason: 'NotFound' | 'AlreadyExists' | 'Conflict'; message: string }): ServiceError {
  return new ServiceError(BY_DECISION[decision.reason], decision.message);
}

export function isConflict(e: unknown): e is ServiceError {
  return e instanceof ServiceError && (e.kind === 'conflict' || e.kind === 'already-exists');
}
