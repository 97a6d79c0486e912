// The gRPC server every API process runs on XDS_PORT: Envoy's aggregated discovery service, both
// variants, for proxy tokens. One place knows which stream serves which Gateway (XdsSessions).
// TLS and plaintext share the port, told apart by the first byte as the HTTP port does; plaintext
// is taken from loopback clients only, unless the operator says the network is theirs.
import * as grpc from '@grpc/grpc-js';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Authenticator } from '../../service/principal';
import { canReadSnapshot } from '../../service/access';
import type { SnapshotHub } from '../delivery/snapshots';
import type { DiscoveryRequest__Output } from '../../generated/xds/envoy/service/discovery/v3/DiscoveryRequest';
import type { DeltaDiscoveryRequest__Output } from '../../generated/xds/envoy/service/discovery/v3/DeltaDiscoveryRequest';
import type { Node__Output } from '../../generated/xds/envoy/config/core/v3/Node';
import { adsService } from './ads-service';
import { listen } from '../../runtime/listen';
import { DeltaStream, SotwStream, type DeltaResponse, type SotwResponse } from './ads-streams';
import { XdsTables, type GatewayTable } from './xds-tables';
import { XdsSessions } from './xds-sessions';
import type { ReportRow } from '../store/proxy-reports';
import { DEFAULT_REPORTS, XdsReports, type NodeReporter, type ReportMany, type XdsReportsOptions } from './xds-reports';
import type { GrpcServices, TrackedCall } from './services';

export const TOKEN_METADATA = 'switchyard.dev/token';
export const GATEWAY_METADATA = 'switchyard.dev/gateway';

export interface XdsServerOptions {
  port: number;
  host: string;
  tls: { cert: string; key: string };
  /** XDS_PLAINTEXT: plaintext from any client, for a network the operator secures */
  plaintextAnywhere: boolean;
  auth: Authenticator;
  hub: SnapshotHub;
  logger: Logger;
  metrics?: XdsMetrics;
  /** records what nodes acknowledged, for proxy-status (the proxy_reports table), many at once */
  report?: ReportMany;
  /** how reports are gathered and renewed (default DEFAULT_REPORTS) */
  reports?: Partial<XdsReportsOptions>;
  /** other services on the same server (the Linkerd APIs) */
  services?: GrpcServices[];
}

/** What the server counts (src/adapters/http/metrics.ts implements it). */
export interface XdsMetrics {
  streamOpened(variant: 'sotw' | 'delta'): () => void;
  /** `bytes`: the encoded resources the response carries */
  responded(variant: 'sotw' | 'delta', typeUrl: string, bytes: number): void;
  answered(kind: string, acked: boolean): void;
  /** seconds from a table version's arrival to its responses written */
  pushed(seconds: number): void;
}

export interface RunningXds {
  port: number;
  sessions: XdsSessions;
  close(): Promise<void>;
}

