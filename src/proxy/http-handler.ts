// One HTTP request through the proxy: the table the Gateway serves now decides it (the core's own
// matcher, the same evaluation resolve answers with), and the proxy carries the decision out: an
// answer of the gateway's own (404, a redirect, a CORS preflight, 500 for an unusable backend's
// share), or the request forwarded to one endpoint of the chosen backend with the rule's filters
// applied, its timeouts enforced, mirrors sent, and the answer's headers filtered on the way back.
import http from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { PortKind, RequestHandler } from './listener-servers';
import { randomUUID } from 'node:crypto';
import { decide, type Decision } from '../core/resolve';
import type { CompiledBackend } from '../core/compile/types';
import type { Tables } from './tables';
import type { ProxyMetrics } from './metrics';
import type { AccessLog } from './access-log';

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the connection's, never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'http2-settings']);

export interface HandlerDeps {
  tables: Tables;
  metrics: ProxyMetrics;
  log: AccessLog;
  /** keep-alive connections to the endpoints */
  agent: http.Agent;
  /** requests in flight, for a graceful stop */
  inflight: Set<object>;
}

/** Round-robin over each backend's endpoints, per backend. */
const cursors = new Map<string, number>();
function endpointOf(b: CompiledBackend): { address: string; port: number } | undefined {
  if (b.endpoints.length === 0) return undefined;
  const key = `${b.namespace}/${b.name}:${b.port ?? ''}`;
  const i = cursors.get(key) ?? 0;
  cursors.set(key, (i + 1) % b.endpoints.length);
  return b.endpoints[i % b.endpoints.length];
}

type Req = Parameters<RequestHandler>[0];
type Res = Parameters<RequestHandler>[1];

/** The request's headers as the table matches them: HTTP/2's pseudo-headers and hop-by-hop ones left out. */
function flatHeaders(req: Req): Record<string, string> {
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
function authorityOf(req: Req): string {
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
    if (!served) {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('no route table yet\n');
      return;
    }
    const [path, rawQuery] = splitUrl(req.url ?? '/');
    const headers = flatHeaders(req);
    const sni = kind === 'https' ? (req.socket as TLSSocket).servername || '' : undefined;
    const d: Decision = decide(served.table, {
      protocol: kind === 'https' ? 'HTTPS' : 'HTTP', port, hostname: authorityOf(req), ...(sni !== undefined ? { sni } : {}), path, method: req.method ?? 'GET', headers,
      ...(rawQuery !== undefined ? { rawQuery } : {}),
    }, { random: Math.random(), maxExplainedCandidates: 0 });
    listenerLabel = d.listener ?? '';
    routeLabel = d.route ? `${d.route.kind}/${d.route.namespace ?? ''}/${d.route.name ?? ''}` : '';
    if (d.connectionRejected) {
      req.socket.destroy();
      return;
    }
    if (!d.forwarded || !d.target) {
      const body = d.statusCode === 404 ? 'no route matches\n' : d.statusCode === 500 ? 'no usable backend\n' : d.statusCode === 421 ? 'misdirected request: this connection\'s server name selects another listener\n' : '';
      res.writeHead(d.statusCode ?? 500, { ...(body ? { 'content-type': 'text/plain' } : {}), ...(d.responseHeaders ?? {}) }).end(body);
      req.resume();
      return;
    }
    forward(deps, req, res, d, path, rawQuery, id, kind);
  };
}

function splitUrl(url: string): [string, string | undefined] {
  const q = url.indexOf('?');
  return q < 0 ? [url, undefined] : [url.slice(0, q), url.slice(q + 1)];
}

function forward(deps: HandlerDeps, req: Req, res: Res, d: Decision, path: string, rawQuery: string | undefined, id: string, kind: PortKind): void {
  const target = d.target!;
  const ep = endpointOf(target);
  if (!ep) {
    res.writeHead(503, { 'content-type': 'text/plain' }).end('the backend has no endpoints\n');
    req.resume();
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
  const fail = (code: number, why: string) => {
    if (done) return;
    done = true;
    upstream.destroy();
    if (!res.headersSent) res.writeHead(code, { 'content-type': 'text/plain' }).end(`${why}\n`);
    else res.destroy();
  };
  const timers: NodeJS.Timeout[] = [];
  if (timeouts.requestMs) timers.push(setTimeout(() => fail(504, 'the request timed out'), timeouts.requestMs));
  if (timeouts.backendRequestMs) timers.push(setTimeout(() => fail(504, 'the backend did not answer in time'), timeouts.backendRequestMs));
  res.on('close', () => timers.forEach(clearTimeout));

  const upStarted = performance.now();
  const upstream = http.request({ host: ep.address, port: ep.port, method: req.method, path: outPath, headers, agent: deps.agent }, (up) => {
    deps.metrics.upstreamLatency.observe((performance.now() - upStarted) / 1000);
    if (done) return void up.resume();
    const out = d.respond ? d.respond(upstreamHeaders(up)) : upstreamHeaders(up);
    const cookies = up.headers['set-cookie'];
    res.writeHead(up.statusCode ?? 502, cookies ? { ...out, 'set-cookie': cookies } : out);
    up.pipe(res as NodeJS.WritableStream);
    up.on('end', () => {
      done = true;
      timers.forEach(clearTimeout);
    });
    up.on('error', () => res.destroy());
  });
  upstream.on('error', (e) => fail(502, `the backend could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`));
  req.on('data', (c: Buffer) => copy?.push(c));
  req.on('end', () => {
    if (copy) for (const m of mirrors) mirror(deps, m.backend!, req.method ?? 'GET', outPath, headers, Buffer.concat(copy));
  });
  (req as NodeJS.ReadableStream).pipe(upstream);
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
}

/** A copy of the request; its answer is read and dropped, its failure ignored. */
function mirror(deps: HandlerDeps, b: CompiledBackend, method: string, path: string, headers: Record<string, string>, body: Buffer): void {
  const ep = endpointOf(b);
  if (!ep) return;
  const r = http.request({ host: ep.address, port: ep.port, method, path, headers: { ...headers, 'content-length': String(body.length) }, agent: deps.agent }, (up) => up.resume());
  r.on('error', () => undefined);
  r.end(body);
}
