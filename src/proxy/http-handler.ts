// One HTTP request through the proxy: the table the Gateway serves now decides it (the core's own
// matcher, the same evaluation resolve answers with), and the proxy carries the decision out: an
// answer of the gateway's own (404, a redirect, a CORS preflight, 500 for an unusable backend's
// share; for gRPC a grpc-status), or the request forwarded (forward.ts).
import type { TLSSocket } from 'node:tls';
import type { PortKind, RequestHandler } from './listener-servers';
import { randomUUID } from 'node:crypto';
import { decide, type Decision } from '../core/resolve';
import { authorityOf, flatHeaders, grpcAnswer, GRPC_CODE, isGrpc, splitUrl, type HandlerDeps } from './http-common';
import { forward } from './forward';

type Req = Parameters<RequestHandler>[0];
type Res = Parameters<RequestHandler>[1];

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
    forward(deps, served, req, res, d, path, rawQuery, id, kind, grpc);
  };
}
