// Errors on the Kubernetes paths are meta/v1 Status objects, as kube-apiserver sends them: the
// StatusReason, the HTTP code, and for invalid objects a cause per field.
import type { KubeStatus, StatusCause } from './types';

const REASONS: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
  406: 'NotAcceptable', 409: 'Conflict', 410: 'Expired', 413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType',
  422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout',
};

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export function failure(code: number, message: string, reason?: string, details?: StatusDetails): KubeStatus {
  const status: KubeStatus = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message,
    reason: reason ?? REASONS[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest'), code,
  };
  if (details && Object.values(details).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0))) {
    const d: StatusDetails = {};
    if (details.name) d.name = details.name;
    if (details.group !== undefined) d.group = details.group;
    if (details.kind) d.kind = details.kind;
    if (details.causes?.length) d.causes = details.causes;
    if (details.retryAfterSeconds !== undefined) d.retryAfterSeconds = details.retryAfterSeconds;
    status.details = d;
  }
  return status;
}

/** The Status a successful delete answers when the object is gone at once. */
export function success(details: StatusDetails & { uid?: string }): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: '', reason: '', details, code: 200 } as KubeStatus;
}

/** Field errors as Kubernetes causes (`{path, message, reason}` → `{field, message, reason}`). */
export function causesOf(errors: readonly { path: string; message: string; reason?: string }[] | undefined): StatusCause[] {
  return (errors ?? []).map((e) => ({ reason: e.reason, message: e.message, field: e.path }));
}
