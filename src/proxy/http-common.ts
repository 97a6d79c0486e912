// What the proxy's HTTP paths share: which headers are the connection's, how a request's Host,
// headers, URL and id read, the route label, gRPC's own answers, the round-robin over a backend's endpoints, and which
// backends are spoken to in HTTP/2.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from './listener-servers';
import type { CompiledBackend, CompiledEndpoint } from '../core/compile/types';
import type { Decision } from '../core/resolve';
import { EndpointPicker } from './endpoints';

type Req = Parameters<RequestHandler>[0];
type Res = Parameters<RequestHandler>[1];

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the connection's, never forwarded. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'http2-settings']);

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

/** Round-robin over each backend's endpoints, a cursor per backend shared by every HTTP port. */
const httpEndpoints = new EndpointPicker();
export function endpointOf(b: CompiledBackend): CompiledEndpoint | undefined {
  return httpEndpoints.next(b);
}

/** The request's headers as the table matches them: HTTP/2's pseudo-headers and hop-by-hop ones left out. */
export function flatHeaders(req: Req): Record<string, string> {
  const out: Record<string, string> = {};
  const all = req.headers;
  for (const k in all) {
    const v = all[k];
    if (v === undefined || HOP_BY_HOP.has(k) || k.charCodeAt(0) === 58 /* : */) continue;
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

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A request's own id (X-Request-Id) when it brings a usable one, else a new one. */
export function requestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The route label of metrics and logs: kind/namespace/name, or '' when no route took the request. */
export function routeLabel(d: Decision): string {
  return d.route ? `${d.route.kind}/${d.route.namespace ?? ''}/${d.route.name ?? ''}` : '';
}
