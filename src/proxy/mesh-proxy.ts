// `switchyard proxy --mesh NS`: an outbound proxy for the clients of namespace NS (GAMMA), as a
// sidecar carries their requests, programmed from the mesh table of NS. Clients reach it as an HTTP
// proxy: an absolute-form request (`GET http://echo.ns:80/path`, Host as the client sets it) or a
// CONNECT tunnel (`CONNECT echo.ns.svc.cluster.local:7070`, then HTTP/1.1 or h2c inside, as gRPC
// clients do). The destination (what the client connects to, never its Host header) picks the
// Service, by cluster IP or by name (core/mesh/lookup), and the port; the Service port's table then
// decides exactly as resolve does, and the request is forwarded as the Gateway proxy forwards. A
// destination that is no Service (a pod's address) goes straight there: no route applies to it.
// The table is followed by long-poll; the last good one keeps serving while the API is away.
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { decideMesh, findTarget, isIP, portTable, splitAuthority, type MeshSnapshot, type MeshTable, type MeshTarget } from '../core/mesh';
import type { Decision } from '../core/resolve';
import type { ResolveRequest } from '../core/resolve/types';
import { ProxyMetrics } from './metrics';
import { accessLog, type AccessLog } from './access-log';
import { flatHeaders, grpcAnswer, GRPC_CODE, isGrpc, requestId, routeLabel, splitUrl } from './http-common';
import { forward } from './forward';
import { GatewaySeries } from './route-series';
import { Tables, type ServedTable } from './tables';
import { H2Pool } from './upstream-h2';
import { UpstreamPools } from './upstream-pools';
import { InFlight } from './in-flight';
import { listenOn } from './listener-servers';
import type { HandlerDeps } from './handler-deps';
import type { Req, Res } from './upstream-try';

export interface MeshProxyOptions {
  url: string;
  token: string;
  /** the client namespace */
  namespace: string;
  /** where clients reach the proxy (0: any free port) */
  port: number;
  host: string;
  /** 0: any free port */
  adminPort: number;
  accessLog: boolean;
  logLevel?: string;
  /** how long a long-poll is held by the API, seconds */
  waitSeconds?: number;
}

export interface RunningMeshProxy {
  port: number;
  adminPort: number;
  /** the mesh table served now, with its version */
  served(): { version: number; table: MeshTable } | undefined;
  stop(): Promise<void>;
}

/** The destination of a tunnel, kept on its socket (an h2c request's socket is its session's). */
const DESTINATION = 'switchyardMeshDestination';
const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n');

interface Held {
  version: number;
  table: MeshTable;
  /** the one-listener table of each Service port, made once per version */
  ports: Map<string, { served: ServedTable; fallback: boolean }>;
}

