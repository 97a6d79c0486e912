// A request the table forwards, carried to one endpoint of the chosen backend: over HTTP/1.1
// (keep-alive), or HTTP/2 for gRPC and h2c backends, in TLS when the backend's BackendTLSPolicy says
// so; with the rule's timeouts (the request timeout over everything, the backend timeout per
// attempt), its retries (a response with a listed code, a connection error or a backend timeout, up to
// `attempts` more tries after `backoffMs`, within the request timeout) and its mirrors (copies sent,
// in TLS too when their backend's policy says so; answers dropped). The answer's headers go back through the response filters.
import http from 'node:http';
import https from 'node:https';
import type http2 from 'node:http2';
import type { Decision } from '../core/resolve';
import type { CompiledBackend } from '../core/compile/types';
import type { PortKind, RequestHandler } from './listener-servers';
import type { ServedTable } from './tables';
import { originateTLS, type OriginateTLS } from './backend-tls';
import { authorityOf, endpointOf, grpcAnswer, GRPC_CODE, HOP_BY_HOP, speaksH2, upstreamHeaders, type HandlerDeps } from './http-common';

type Req = Parameters<RequestHandler>[0];
type Res = Parameters<RequestHandler>[1];

/** Before a retry when the rule gives no backoff (Envoy's base interval). */
const DEFAULT_BACKOFF_MS = 25;

const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

export function forward(deps: HandlerDeps, served: ServedTable, req: Req, res: Res, d: Decision, path: string, rawQuery: string | undefined, id: string, kind: PortKind, grpc: boolean): void {
  const target = d.target!;
  if (target.endpoints.length === 0) {
    req.resume();
    if (grpc) return grpcAnswer(res, GRPC_CODE.Unavailable, 'the backend has no endpoints');
    res.writeHead(503, { 'content-type': 'text/plain' }).end('the backend has no endpoints\n');
    return;
  }
  const outPath = (d.rewrite?.path ?? path) + (rawQuery !== undefined ? `?${rawQuery}` : '');
  const headers: Record<string, string> = { ...(d.requestHeaders ?? {}) };
  headers.host = d.rewrite?.hostname ?? authorityOf(req);
  headers['x-request-id'] = id;
  const xff = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = `${typeof xff === 'string' ? `${xff}, ` : ''}${req.socket.remoteAddress ?? ''}`;
  headers['x-forwarded-proto'] ??= kind;
  const originate = originateTLS(served, target);
  const labels = { gateway: served.gateway, route: d.route ? `${d.route.kind}/${d.route.namespace ?? ''}/${d.route.name ?? ''}` : '' };

  const mirrors = (d.mirrors ?? []).map((m, i) => ({ percent: m.percent, backend: d.mirrorTargets?.[i] })).filter((m) => m.backend && m.backend.valid && Math.random() * 100 < m.percent);
  const retry = d.retry;
  const attempts = 1 + (retry?.attempts ?? 0);
  // the body is kept when a mirror needs a copy or a retry may send it again
  const keep: Buffer[] | null = mirrors.length || retry ? [] : null;

  const timeouts = d.timeouts ?? {};
  let done = false;
  let current: { destroy(): void } = { destroy: () => undefined };
  const timers: NodeJS.Timeout[] = [];
  const settle = () => {
    done = true;
    timers.forEach(clearTimeout);
  };
  const fail = (code: number, why: string) => {
    if (done) return;
    settle();
    current.destroy();
    if (res.headersSent) res.destroy();
    else if (grpc) grpcAnswer(res, code === 504 ? GRPC_CODE.DeadlineExceeded : GRPC_CODE.Unavailable, why);
    else res.writeHead(code, { 'content-type': 'text/plain' }).end(`${why}\n`);
  };
  if (timeouts.requestMs) timers.push(setTimeout(() => fail(504, 'the request timed out'), timeouts.requestMs));
  res.on('close', () => {
    timers.forEach(clearTimeout);
    if (!res.writableFinished) current.destroy();
  });

  /** One try; `body` is the whole request body when it was kept, else the try streams it. */
  const attempt = (n: number, body: Buffer | null) => {
    if (done) return;
    const ep = endpointOf(target)!;
    let over = false; // this try has its outcome
    const started = performance.now();
    const perTry = timeouts.backendRequestMs ? setTimeout(() => failed('the backend did not answer in time', 504), timeouts.backendRequestMs) : undefined;
    const again = () => {
      deps.metrics.retries.inc(labels);
      const t = setTimeout(() => attempt(n + 1, body), retry?.backoffMs ?? DEFAULT_BACKOFF_MS);
      timers.push(t);
    };
    // a connection error or a backend timeout: retried while tries are left
    function failed(why: string, code: number) {
      if (over || done) return;
      over = true;
      clearTimeout(perTry);
      up.destroy();
      deps.metrics.upstreamErrors.inc({ ...labels, reason: code === 504 ? 'timeout' : 'unreachable' });
      if (retry && n < attempts && body !== null) return again();
      fail(code, why);
    }
    /** the backend answered: retried when its code is listed and tries are left, else passed on */
    const answered = (status: number, upHeaders: Record<string, string>, cookies: string[] | undefined, drain: () => void): boolean => {
      if (over || done) {
        drain();
        return false;
      }
      over = true;
      clearTimeout(perTry);
      deps.metrics.upstreamLatency.observe(labels, (performance.now() - started) / 1000);
      if (retry && n < attempts && body !== null && retry.codes.includes(status)) {
        drain();
        again();
        return false;
      }
      const out = d.respond ? d.respond(upHeaders) : upHeaders;
      res.writeHead(status, cookies ? { ...out, 'set-cookie': cookies } : out);
      return true;
    };
    let up: http.ClientRequest | http2.ClientHttp2Stream;
    try {
      up = speaksH2(target, grpc)
        ? h2Try(deps, ep, originate, outPath, headers, req, grpc, answered, (why) => failed(why, 503), res, settle)
        : h1Try(ep, originate, outPath, headers, req, answered, (why) => failed(why, 503), res, settle, deps.agent);
    } catch (e) {
      clearTimeout(perTry);
      return fail(503, `the backend could not be reached (${(e as Error).message})`);
    }
    current = up;
    if (body !== null) up.end(body);
    else (req as NodeJS.ReadableStream).pipe(up);
  };

  if (keep) {
    req.on('data', (c: Buffer) => keep.push(c));
    req.on('end', () => {
      const body = Buffer.concat(keep);
      for (const m of mirrors) mirror(deps, served, m.backend!, req.method ?? 'GET', outPath, headers, body);
      attempt(1, body);
    });
  } else attempt(1, null);
}

