// A request the table forwards, carried to one endpoint of the chosen backend: over HTTP/1.1
// (undici, upstream-h1.ts), or HTTP/2 for gRPC and h2c backends (upstream-h2.ts), in TLS when the
// backend's BackendTLSPolicy says so; with the rule's timeouts (the request timeout over everything,
// the backend timeout per try), its retries (a response with a listed code, a connection error or a
// backend timeout, up to `attempts` more tries after `backoffMs`, within the request timeout) and its
// mirrors (copies sent, in TLS too when their backend's policy says so; answers dropped). The answer's
// headers go back through the response filters.
import type { Dispatcher, Pool } from 'undici';
import type { Decision } from '../core/resolve';
import type { CompiledBackend, CompiledEndpoint } from '../core/compile/types';
import { backendKeyOf, setCookieHeader } from '../core/session/cookie';
import type { HeaderMap } from '../core/match/headers';
import type { PortKind } from './listener-servers';
import type { ServedTable } from './tables';
import type { RouteSeries } from './route-series';
import { originateTLS, type OriginateTLS } from './backend-tls';
import { endpointOf, grpcAnswer, GRPC_CODE, speaksH2 } from './http-common';
import type { HandlerDeps } from './handler-deps';
import { H1Try, mirrorH1, streamedBody, upstreamRequestHeaders } from './upstream-h1';
import { H2Try } from './upstream-h2';
import { unreachable, type Req, type Res, type TryOwner, type UpstreamTry } from './upstream-try';

/** Before a retry when the rule gives no backoff (Envoy's base interval). */
const DEFAULT_BACKOFF_MS = 25;

/** What the request forwarded needs to know of the request it comes from. */
export interface ForwardRequest {
  /** the path the table matched, and the query as it came */
  path: string;
  rawQuery: string | undefined;
  /** Host, or :authority */
  authority: string;
  id: string;
  kind: PortKind;
  grpc: boolean;
  /** the whole body, when it was read before (an ExternalAuth filter's forwardBody) */
  body?: Buffer;
}

/** Forwards the request; what it returns is told when the client's response closes. */
export function forward(deps: HandlerDeps, served: ServedTable, req: Req, res: Res, d: Decision, f: ForwardRequest, series: RouteSeries): Forwarding | undefined {
  const target = d.target!;
  if (target.endpoints.length === 0) {
    req.resume();
    if (f.grpc) grpcAnswer(res, GRPC_CODE.Unavailable, 'the backend has no endpoints');
    else res.writeHead(503, { 'content-type': 'text/plain' }).end('the backend has no endpoints\n');
    return undefined;
  }
  const fw = new Forwarding(deps, served, req, res, d, f, series);
  fw.start();
  return fw;
}

export class Forwarding implements TryOwner {
  private readonly target: CompiledBackend;
  private readonly originate: OriginateTLS | undefined;
  private readonly outPath: string;
  private readonly headers: string[];
  private readonly attempts: number;
  /** a rule that keeps sessions sends every try to one endpoint: the session's, or the one drawn for it */
  private readonly sessionEndpoint: CompiledEndpoint | undefined;
  /** the whole body, when it is kept (a retry may send it again, a mirror needs a copy) */
  private body: Buffer | null = null;
  private done = false;
  /** the try whose outcome counts; undefined between tries */
  private current: UpstreamTry | undefined = undefined;
  private tryStarted = 0;
  private requestTimer: NodeJS.Timeout | undefined = undefined;
  private tryTimer: NodeJS.Timeout | undefined = undefined;
  private backoffTimer: NodeJS.Timeout | undefined = undefined;

  constructor(private readonly deps: HandlerDeps, private readonly served: ServedTable, private readonly req: Req, readonly res: Res,
    private readonly d: Decision, private readonly f: ForwardRequest, private readonly series: RouteSeries) {
    this.target = d.target!;
    this.originate = originateTLS(served, this.target);
    this.outPath = (d.rewrite?.path ?? f.path) + (f.rawQuery !== undefined ? `?${f.rawQuery}` : '');
    this.headers = upstreamRequestHeaders(d.requestHeaders ?? {}, d.rewrite?.hostname ?? f.authority, f.id, req.socket.remoteAddress, f.kind);
    this.attempts = 1 + (d.retry?.attempts ?? 0);
    if (d.sessionPersistence) {
      const want = d.sessionValue?.endpoint;
      this.sessionEndpoint = (want && this.target.endpoints.find((e) => `${e.address}:${e.port}` === want)) || endpointOf(this.target);
    }
  }

  /** The Set-Cookie that starts the session (or refreshes its last use) on the backend and endpoint that answered. */
  private sessionCookie(): string | undefined {
    const sp = this.d.sessionPersistence;
    if (!sp || !this.sessionEndpoint) return undefined;
    const now = Math.floor(Date.now() / 1000);
    const ep = this.sessionEndpoint;
    const same = this.d.sessionValue && this.d.sessionValue.endpoint === `${ep.address}:${ep.port}`;
    return setCookieHeader(sp, { backend: backendKeyOf(this.target), endpoint: `${ep.address}:${ep.port}`, started: same ? this.d.sessionValue!.started : now, used: now });
  }

  start(): void {
    const requestMs = this.d.timeouts?.requestMs;
    if (requestMs) this.requestTimer = setTimeout(requestTimedOut, requestMs, this);
    const mirrors = this.d.mirrors?.length ? this.mirrorsDrawn() : [];
    if (this.f.body) {
      this.body = this.f.body;
      for (const m of mirrors) this.mirror(m);
      return this.attempt(1);
    }
    if (mirrors.length === 0 && !this.d.retry) return this.attempt(1);
    const chunks: Buffer[] = [];
    this.req.on('data', (c: Buffer) => chunks.push(c));
    // a stream an ExternalAuth filter paused after reading its start flows again
    this.req.resume();
    this.req.on('end', () => {
      this.body = Buffer.concat(chunks);
      for (const m of mirrors) this.mirror(m);
      this.attempt(1);
    });
  }

