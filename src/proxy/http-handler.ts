// One HTTP request through the proxy: the table the Gateway serves now decides it (the core's own
// matcher, the same evaluation resolve answers with), and the proxy carries the decision out: an
// answer of the gateway's own (404, a redirect, a CORS preflight, 500 for an unusable backend's
// share), or the request forwarded to one endpoint of the chosen backend with the rule's filters
// applied, its timeouts enforced, mirrors sent, and the answer's headers filtered on the way back.
import http from 'node:http';
import type http2 from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { PortKind, RequestHandler } from './listener-servers';
import { randomUUID } from 'node:crypto';
import { decide, type Decision } from '../core/resolve';
import type { CompiledBackend } from '../core/compile/types';
import type { Tables } from './tables';
import type { ProxyMetrics } from './metrics';
import type { AccessLog } from './access-log';
import type { H2Pool } from './upstream-h2';

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the connection's, never forwarded. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'http2-settings']);

export interface HandlerDeps {
  tables: Tables;
  metrics: ProxyMetrics;
  log: AccessLog;
  /** keep-alive connections to the endpoints */
  agent: http.Agent;
  /** requests in flight, for a graceful stop */
  inflight: Set<object>;
  /** HTTP/2 sessions to the endpoints that speak it (gRPC, appProtocol kubernetes.io/h2c) */
  h2: H2Pool;
}

/** gRPC status codes the gateway answers with itself. */
const GRPC_CODE: Record<string, number> = { Unimplemented: 12, Unavailable: 14, DeadlineExceeded: 4 };

/** A gRPC call: HTTP/2 with content-type application/grpc (+proto, +json ...). */
function isGrpc(req: Req): boolean {
  return String(req.headers['content-type'] ?? '').startsWith('application/grpc');
}

/** The gateway's own answer to a gRPC call: HTTP 200 with the status in the headers (a trailers-only response). */
function grpcAnswer(res: Res, code: number, message: string): void {
  res.writeHead(200, { 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) }).end();
}

/** HTTP/2 to the backend: every gRPC call, and backends whose appProtocol is kubernetes.io/h2c. */
const speaksH2 = (b: CompiledBackend, grpc: boolean) => grpc || b.appProtocol === 'kubernetes.io/h2c';

/** Round-robin over each backend's endpoints, per backend. */
const cursors = new Map<string, number>();
export function endpointOf(b: CompiledBackend): { address: string; port: number } | undefined {
  if (b.endpoints.length === 0) return undefined;
  const key = `${b.namespace}/${b.name}:${b.port ?? ''}`;
  const i = cursors.get(key) ?? 0;
  cursors.set(key, (i + 1) % b.endpoints.length);
  return b.endpoints[i % b.endpoints.length];
}

type Req = Parameters<RequestHandler>[0];
type Res = Parameters<RequestHandler>[1];

/** The request's headers as the table matches them: HTTP/2's pseudo-headers and hop-by-hop ones left out. */
export function flatHeaders(req: Req): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k.startsWith(':')) continue;
    out[k] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

function upstreamHeaders(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k === 'set-cookie') continue;
    out[k] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

/** Host, or HTTP/2's :authority. */
export function authorityOf(req: Req): string {
  const a = req.headers[':authority'];
  return (typeof a === 'string' ? a : undefined) ?? req.headers.host ?? '';
}