type Answered = (status: number, headers: Record<string, string>, cookies: string[] | undefined, drain: () => void) => boolean;

function h1Try(ep: { address: string; port: number }, originate: OriginateTLS | undefined, path: string, headers: Record<string, string>, req: Req,
  answered: Answered, failed: (why: string) => void, res: Res, settle: () => void, agent: http.Agent): http.ClientRequest {
  const options: https.RequestOptions = { host: ep.address, port: ep.port, method: req.method, path, headers };
  const r = originate
    ? https.request({ ...options, agent: httpsAgent, servername: originate.servername, ca: originate.ca, cert: originate.cert, key: originate.key, checkServerIdentity: originate.checkServerIdentity })
    : http.request({ ...options, agent });
  r.on('response', (up) => {
    if (!answered(up.statusCode ?? 502, upstreamHeaders(up), up.headers['set-cookie'], () => up.resume())) return;
    up.pipe(res as NodeJS.WritableStream);
    up.on('end', settle);
    up.on('error', () => res.destroy());
  });
  r.on('error', (e) => failed(`the backend could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`));
  return r;
}

function h2Try(deps: HandlerDeps, ep: { address: string; port: number }, originate: OriginateTLS | undefined, path: string, headers: Record<string, string>, req: Req, grpc: boolean,
  answered: Answered, failed: (why: string) => void, res: Res, settle: () => void): http2.ClientHttp2Stream {
  const h2h: http2.OutgoingHttpHeaders = { ':method': req.method ?? 'GET', ':path': path, ':authority': headers.host, ':scheme': originate ? 'https' : 'http' };
  for (const [k, v] of Object.entries(headers)) if (k !== 'host') h2h[k] = v;
  // the one TE value HTTP/2 allows, which gRPC requires
  if (grpc) h2h.te = 'trailers';
  const stream = deps.h2.session(ep.address, ep.port, originate).request(h2h);
  let trailers: Record<string, string> | undefined;
  let passing = false;
  stream.on('response', (h) => {
    const cookies = h['set-cookie'];
    passing = answered(Number(h[':status'] ?? 502), h2Headers(h), Array.isArray(cookies) ? cookies : undefined, () => stream.resume());
  });
  stream.on('trailers', (t) => (trailers = h2Headers(t)));
  stream.on('data', (c: Buffer) => {
    if (passing) (res as NodeJS.WritableStream).write(c);
  });
  stream.on('end', () => {
    if (!passing) return;
    settle();
    // trailers (grpc-status) travel to HTTP/2 clients; an HTTP/1.1 answer has none
    if (trailers && 'stream' in res) res.addTrailers(trailers);
    res.end();
  });
  stream.on('error', (e) => (passing ? res.destroy() : failed(`the backend could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`)));
  return stream;
}

/** An HTTP/2 answer's headers as the client gets them: no pseudo-headers, no hop-by-hop ones, cookies apart. */
function h2Headers(h: http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || k.startsWith(':') || HOP_BY_HOP.has(k) || k === 'set-cookie') continue;
    out[k] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return out;
}

/** A copy of the request; its answer is read and dropped, its failure ignored. */
function mirror(deps: HandlerDeps, served: ServedTable, b: CompiledBackend, method: string, path: string, headers: Record<string, string>, body: Buffer): void {
  const ep = endpointOf(b);
  if (!ep) return;
  const options = { host: ep.address, port: ep.port, method, path, headers: { ...headers, 'content-length': String(body.length) } };
  const o = originateTLS(served, b);
  const r = o
    ? https.request({ ...options, agent: httpsAgent, servername: o.servername, ca: o.ca, cert: o.cert, key: o.key, checkServerIdentity: o.checkServerIdentity }, (up) => up.resume())
    : http.request({ ...options, agent: deps.agent }, (up) => up.resume());
  r.on('error', () => undefined);
  r.end(body);
}