export async function startMeshProxy(o: MeshProxyOptions): Promise<RunningMeshProxy> {
  const log: AccessLog = accessLog(o.accessLog, o.logLevel);
  const metrics = new ProxyMetrics();
  const gateway = `mesh/${o.namespace}`;
  const deps: HandlerDeps = { tables: new Tables([]), metrics, log, pools: new UpstreamPools(), inflight: new InFlight(), h2: new H2Pool() };
  const seriesOf = new GatewaySeries(metrics, gateway);
  let held: Held | undefined;
  let stopped = false;
  let lastError: string | undefined;

  const servedFor = (h: Held, destination: string, defaultPort: number): { served: ServedTable; fallback: boolean; port: number } | undefined => {
    const target = findTarget(h.table, destination, defaultPort);
    if (!target) return undefined;
    const k = `${target.service.namespace}/${target.service.name}:${target.port.port}`;
    let hit = h.ports.get(k);
    if (!hit) {
      const { table, fallback } = portTable(h.table, target);
      hit = { served: { gateway, version: h.version, hash: '', table, secrets: [], appliedAt: Date.now() }, fallback };
      h.ports.set(k, hit);
    }
    return { ...hit, port: target.port.port };
  };

  const handler = (req: Req, res: Res): void => {
    const started = performance.now();
    const id = requestId(req.headers['x-request-id']);
    const grpc = isGrpc(req);
    const h = held;
    deps.inflight.begin();
    let route = '';
    res.on('close', () => {
      deps.inflight.end();
      if (log.enabled) log.request({ id, gateway, listener: '', route, method: req.method, path: req.url, host: String(req.headers.host ?? req.headers[':authority'] ?? ''), protocol: `HTTP/${req.httpVersion}`, code: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10, version: h?.version });
    });
    if (!h) {
      if (grpc) return grpcAnswer(res, GRPC_CODE.Unavailable, 'no mesh table yet');
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('no mesh table yet\n');
      return;
    }
    // the destination: the tunnel's, else the absolute URL's, else (a client that names no other) its Host
    let url = req.url ?? '/';
    let destination = (req.socket as unknown as Record<string, string | undefined>)[DESTINATION];
    if (!destination && /^http:\/\//i.test(url)) {
      const u = new URL(url);
      destination = u.port ? `${u.hostname}:${u.port}` : u.hostname;
      url = `${u.pathname}${u.search}`;
    }
    const authority = String(req.headers[':authority'] ?? req.headers.host ?? '');
    destination ??= authority;
    const [path, rawQuery] = splitUrl(url);
    const found = servedFor(h, destination, 80);
    let served: ServedTable;
    let d: Decision;
    if (found) {
      served = found.served;
      const asked: ResolveRequest = { protocol: grpc ? 'GRPC' : 'HTTP', port: found.port, hostname: authority, path, method: req.method ?? 'GET', headers: flatHeaders(req) };
      if (rawQuery !== undefined) asked.rawQuery = rawQuery;
      const { service, port } = findTarget(h.table, destination, 80)!;
      d = decideMesh(h.table, { service, port }, asked, { random: Math.random(), maxExplainedCandidates: 0 });
      route = found.fallback ? '' : routeLabel(d);
    } else {
      // no Service has this address: the client goes straight to it (a pod), and no route applies
      const { host, port } = splitAuthority(destination);
      if (!isIP(host)) {
        req.resume();
        if (grpc) return grpcAnswer(res, GRPC_CODE.Unavailable, `no Service ${destination} for clients in ${o.namespace}`);
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`no Service ${destination} for clients in namespace ${o.namespace}\n`);
        return;
      }
      const target = directTarget(o.namespace, host, port ?? 80);
      served = { gateway, version: h.version, hash: '', table: portTable(h.table, target).table, secrets: [], appliedAt: Date.now() };
      d = decideMesh(h.table, target, { protocol: grpc ? 'GRPC' : 'HTTP', port: port ?? 80, hostname: authority, path, method: req.method ?? 'GET', headers: flatHeaders(req), ...(rawQuery !== undefined ? { rawQuery } : {}) }, { random: Math.random(), maxExplainedCandidates: 0 });
    }
    const series = seriesOf.of(served, d.listener ?? '', route);
    if (grpc && (!d.forwarded || !d.target)) {
      req.resume();
      const code = d.grpcStatus ? GRPC_CODE[d.grpcStatus] ?? GRPC_CODE.Unavailable : d.statusCode === 404 ? GRPC_CODE.Unimplemented : GRPC_CODE.Unavailable;
      return grpcAnswer(res, code, d.statusCode === 404 ? 'no route matches this method' : 'no usable backend');
    }
    if (!d.forwarded || !d.target) {
      const body = d.statusCode === 404 ? 'no route matches\n' : d.statusCode === 500 ? 'no usable backend\n' : '';
      res.writeHead(d.statusCode ?? 500, { ...(body ? { 'content-type': 'text/plain' } : {}), ...(d.responseHeaders ?? {}) }).end(body);
      req.resume();
      return;
    }
    forward(deps, served, req, res, d, { path, rawQuery, authority, id, kind: 'http', grpc }, series);
  };

  const h1 = http.createServer(handler as http.RequestListener);
  h1.keepAliveTimeout = 65_000;
  const h2 = http2.createServer({}, handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  // HTTP/1.1 or h2c, told apart by the first bytes (on the proxy's port and inside a tunnel)
  const dispatch = (socket: net.Socket) => {
    socket.once('readable', () => {
      const head = socket.read(Math.min(H2_PREFACE.length, socket.readableLength)) as Buffer | null;
      if (head) socket.unshift(head);
      const isH2 = head !== null && head.length >= 3 && head.equals(H2_PREFACE.subarray(0, head.length));
      (isH2 ? h2 : h1).emit('connection', socket);
    });
  };
  // CONNECT host:port: the tunnel's requests go to that destination, whatever their Host says
  h1.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const destination = req.url ?? '';
    if (!destination || !/:\d+$/.test(destination)) {
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nCONNECT needs host:port\n');
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    (socket as unknown as Record<string, string>)[DESTINATION] = destination;
    if (head.length) socket.unshift(head);
    dispatch(socket);
  });
  const front = net.createServer(dispatch);
  await listenOn(front, o.port, o.host);
  const port = (front.address() as net.AddressInfo).port;

  const admin = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    const json = (code: number, body: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
    if (p === '/healthz') return json(200, { status: 'ok' });
    if (p === '/readyz') return json(held ? 200 : 503, { status: held ? 'ready' : 'no mesh table yet', namespace: o.namespace, version: held?.version ?? null, ...(lastError ? { lastError } : {}) });
    if (p === '/metrics') {
      void metrics.registry.metrics().then((text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text), () => res.writeHead(500).end());
      return;
    }
    json(404, { error: `no ${p} here: /healthz, /readyz, /metrics` });
  });
  await listenOn(admin as unknown as net.Server, o.adminPort, o.host);
  const adminPort = (admin.address() as net.AddressInfo).port;

  // the table, by long-poll: a new version is swapped in whole, between requests
  const abort = new AbortController();
  const follow = (async () => {
    let backoff = 100;
    while (!stopped) {
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${o.token}` };
        if (held) headers['if-none-match'] = `"${held.version}"`;
        const res = await fetch(`${o.url}/api/v1/namespaces/${encodeURIComponent(o.namespace)}/mesh/snapshot${held ? `?wait=${o.waitSeconds ?? 30}` : ''}`, { headers, signal: abort.signal });
        if (res.status === 200) {
          const snap = await res.json() as MeshSnapshot;
          if (!held || snap.version > held.version) {
            held = { version: snap.version, table: snap.table, ports: new Map() };
            log.info({ namespace: o.namespace, version: snap.version }, 'mesh table swapped in');
          }
          lastError = undefined;
          backoff = 100;
        } else if (res.status === 304) {
          backoff = 100;
        } else {
          lastError = `GET mesh snapshot: ${res.status} ${(await res.text()).slice(0, 200)}`;
          await new Promise((r) => setTimeout(r, backoff));
          backoff = Math.min(5000, backoff * 2);
        }
      } catch (e) {
        if (stopped) break;
        lastError = (e as Error).message;
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(5000, backoff * 2);
      }
    }
  })();

  log.info({ namespace: o.namespace, port, adminPort, api: o.url }, 'switchyard proxy started');
  let stopping: Promise<void> | null = null;
  return {
    port, adminPort,
    served: () => (held ? { version: held.version, table: held.table } : undefined),
    stop() {
      stopping ??= (async () => {
        stopped = true;
        abort.abort();
        await follow;
        front.close();
        h1.close();
        for (const s of sessions) s.close();
        const deadline = Date.now() + 5_000;
        while (deps.inflight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        h1.closeAllConnections();
        for (const s of sessions) s.destroy();
        await deps.pools.close();
        deps.h2.close();
        await new Promise<void>((r) => admin.close(() => r()));
        admin.closeAllConnections();
        log.info({}, 'switchyard proxy stopped');
      })();
      return stopping;
    },
  };
}

/** A destination that is no Service (a pod's address): a port no route governs, whose backend is the address itself. */
function directTarget(namespace: string, address: string, port: number): MeshTarget {
  const backend = { group: '', kind: 'Pod', namespace, name: address, port, weight: 1, valid: true, endpoints: [{ address, port }] };
  return { service: { namespace, name: address, clusterIPs: [address], ports: [] }, port: { port, protocol: 'TCP', backend } };
}