export function httpHandler(deps: HandlerDeps, gateway: string, port: number, kind: PortKind): RequestHandler {
  return (req: Req, res: Res): void => {
    const started = performance.now();
    const id = typeof req.headers['x-request-id'] === 'string' && /^[\w.:-]{1,128}$/.test(req.headers['x-request-id']) ? req.headers['x-request-id'] : randomUUID();
    const served = deps.tables.get(gateway)?.served; // read once: this request's table
    let routeLabel = '';
    let listenerLabel = '';
    deps.inflight.add(res);
    res.on('close', () => {
      deps.inflight.delete(res);
      const seconds = (performance.now() - started) / 1000;
      deps.metrics.requests.inc({ gateway, listener: listenerLabel, route: routeLabel, code: String(res.statusCode) });
      deps.log.request({ id, gateway, listener: listenerLabel, route: routeLabel, method: req.method, path: req.url, host: authorityOf(req), protocol: `HTTP/${req.httpVersion}`, code: res.statusCode, ms: Math.round(seconds * 1000 * 10) / 10, version: served?.version });
    });
    const grpc = isGrpc(req);
    if (!served) {
      if (grpc) return grpcAnswer(res, GRPC_CODE.Unavailable, 'no route table yet');
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('no route table yet\n');
      return;
    }
    const [path, rawQuery] = splitUrl(req.url ?? '/');
    const headers = flatHeaders(req);
    const sni = kind === 'https' ? (req.socket as TLSSocket).servername || '' : undefined;
    const d: Decision = decide(served.table, {
      protocol: grpc ? 'GRPC' : kind === 'https' ? 'HTTPS' : 'HTTP', port, hostname: authorityOf(req), ...(sni !== undefined ? { sni } : {}), path, method: req.method ?? 'GET', headers,
      ...(rawQuery !== undefined ? { rawQuery } : {}),
    }, { random: Math.random(), maxExplainedCandidates: 0 });
    listenerLabel = d.listener ?? '';
    routeLabel = d.route ? `${d.route.kind}/${d.route.namespace ?? ''}/${d.route.name ?? ''}` : '';
    if (d.connectionRejected) {
      req.socket.destroy();
      return;
    }
    if (grpc && (!d.forwarded || !d.target) && d.statusCode !== 421) {
      req.resume();
      const code = d.grpcStatus ? GRPC_CODE[d.grpcStatus] ?? GRPC_CODE.Unavailable : d.statusCode === 404 ? GRPC_CODE.Unimplemented : GRPC_CODE.Unavailable;
      return grpcAnswer(res, code, d.statusCode === 404 || d.grpcStatus === 'Unimplemented' ? 'no route matches this method' : 'no usable backend');
    }
    if (!d.forwarded || !d.target) {
      const body = d.statusCode === 404 ? 'no route matches\n' : d.statusCode === 500 ? 'no usable backend\n' : d.statusCode === 421 ? 'misdirected request: this connection\'s server name selects another listener\n' : '';
      res.writeHead(d.statusCode ?? 500, { ...(body ? { 'content-type': 'text/plain' } : {}), ...(d.responseHeaders ?? {}) }).end(body);
      req.resume();
      return;
    }
    forward(deps, req, res, d, path, rawQuery, id, kind, grpc);
  };
}

export function splitUrl(url: string): [string, string | undefined] {
  const q = url.indexOf('?');
  return q < 0 ? [url, undefined] : [url.slice(0, q), url.slice(q + 1)];
}

