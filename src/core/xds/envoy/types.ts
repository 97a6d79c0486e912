// The Envoy translation's output: plain objects in the form ../types.ts describes (proto field
// names, Any as {'@type', ...}), typed loosely here because an Envoy listener or route carries far
// more of the protos than the proxyless subset; the tests encode every one with the real protos,
// which refuse a field a message does not have.
import type { Unsupported } from '../types';

export type Msg = { [field: string]: unknown };

export const ADS = { ads: {}, resource_api_version: 'V3' } as const;

export const T = {
  hcm: 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
  router: 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
  fault: 'type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault',
  cors: 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors',
  corsPolicy: 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy',
  tcpProxy: 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
  udpProxy: 'type.googleapis.com/envoy.extensions.filters.udp.udp_proxy.v3.UdpProxyConfig',
  udpRoute: 'type.googleapis.com/envoy.extensions.filters.udp.udp_proxy.v3.Route',
  tlsInspector: 'type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector',
  downstreamTls: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext',
  upstreamTls: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
  httpOptions: 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
} as const;

export const FILTER = {
  cors: 'envoy.filters.http.cors',
  fault: 'envoy.filters.http.fault',
  router: 'envoy.filters.http.router',
  hcm: 'envoy.filters.network.http_connection_manager',
  tcpProxy: 'envoy.filters.network.tcp_proxy',
  udpProxy: 'envoy.filters.udp_listener.udp_proxy',
  tlsInspector: 'envoy.filters.listener.tls_inspector',
  tls: 'envoy.transport_sockets.tls',
  httpOptions: 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
} as const;

/** What an Envoy node is sent for one table: each kind by name, and what it could not be given. */
export interface EnvoyResources {
  listener: Map<string, Msg>;
  route: Map<string, Msg>;
  cluster: Map<string, Msg>;
  endpoint: Map<string, Msg>;
  secret: Map<string, Msg>;
  unsupported: Unsupported[];
}

export function duration(ms: number): { seconds: number; nanos?: number } {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms % 1000) * 1_000_000;
  return nanos ? { seconds, nanos } : { seconds };
}

const RE2_SPECIAL = /[\\^$.|?*+()[\]{}]/g;
/** A literal inside an RE2 pattern. */
export const quoteRe2 = (s: string): string => s.replace(RE2_SPECIAL, '\\$&');
