// What one try of a forwarded request (upstream-h1.ts over undici, upstream-h2.ts over node:http2)
// and the request it belongs to (forward.ts: timeouts, retries) tell each other.
import type { HeaderMap } from '../core/match/headers';
import type { RequestHandler } from './listener-servers';

export type Res = Parameters<RequestHandler>[1];
export type Req = Parameters<RequestHandler>[0];

export interface TryOwner {
  /** the client's response, which a try passing its answer on writes */
  readonly res: Res;
  /**
   * The backend answered `t`: true when the answer goes to the client (its head is written, the try
   * passes the body on), false when it is dropped (the try drains it).
   */
  answered(t: UpstreamTry, status: number, headers: HeaderMap, cookies: string[] | undefined): boolean;
  /** `t` got no answer: a connection or TLS error (503), or no answer in time (504). */
  failed(t: UpstreamTry, why: string, code: number): void;
  /** the answer passed on is over (complete, or cut) */
  finished(): void;
}

export interface UpstreamTry {
  /** 1 for the first try */
  readonly n: number;
  /** ends the try; its events are ignored from then on */
  abort(): void;
}

/** Why a try failed, as the client reads it. */
export function unreachable(e: Error): string {
  return `the backend could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`;
}
