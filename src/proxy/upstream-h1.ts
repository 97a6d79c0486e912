// One try of a forwarded request over HTTP/1.1, through the endpoint's undici pool: the try is the
// dispatch's handler, so no stream or listener is made for the backend's answer. Its head goes to
// the request (TryOwner.answered), which says whether the answer is passed on; a body passed on is
// written to the client as it comes, the backend paused while the client's socket is full; a body
// dropped (the answer is retried) is read to its end, so the connection is kept. Mirrors are sent
// the same way, their answers read and dropped.
import { PassThrough } from 'node:stream';
import { util as undiciUtil, type Dispatcher, type Pool } from 'undici';
import type { HeaderMap } from '../core/match/headers';
import { HOP_BY_HOP } from './http-common';
import { unreachable, type Req, type TryOwner, type UpstreamTry } from './upstream-try';

/** What a dispatch is given: undici's options, with the server name it reads for TLS. */
export type H1Request = Dispatcher.DispatchOptions & { servername?: string };

const ABORTED = new Error('the try was abandoned');

export class H1Try implements UpstreamTry, Dispatcher.DispatchHandlers {
  private abortDispatch: ((e?: Error) => void) | undefined = undefined;
  private resumeBackend: (() => void) | undefined = undefined;
  /** the answer goes to the client */
  private passing = false;
  private abandoned = false;

  constructor(private readonly owner: TryOwner, readonly n: number) {}

  start(pool: Pool, request: H1Request): void {
    pool.dispatch(request, this);
  }

  abort(): void {
    this.abandoned = true;
    this.passing = false;
    this.abortDispatch?.(ABORTED);
  }

  onConnect(abort: (e?: Error) => void): void {
    if (this.abandoned) abort(ABORTED);
    else this.abortDispatch = abort;
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    // 1xx: informational, the answer follows
    if (status < 200 || this.abandoned) return true;
    this.resumeBackend = resume;
    const { headers, cookies } = answerHeaders(raw);
    this.passing = this.owner.answered(this, status, headers, cookies);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (!this.passing) return true;
    if ((this.owner.res as NodeJS.WritableStream).write(chunk)) return true;
    this.owner.res.once('drain', this.resumeBackend!);
    return false;
  }

  onComplete(): void {
    if (!this.passing) return;
    this.passing = false;
    this.owner.res.end();
    this.owner.finished();
  }

  onError(e: Error): void {
    if (this.abandoned) return;
    if (this.passing) {
      // cut mid-answer: the client's answer is cut too
      this.passing = false;
      this.owner.res.destroy();
      this.owner.finished();
      return;
    }
    this.owner.failed(this, unreachable(e), 503);
  }
}

/** A mirror's answer: read and dropped, its failure ignored. */
const DROPPED: Dispatcher.DispatchHandlers = {
  onConnect: () => undefined,
  onHeaders: () => true,
  onData: () => true,
  onComplete: () => undefined,
  onError: () => undefined,
};

export function mirrorH1(pool: Pool, request: H1Request): void {
  pool.dispatch(request, DROPPED);
}

/** Headers the proxy sets itself or undici refuses (Expect: the client's 100-continue is the server's). */
const NOT_COPIED = new Set([...HOP_BY_HOP, 'host', 'x-request-id', 'x-forwarded-for', 'expect']);

/**
 * The headers sent to the backend, as undici's flat list: the decision's (the client's, filtered),
 * Host (rewritten or the client's), the request id, X-Forwarded-For with the client's address
 * appended, and X-Forwarded-Proto unless a filter set it.
 */
export function upstreamRequestHeaders(decided: HeaderMap, host: string, id: string, remoteAddress: string | undefined, proto: string): string[] {
  const out: string[] = [];
  for (const k in decided) if (!NOT_COPIED.has(k)) out.push(k, decided[k]);
  const xff = decided['x-forwarded-for'];
  out.push('host', host, 'x-request-id', id, 'x-forwarded-for', xff !== undefined ? `${xff}, ${remoteAddress ?? ''}` : remoteAddress ?? '');
  if (decided['x-forwarded-proto'] === undefined) out.push('x-forwarded-proto', proto);
  return out;
}

/** Whether the request comes with a body (a Content-Length above 0, chunks, or HTTP/2 DATA frames). */
export function hasBody(req: Req): boolean {
  const length = req.headers['content-length'];
  return length !== undefined ? length !== '0'
    : req.httpVersionMajor >= 2 ? !(req as { stream?: { endAfterHeaders?: boolean } }).stream?.endAfterHeaders
      : req.headers['transfer-encoding'] !== undefined;
}

/** The request's body as a dispatch sends it: none, or a stream of its own that the client's request is piped into (undici destroys the stream it is given once sent, and the client's request must outlive a failed try). */
export function streamedBody(req: Req): PassThrough | null {
  if (!hasBody(req)) return null;
  const body = new PassThrough();
  (req as NodeJS.ReadableStream).pipe(body);
  return body;
}

/** Answer headers of which only the first counts, as Node's own HTTP client reads them. */
const FIRST_ONLY = new Set(['content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization',
  'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires']);

/** The backend's answer headers as the client gets them: names in lower case, repeats joined, hop-by-hop ones left out, cookies apart. */
export function answerHeaders(raw: Buffer[]): { headers: HeaderMap; cookies: string[] | undefined } {
  // no prototype: any name is a header's, "constructor" too
  const headers = Object.create(null) as HeaderMap;
  let cookies: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = undiciUtil.headerNameToString(raw[i]);
    const value = raw[i + 1].toString('latin1');
    if (name === 'set-cookie') (cookies ??= []).push(value);
    else if (HOP_BY_HOP.has(name)) continue;
    else if (headers[name] === undefined) headers[name] = value;
    else if (!FIRST_ONLY.has(name)) headers[name] += `, ${value}`;
  }
  return { headers, cookies };
}
