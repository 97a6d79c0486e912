// What the proxy's HTTP paths share: which headers are the connection's, how a request's Host,
// headers and URL read, gRPC's own answers, the round-robin over a backend's endpoints, and which
// backends are spoken to in HTTP/2.
import type http from 'node:http';
import type { RequestHandler } from './listener-servers';
import type { CompiledBackend } from '../core/compile/types';
import type { Tables } from './tables';
import type { ProxyMetrics } from './metrics';
import type { AccessLog } from './access-log';
import type { H2Pool } from './upstream-h2';

type Req = Parameters<RequestHandler>[0];
type Res = Parameters<RequestHandler>[1];

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
export const GRPC_CODE: Record<string, number> = { Unimplemented: 12, Unavailable: 14, DeadlineExceeded: 4 };

/** A gRPC call: HTTP/2 with content-type application/grpc (+proto, +json ...). */
export function isGrpc(req: Req): boolean {
  return String(req.headers['content-type'] ?? '').startsWith('application/grpc');
}

/** The gateway's own answer to a gRPC call: HTTP 200 with the status in the headers (a trailers-only response). */
export function grpcAnswer(res: Res, code: number, message: string): void {
  res.writeHead(200, { 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) }).end();
}

/** HTTP/2 to the backend: every gRPC call, and backends whose appProtocol is kubernetes.io/h2c. */
export const speaksH2 = (b: CompiledBackend, grpc: boolean) => grpc || b.appProtocol === 'kubernetes.io/h2c';

/** Round-robin over each backend's endpoints, per backend. */
const cursors = new Map<string, number>();
export function endpointOf(b: CompiledBackend): { address: string; port: number } | undefined {
  if (b.endpoints.length === 0) return undefined;
  const key = `${b.namespace}/${b.name}:${b.port ?? ''}`;
  const i = cursors.get(key) ?? 0;
  cursors.set(key, (i + 1) % b.endpoints.length);
  return b.endpoints[i % b.endpoints.length];
}

/** The request's headers as the table matches them: HTTP/2's pseudo-headers and hop-by-hop ones left out. */
export function flatHeaders(req: Req): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k.startsWith(':')) continue;
    out[k] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

export function upstreamHeaders(res: http.IncomingMessage): Record<string, string> {
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

export function splitUrl(url: string): [string, string | undefined] {
  const q = url.indexOf('?');
  return q < 0 ? [url, undefined] : [url.slice(0, q), url.slice(q + 1)];
}