const TLS_HANDSHAKE = 0x16;
/** how long the streams' final statuses are given to reach their clients at shutdown */
const STATUS_GRACE_MS = 300;
const isLoopback = (a: string | undefined) => !!a && (a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.'));

class StreamError extends Error {
  constructor(readonly code: grpc.status, message: string) {
    super(message);
  }
}

function metadataString(node: Node__Output | null, key: string): string | undefined {
  const v = node?.metadata?.fields?.[key] as { stringValue?: string; string_value?: string } | undefined;
  return v?.stringValue ?? v?.string_value ?? undefined;
}

/** The principal and Gateway of a stream, from its call metadata and first request's node. */
async function authorize(auth: Authenticator, md: grpc.Metadata, node: Node__Output | null): Promise<{ gateway: string; principal: string }> {
  const header = md.get('authorization')[0];
  const bearer = typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : undefined;
  const token = bearer || metadataString(node, TOKEN_METADATA);
  if (!token) throw new StreamError(grpc.status.UNAUTHENTICATED, `no proxy token: send "authorization: Bearer <token>" or node metadata "${TOKEN_METADATA}"`);
  const p = await auth.authenticate(token);
  if (!p) throw new StreamError(grpc.status.UNAUTHENTICATED, 'unknown, revoked or expired token');
  const gateway = metadataString(node, GATEWAY_METADATA) || node?.cluster || '';
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(gateway);
  if (!m) throw new StreamError(grpc.status.INVALID_ARGUMENT, `name the Gateway as node.cluster "<namespace>/<name>" or node metadata "${GATEWAY_METADATA}" (got ${JSON.stringify(gateway)})`);
  if (canReadSnapshot(p, m[1], m[3]) !== 'with-secrets') throw new StreamError(grpc.status.PERMISSION_DENIED, `token "${p.name}" does not serve Gateway ${gateway}`);
  return { gateway, principal: p.name };
}

type Duplex<Req, Res> = grpc.ServerDuplexStream<Req, Res>;

/** One ADS stream: authorizes on its first request, follows its Gateway, answers its requests in order. */
function serveStream<Req extends { node: Node__Output | null }, Res>(
  opts: XdsServerOptions, tables: XdsTables, sessions: XdsSessions, reports: XdsReports | null, call: Duplex<Req, Res>, variant: 'sotw' | 'delta',
  handle: (proto: SotwStream | DeltaStream, req: Req) => { namesChanged: boolean } | null,
): void {
  // LOG_LEVEL=trace: each request, table and response with its time, to follow a change to a client
  const tracing = opts.logger.isLevelEnabled('trace');
  const send = (r: SotwResponse | DeltaResponse) => {
    if (ended) return;
    if (tracing) opts.logger.trace({ node: nodeId, type: r.type_url.slice(r.type_url.lastIndexOf('.') + 1), nonce: r.nonce, resources: r.resources.length }, 'xDS: response');
    if (opts.metrics) {
      let bytes = 0;
      for (const x of r.resources) bytes += 'resource' in x ? x.resource.value.length : x.value.length;
      opts.metrics.responded(variant, r.type_url, bytes);
    }
    call.write(r as Res);
  };
  const onAnswer = (kind: string, acked: boolean) => opts.metrics?.answered(kind, acked);
  const proto = variant === 'sotw' ? new SotwStream(send as (r: SotwResponse) => void, onAnswer) : new DeltaStream(send as (r: DeltaResponse) => void, onAnswer);
  let closeGauge: (() => void) | undefined;
  let ended = false;
  let session: { gateway: string } | undefined;
  let table: GatewayTable | undefined;
  let stopWatch: (() => void) | undefined;
  let sessionId: number | undefined;
  let nodeId = '';
  /** the table version last pushed, and the one whose push the node has acknowledged in full */
  let pushedVersion: number | null = null;
  let ackedVersion: number | null = null;
  let reporter: NodeReporter | undefined;
  let proxyId = '';
  // the node's report as it stands (batched by XdsReports: written if it changed); nothing to
  // make while neither the status nor the acknowledged version has changed since the last
  let reportedAt = '';
  const report = () => {
    if (!reporter) return;
    const at = `${proto.revision}/${ackedVersion}`;
    if (at === reportedAt) return;
    reportedAt = at;
    const status = proto.status();
    const nack = Object.entries(status).find(([, t]) => t?.nacked);
    const row: Omit<ReportRow, 'lastSeen'> = {
      proxyId, version: ackedVersion, hash: null,
      error: nack ? `${nack[0]} NACKED: ${nack[1]!.nacked!.error}`.slice(0, 1024) : null,
      xds: { variant, types: status as Record<string, { acked?: string }> },
    };
    reporter.update(row);
  };
  // requests are handled one at a time, in order (the first one waits for the token lookup)
  let queue: Promise<void> = Promise.resolve();

  const pushAll = () => {
    if (ended || !table) return;
    try {
      pushedVersion = table.version;
      proto.pushAll(tables.universe(table, proto.listenerNames()));
    } catch (err) {
      opts.logger.error({ err, gateway: session?.gateway }, 'xDS: translating or encoding a table failed');
    }
  };
  const end = (code: grpc.status, details: string) => {
    if (ended) return;
    ended = true;
    call.emit('error', { code, details, metadata: new grpc.Metadata() } as grpc.ServiceError);
  };
  const cleanup = () => {
    ended = true;
    closeGauge?.();
    closeGauge = undefined;
    reporter?.close();
    reporter = undefined;
    stopWatch?.();
    stopWatch = undefined;
    if (sessionId !== undefined) sessions.remove(sessionId);
  };

  call.on('data', (req: Req) => {
    if (tracing) {
      const r = req as { type_url?: string; response_nonce?: string; resource_names?: string[]; resource_names_subscribe?: string[] };
      opts.logger.trace({ node: nodeId || req.node?.id, type: r.type_url?.slice(r.type_url.lastIndexOf('.') + 1), nonce: r.response_nonce, names: (r.resource_names ?? r.resource_names_subscribe ?? []).length }, 'xDS: request');
    }
    queue = queue.then(async () => {
      if (ended) return;
      if (!session) {
        try {
          session = await authorize(opts.auth, call.metadata, req.node);
        } catch (e) {
          if (e instanceof StreamError) return end(e.code, e.message);
          opts.logger.warn({ err: e }, 'xDS: authorizing a stream failed');
          return end(grpc.status.UNAVAILABLE, 'the token could not be checked; try again');
        }
        if (ended) return;
        closeGauge = opts.metrics?.streamOpened(variant);
        nodeId = req.node?.id || call.getPeer();
        sessionId = sessions.add({ gateway: session.gateway, nodeId, variant, status: () => proto.status(), peer: call.getPeer() });
        proxyId = `xds:${nodeId}`.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 128);
        reporter = reports?.open(session.gateway, proxyId);
        stopWatch = tables.watch(session.gateway, (t) => {
          const started = performance.now();
          if (tracing) opts.logger.trace({ node: nodeId, version: t.version, loadMs: t.loadMs }, 'xDS: table');
          table = t;
          pushAll();
          opts.metrics?.pushed((performance.now() - started + t.loadMs) / 1000);
          // nothing this node holds changed: it is as up to date as the table
          if (proto.settled()) ackedVersion = pushedVersion;
          report();
        });
        table = await tables.current(session.gateway);
        if (ended) return;
      }
      // an answer (ACK, NACK) changes nothing to send: a new table is pushed when it arrives
      const r = handle(proto, req);
      if (r?.namesChanged) pushAll();
      if (proto.settled()) ackedVersion = pushedVersion;
      report();
    }).catch((err) => opts.logger.error({ err }, 'xDS: handling a request failed'));
  });
  call.on('end', () => {
    cleanup();
    if (!call.writableEnded) call.end();
  });
  call.on('error', cleanup);
  call.on('cancelled', cleanup);
  call.on('close', cleanup);
}

