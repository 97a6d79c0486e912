// The API client, typed from openapi/ (src/generated/api.ts) through openapi-fetch. SWITCHYARD_URL
// (default http://localhost:8080) and SWITCHYARD_TOKEN come from the environment.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/api';

export type Api = Client<paths>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly problem?: { errors?: Record<string, unknown>[]; [k: string]: unknown },
  ) {
    super(detail);
  }
}

export interface Env {
  url: string;
  token?: string;
  namespace: string;
}

export function envOf(env: NodeJS.ProcessEnv = process.env): Env {
  return {
    url: (env.SWITCHYARD_URL || 'http://localhost:8080').replace(/\/+$/, ''),
    token: env.SWITCHYARD_TOKEN || undefined,
    namespace: env.SWITCHYARD_NAMESPACE || 'default',
  };
}

export function makeClient(env: Env): Api {
  return createClient<paths>({
    baseUrl: env.url,
    headers: env.token ? { authorization: `Bearer ${env.token}` } : {},
    querySerializer: { allowReserved: false },
  });
}

/** Turns an openapi-fetch result into its data, or an ApiError carrying the problem+json. */
export function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.response.ok && r.error === undefined) return r.data as T;
  throw toApiError(r.response, r.error);
}

export function toApiError(response: Response, error: unknown): ApiError {
  const problem = error && typeof error === 'object' ? (error as Record<string, unknown>) : undefined;
  const detail = typeof problem?.detail === 'string' ? problem.detail : typeof error === 'string' && error ? error : response.statusText;
  return new ApiError(response.status, detail, problem as ApiError['problem']);
}