  /** The mirrors this request is copied to (each drawn by its percentage). */
  private mirrorsDrawn(): CompiledBackend[] {
    const out: CompiledBackend[] = [];
    this.d.mirrors!.forEach((m, i) => {
      const b = this.d.mirrorTargets?.[i];
      if (b && b.valid && Math.random() * 100 < m.percent) out.push(b);
    });
    return out;
  }

  private attempt(n: number): void {
    if (this.done) return;
    const ep = this.sessionEndpoint ?? endpointOf(this.target)!;
    const backendMs = this.d.timeouts?.backendRequestMs;
    this.tryStarted = performance.now();
    if (speaksH2(this.target, this.f.grpc)) {
      const t = new H2Try(this, n);
      this.current = t;
      if (backendMs) this.tryTimer = setTimeout(tryTimedOut, backendMs, this, t);
      t.start(() => this.deps.h2.session(ep.address, ep.port, this.originate), {
        method: this.req.method ?? 'GET', path: this.outPath, scheme: this.originate ? 'https' : 'http', headers: this.headers, grpc: this.f.grpc, body: this.body, req: this.req,
      });
      return;
    }
    const t = new H1Try(this, n);
    this.current = t;
    if (backendMs) this.tryTimer = setTimeout(tryTimedOut, backendMs, this, t);
    let pool: Pool;
    try {
      pool = this.deps.pools.pool(ep, this.originate);
    } catch (e) {
      return this.failed(t, unreachable(e as Error), 503);
    }
    t.start(pool, {
      method: (this.req.method ?? 'GET') as H1Method, path: this.outPath, headers: this.headers,
      body: this.body ?? streamedBody(this.req),
      ...(this.originate ? { servername: this.originate.servername } : {}),
    });
  }

  answered(t: UpstreamTry, status: number, headers: HeaderMap, cookies: string[] | undefined): boolean {
    if (t !== this.current || this.done) return false;
    clearTimeout(this.tryTimer);
    this.series.upstreamSeconds((performance.now() - this.tryStarted) / 1000);
    if (this.d.retry && t.n < this.attempts && this.body !== null && this.d.retry.codes.includes(status)) {
      this.current = undefined;
      this.again(t.n);
      return false;
    }
    const out = this.d.respond ? this.d.respond(headers) : headers;
    const session = this.sessionCookie();
    if (cookies || session) (out as Record<string, string | string[]>)['set-cookie'] = [...(cookies ?? []), ...(session ? [session] : [])];
    this.res.writeHead(status, out);
    return true;
  }

  failed(t: UpstreamTry, why: string, code: number): void {
    if (t !== this.current || this.done) return;
    this.current = undefined;
    clearTimeout(this.tryTimer);
    t.abort();
    this.series.upstreamError(code === 504 ? 'timeout' : 'unreachable');
    if (this.d.retry && t.n < this.attempts && this.body !== null) return this.again(t.n);
    this.fail(code, why);
  }

  finished(): void {
    this.settle();
  }

  /** The client's response closed: a try still running is ended. */
  closed(): void {
    if (this.done) return;
    this.settle();
    this.current?.abort();
    this.current = undefined;
  }

  private again(n: number): void {
    this.series.retried();
    this.backoffTimer = setTimeout(backedOff, this.d.retry?.backoffMs ?? DEFAULT_BACKOFF_MS, this, n + 1);
  }

  /** The gateway answers itself: the request is over. */
  fail(code: number, why: string): void {
    if (this.done) return;
    this.settle();
    this.current?.abort();
    this.current = undefined;
    const res = this.res;
    if (res.headersSent) res.destroy();
    else if (this.f.grpc) grpcAnswer(res, code === 504 ? GRPC_CODE.DeadlineExceeded : GRPC_CODE.Unavailable, why);
    else res.writeHead(code, { 'content-type': 'text/plain' }).end(`${why}\n`);
  }

  private settle(): void {
    this.done = true;
    clearTimeout(this.requestTimer);
    clearTimeout(this.tryTimer);
    clearTimeout(this.backoffTimer);
  }

  /** A copy of the request, over HTTP/1.1; its answer is read and dropped, its failure ignored. */
  private mirror(b: CompiledBackend): void {
    const ep = endpointOf(b);
    if (!ep) return;
    const o = originateTLS(this.served, b);
    try {
      mirrorH1(this.deps.pools.pool(ep, o), {
        method: (this.req.method ?? 'GET') as H1Method, path: this.outPath, headers: this.headers, body: this.body, ...(o ? { servername: o.servername } : {}),
      });
    } catch {
      // a mirror that cannot be sent is not the request's failure
    }
  }

  /** the backend timeout of try `t` is over */
  tryTimedOut(t: UpstreamTry): void {
    this.failed(t, 'the backend did not answer in time', 504);
  }

  /** the backoff before try `n` is over */
  backedOff(n: number): void {
    this.attempt(n);
  }
}

type H1Method = Dispatcher.HttpMethod;

// the timers call these with the request as their argument: no closure per request
function requestTimedOut(fw: Forwarding): void {
  fw.fail(504, 'the request timed out');
}

function tryTimedOut(fw: Forwarding, t: UpstreamTry): void {
  fw.tryTimedOut(t);
}

function backedOff(fw: Forwarding, n: number): void {
  fw.backedOff(n);
}