function errorText(e: { message?: string; code?: number } | null | undefined): string | undefined {
  if (!e) return undefined;
  return e.message || `code ${e.code ?? 0}`;
}

export async function startXdsServer(opts: XdsServerOptions): Promise<RunningXds> {
  const tables = new XdsTables(opts.hub);
  const sessions = new XdsSessions();
  const reports = opts.report ? new XdsReports(opts.report, opts.logger, { ...DEFAULT_REPORTS, ...opts.reports }) : null;
  const server = new grpc.Server({ 'grpc.max_concurrent_streams': 100_000 });
  const calls = new Set<TrackedCall>();
  const track = <T extends TrackedCall>(call: T) => {
    calls.add(call);
    const drop = () => calls.delete(call);
    call.on('close', drop);
    call.on('error', drop);
    call.on('cancelled', drop);
    return call;
  };
  server.addService(adsService(), {
    StreamAggregatedResources: (call: Duplex<DiscoveryRequest__Output, SotwResponse>) => serveStream(opts, tables, sessions, reports, track(call), 'sotw', (p, req) =>
      (p as SotwStream).request({ typeUrl: req.type_url, nonce: req.response_nonce, versionInfo: req.version_info, names: req.resource_names, error: req.error_detail ? errorText(req.error_detail) : undefined })),
    DeltaAggregatedResources: (call: Duplex<DeltaDiscoveryRequest__Output, DeltaResponse>) => serveStream(opts, tables, sessions, reports, track(call), 'delta', (p, req) =>
      (p as DeltaStream).request({ typeUrl: req.type_url, nonce: req.response_nonce, subscribe: req.resource_names_subscribe, unsubscribe: req.resource_names_unsubscribe, initial: req.initial_resource_versions ?? {}, error: req.error_detail ? errorText(req.error_detail) : undefined })),
  });
  for (const s of opts.services ?? []) s.register(server, track);
  const plain = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const secure = server.createConnectionInjector(grpc.ServerCredentials.createSsl(null, [{ private_key: Buffer.from(opts.tls.key), cert_chain: Buffer.from(opts.tls.cert) }], false));
  const sockets = new Set<Socket>();
  // no Nagle: a response written while a small frame of before (a WINDOW_UPDATE, a PING's answer)
  // is still unacknowledged would otherwise wait for the client's delayed ACK, some 40 ms a time
  const net: NetServer = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('readable', () => {
      const head = socket.read(1) as Buffer | null;
      if (!head) return void socket.destroy();
      socket.unshift(head);
      if (head[0] === TLS_HANDSHAKE) secure.injectConnection(socket);
      else if (opts.plaintextAnywhere || isLoopback(socket.remoteAddress)) plain.injectConnection(socket);
      // a token must not cross a network in the clear
      else socket.destroy();
    });
  });
  await listen(net, opts.port, opts.host, 'XDS_PORT');
  const port = (net.address() as { port: number }).port;
  opts.logger.info({ port, plaintextAnywhere: opts.plaintextAnywhere }, 'xDS server listening');
  return {
    port,
    sessions,
    async close() {
      // streams end UNAVAILABLE so that clients reconnect to another process; a client that tries
      // this one again finds the port closed
      const closed = new Promise<void>((resolve) => net.close(() => resolve()));
      for (const s of opts.services ?? []) s.drain?.();
      for (const c of [...calls]) c.emit('error', { code: grpc.status.UNAVAILABLE, details: 'server shutting down', metadata: new grpc.Metadata() });
      // a status goes out a moment after the stream is ended; no event says when it has
      if (calls.size || sockets.size) await new Promise((r) => setTimeout(r, STATUS_GRACE_MS));
      server.forceShutdown();
      await reports?.close();
      for (const s of opts.services ?? []) await s.close?.();
      plain.destroy();
      secure.destroy();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