function forward(deps: HandlerDeps, req: Req, res: Res, d: Decision, path: string, rawQuery: string | undefined, id: string, kind: PortKind, grpc: boolean): void {
  const target = d.target!;
  const ep = endpointOf(target);
  if (!ep) {
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

  // the body is kept only when a mirror needs a copy of it
  const mirrors = (d.mirrors ?? []).map((m, i) => ({ percent: m.percent, backend: d.mirrorTargets?.[i] })).filter((m) => m.backend && m.backend.valid && Math.random() * 100 < m.percent);
  const copy: Buffer[] | null = mirrors.length ? [] : null;

  const timeouts = d.timeouts ?? {};
  let done = false;
  let upstream: { destroy(): void } = { destroy: () => undefined };
  const fail = (code: number, why: string) => {
    if (done) return;
    done = true;
    upstream.destroy();
    if (res.headersSent) res.destroy();
    else if (grpc) grpcAnswer(res, code === 504 ? GRPC_CODE.DeadlineExceeded : GRPC_CODE.Unavailable, why);
    else res.writeHead(code, { 'content-type': 'text/plain' }).end(`${why}\n`);
  };
  const timers: NodeJS.Timeout[] = [];
  if (timeouts.requestMs) timers.push(setTimeout(() => fail(504, 'the request timed out'), timeouts.requestMs));
  if (timeouts.backendRequestMs) timers.push(setTimeout(() => fail(504, 'the backend did not answer in time'), timeouts.backendRequestMs));
  res.on('close', () => timers.forEach(clearTimeout));
  const finished = () => {
    done = true;
    timers.forEach(clearTimeout);
  };
  /** the backend's answer's head, with the response filters applied */
  const head = (status: number, up: Record<string, string>, cookies: string[] | undefined) => {
    const out = d.respond ? d.respond(up) : up;
    res.writeHead(status, cookies ? { ...out, 'set-cookie': cookies } : out);
  };

  const upStarted = performance.now();
  const unreachable = (e: Error) => fail(502, `the backend could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`);
  let body: NodeJS.WritableStream;
  if (speaksH2(target, grpc)) {
    const h2h: http2.OutgoingHttpHeaders = { ':method': req.method ?? 'GET', ':path': outPath, ':authority': headers.host, ':scheme': 'http' };
    for (const [k, v] of Object.entries(headers)) if (k !== 'host') h2h[k] = v;
    // the one TE value HTTP/2 allows, which gRPC requires
    if (grpc) h2h.te = 'trailers';
    let stream: http2.ClientHttp2Stream;
    try {
      stream = deps.h2.session(ep.address, ep.port).request(h2h);
    } catch (e) {
      return unreachable(e as Error);
    }
    upstream = stream;
    body = stream;
    let trailers: Record<string, string> | undefined;
    stream.on('response', (h) => {
      deps.metrics.upstreamLatency.observe((performance.now() - upStarted) / 1000);
      if (done) return;
      const cookies = h['set-cookie'];
      head(Number(h[':status'] ?? 502), h2Headers(h), Array.isArray(cookies) ? cookies : undefined);
    });
    stream.on('trailers', (t) => (trailers = h2Headers(t)));
    stream.on('data', (c: Buffer) => {
      if (!done) (res as NodeJS.WritableStream).write(c);
    });
    stream.on('end', () => {
      if (done) return;
      finished();
      // trailers (grpc-status) travel to HTTP/2 clients; an HTTP/1.1 answer has none
      if (trailers && 'stream' in res) res.addTrailers(trailers);
      res.end();
    });
    stream.on('error', unreachable);
  } else {
    const h1 = http.request({ host: ep.address, port: ep.port, method: req.method, path: outPath, headers, agent: deps.agent }, (up) => {
      deps.metrics.upstreamLatency.observe((performance.now() - upStarted) / 1000);
      if (done) return void up.resume();
      head(up.statusCode ?? 502, upstreamHeaders(up), up.headers['set-cookie']);
      up.pipe(res as NodeJS.WritableStream);
      up.on('end', finished);
      up.on('error', () => res.destroy());
    });
    h1.on('error', unreachable);
    upstream = h1;
    body = h1;
  }
  req.on('data', (c: Buffer) => copy?.push(c));
  req.on('end', () => {
    if (copy) for (const m of mirrors) mirror(deps, m.backend!, req.method ?? 'GET', outPath, headers, Buffer.concat(copy));
  });
  (req as NodeJS.ReadableStream).pipe(body);
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
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
function mirror(deps: HandlerDeps, b: CompiledBackend, method: string, path: string, headers: Record<string, string>, body: Buffer): void {
  const ep = endpointOf(b);
  if (!ep) return;
  const r = http.request({ host: ep.address, port: ep.port, method, path, headers: { ...headers, 'content-length': String(body.length) }, agent: deps.agent }, (up) => up.resume());
  r.on('error', () => undefined);
  r.end(body);
}
