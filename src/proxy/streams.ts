// What TLS passthrough, terminated TLSRoutes and TCPRoutes share: the decision for a connection
// (the core's matcher, read from the table the Gateway serves when the connection opens, so the
// connection keeps the backend it chose across swaps) and the splice of its bytes to one endpoint.
import net from 'node:net';
import tls from 'node:tls';
import type { OriginateTLS } from './backend-tls';
import { randomUUID } from 'node:crypto';
import { decide, type Decision } from '../core/resolve';
import type { CompiledEndpoint } from '../core/compile/types';
import type { ServedTable, Tables } from './tables';
import type { ProxyMetrics } from './metrics';
import type { AccessLog } from './access-log';
import type { EndpointPicker } from './endpoints';
import type { InFlight } from './in-flight';

export interface StreamDeps {
  tables: Tables;
  metrics: ProxyMetrics;
  log: AccessLog;
  endpoints: EndpointPicker;
  /** connections open, for a graceful stop */
  inflight: InFlight;
  /** how long a UDP session lives without a datagram either way, ms */
  udpIdleMs: number;
}

export interface StreamChoice {
  served: ServedTable;
  decision: Decision;
  /** the endpoint the connection goes to; absent when it is refused */
  endpoint?: CompiledEndpoint;
  route: string;
}

/** Where a new connection (or UDP session) goes, on the table served now. */
export function chooseStream(deps: StreamDeps, gateway: string, port: number, protocol: 'TLS' | 'TCP' | 'UDP', sni?: string): StreamChoice | undefined {
  const served = deps.tables.get(gateway)?.served;
  if (!served) return undefined;
  const decision = decide(served.table, { protocol, port, ...(sni !== undefined ? { sni } : {}) }, { random: Math.random(), maxExplainedCandidates: 0 });
  const route = decision.route ? `${decision.route.kind}/${decision.route.namespace ?? ''}/${decision.route.name ?? ''}` : '';
  const endpoint = decision.forwarded && decision.target?.valid ? deps.endpoints.next(decision.target) : undefined;
  return { served, decision, route, ...(endpoint ? { endpoint } : {}) };
}

/** Counts and logs a connection's outcome. */
export function countConnection(deps: StreamDeps, gateway: string, c: StreamChoice | undefined, protocol: string, outcome: 'forwarded' | 'refused'): void {
  deps.metrics.connections.inc({ gateway, listener: c?.decision.listener ?? '', route: c?.route ?? '', protocol, outcome });
}

/** One access log line for a connection or UDP session once it is over, with an id of its own. */
export function logStream(deps: StreamDeps, gateway: string, c: StreamChoice, protocol: string, fields: Record<string, unknown>): void {
  deps.log.request({
    id: randomUUID(), gateway, listener: c.decision.listener ?? '', route: c.route, protocol, version: c.served.version,
    ...(c.endpoint ? { endpoint: `${c.endpoint.address}:${c.endpoint.port}` } : {}), ...fields,
  });
}

/**
 * Carries the bytes both ways between a client connection and an endpoint, half-closes included
 * (a FIN from one side ends the other's writing, not its reading). `head` is what was already read
 * from the client. The connection is counted in flight until both sides are closed.
 */
export function splice(deps: StreamDeps, client: net.Socket, ep: CompiledEndpoint, head?: Buffer, done?: (fields: Record<string, unknown>) => void, originate?: OriginateTLS): void {
  const started = performance.now();
  // a terminated TLSRoute's backend with a BackendTLSPolicy is spoken to in TLS again
  const up = originate
    ? tls.connect({ socket: net.connect({ host: ep.address, port: ep.port, allowHalfOpen: true, noDelay: true }), servername: originate.servername, ca: originate.ca, cert: originate.cert, key: originate.key, checkServerIdentity: originate.checkServerIdentity })
    : net.connect({ host: ep.address, port: ep.port, allowHalfOpen: true, noDelay: true });
  deps.inflight.begin();
  let closed = 0;
  const onClose = () => {
    if (++closed !== 2) return;
    deps.inflight.end();
    done?.({ bytesIn: client.bytesRead, bytesOut: client.bytesWritten, ms: Math.round((performance.now() - started) * 10) / 10 });
  };
  up.on('close', onClose);
  client.on('close', onClose);
  // an error on either side ends both: the other learns by a reset, not by silence
  up.on('error', () => reset(client));
  client.on('error', () => up.destroy());
  up.on('close', () => client.destroy());
  client.on('close', () => up.destroy());
  if (head?.length) up.write(head);
  client.pipe(up);
  up.pipe(client);
}

/** Ends a connection with a reset where the socket allows it (a TCP one), else just closes it. */
export function reset(socket: net.Socket): void {
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
