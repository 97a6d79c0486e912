// One HTTP request through the proxy: the table the Gateway serves now decides it (the core's own
// matcher, the same evaluation resolve answers with), and the proxy carries the decision out: an
// answer of the gateway's own (404, a redirect, a CORS preflight, 500 for an unusable backend's
// share; for gRPC a grpc-status), or the request forwarded (forward.ts). When the response closes
// the request is counted and logged (one listener function for every request, its state on the
// response).
import type { TLSSocket } from 'node:tls';
import type { PortKind, RequestHandler } from './listener-servers';
import { decide, type Decision } from '../core/resolve';
import type { ResolveRequest } from '../core/resolve/types';
import { authorityOf, flatHeaders, grpcAnswer, GRPC_CODE, isGrpc, requestId, routeLabel, splitUrl } from './http-common';
import type { HandlerDeps } from './handler-deps';
import { forward, type Forwarding, type ForwardRequest } from './forward';
import { authorize, readBodyHead } from './external-auth';
import { GatewaySeries, type RouteSeries } from './route-series';
import type { ServedTable } from './tables';
import type { Req, Res } from './upstream-try';

/** What the response's close reports: kept on the response under this key. */
const RECORD = Symbol('switchyard.request');

class RequestRecord {
  forwarding: Forwarding | undefined = undefined;

  constructor(readonly deps: HandlerDeps, readonly gateway: string, readonly req: Req, readonly id: string, readonly authority: string,
    readonly served: ServedTable | undefined, readonly started: number, public series: RouteSeries) {}
}

type Recorded = Res & { [RECORD]?: RequestRecord };

function responseClosed(this: Recorded): void {
  const r = this[RECORD]!;
  // what the request held is let go now, not when its connection lets go of the response
  this[RECORD] = undefined;
  r.forwarding?.closed();
  r.deps.inflight.end();
  const series = r.series;
  series.answered(this.statusCode);
  if (!r.deps.log.enabled) return;
  const req = r.req;
  r.deps.log.request({
    id: r.id, gateway: r.gateway, listener: series.listener, route: series.route, method: req.method, path: req.url, host: r.authority, protocol: `HTTP/${req.httpVersion}`,
    code: this.statusCode, ms: Math.round((performance.now() - r.started) * 10) / 10, version: r.served?.version,
  });
}

export function httpHandler(deps: HandlerDeps, gateway: string, port: number, kind: PortKind): RequestHandler {
  const seriesOf = new GatewaySeries(deps.metrics, gateway);
  const protocol = kind === 'https' ? 'HTTPS' : 'HTTP';
  return (req: Req, res: Res): void => {
    const started = performance.now();
    const id = requestId(req.headers['x-request-id']);
    const served = deps.tables.get(gateway)?.served; // read once: this request's table
    const authority = authorityOf(req);
    // counted without a listener or route until the table decides
    const record = new RequestRecord(deps, gateway, req, id, authority, served, started, seriesOf.of(served, '', ''));
    (res as Recorded)[RECORD] = record;
    deps.inflight.begin();
    res.on('close', responseClosed);
    const grpc = isGrpc(req);
    if (!served) {
      if (grpc) return grpcAnswer(res, GRPC_CODE.Unavailable, 'no route table yet');
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('no route table yet\n');
      return;
    }
    const [path, rawQuery] = splitUrl(req.url ?? '/');
    const asked: ResolveRequest = { protocol: grpc ? 'GRPC' : protocol, port, hostname: authority, path, method: req.method ?? 'GET', headers: flatHeaders(req) };
    if (kind === 'https') asked.sni = (req.socket as TLSSocket).servername || '';
    if (rawQuery !== undefined) asked.rawQuery = rawQuery;
    const d: Decision = decide(served.table, asked, { random: Math.random(), maxExplainedCandidates: 0, nowSeconds: Math.floor(Date.now() / 1000) });
    const series = seriesOf.of(served, d.listener ?? '', routeLabel(d));
    record.series = series;
    if (d.connectionRejected) {
      req.socket.destroy();
      return;
    }
    const f = { path, rawQuery, authority, id, kind, grpc };
    const auth = d.externalAuthConfig;
    if (auth) {
      // the rule's ExternalAuth filter: nothing of what follows happens unless the server allows it
      const ask = (body: { head: Buffer; partial: boolean } | undefined, whole: Buffer | undefined) => authorize(auth, { req, path, rawQuery, authority, scheme: kind === 'https' ? 'https' : 'http', id, ...(body ? { body } : {}) }).then((o) => {
        if (res.writableEnded || res.destroyed) return;
        if (!o.allow) {
          req.resume();
          res.writeHead(o.status, o.headers).end(o.body);
          return;
        }
        const allowed = Object.keys(o.headers).length ? { ...d, requestHeaders: { ...d.requestHeaders, ...o.headers } } : d;
        carryOut(deps, served, req, res, allowed, whole ? { ...f, body: whole } : f, series, record);
      }, (e: Error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(`authorization failed: ${e.message}\n`);
      });
      if (!auth.forwardBodyMaxSize) {
        void ask(undefined, undefined);
        return;
      }
      // forwardBody: the body's first maxSize bytes are read first (within the filter's timeout)
      void readBodyHead(req, auth.forwardBodyMaxSize, auth.timeoutMs).then((b) => {
        if (res.writableEnded || res.destroyed) return;
        if (!b.ok) {
          if (b.why === 'aborted') return void res.destroy();
          // a body that does not come in time: 408, and the connection is not kept
          res.writeHead(408, { 'content-type': 'text/plain', ...(req.httpVersionMajor < 2 ? { connection: 'close' } : {}) }).end('the request body did not arrive in time\n');
          return;
        }
        void ask({ head: b.head, partial: !b.complete }, b.complete ? b.head : undefined);
      });
      return;
    }
    carryOut(deps, served, req, res, d, f, series, record);
  };
}

/** What the decision says, carried out: the gateway's own answer, or the request forwarded. */
function carryOut(deps: HandlerDeps, served: ServedTable, req: Req, res: Res, d: Decision, f: ForwardRequest, series: RouteSeries, record: RequestRecord): void {
  const grpc = f.grpc;
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
  record.forwarding = forward(deps, served, req, res, d, f, series);
}
