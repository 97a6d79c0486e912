// Which route kinds a listener can carry, by protocol (and, for TLS, by mode), limited to the
// features the GatewayClass claims.
import type { RouteKind } from '../model/kinds';

export const SUPPORTED_PROTOCOLS = ['HTTP', 'HTTPS', 'TLS', 'TCP', 'UDP'] as const;

const BY_PROTOCOL: Record<string, RouteKind[]> = {
  HTTP: ['HTTPRoute', 'GRPCRoute'],
  HTTPS: ['HTTPRoute', 'GRPCRoute'],
  TLS: ['TLSRoute'],
  TCP: ['TCPRoute'],
  UDP: ['UDPRoute'],
};

// A TLS listener that terminates hands on a plain stream: a TCPRoute can take it as well as a
// TLSRoute (as the implementations we compare with allow; the spec leaves it to the implementation).
const TLS_TERMINATE: RouteKind[] = ['TLSRoute', 'TCPRoute'];

/** Route kinds a listener of this protocol (and TLS mode) carries, among the claimed features (feature name = kind). */
export function protocolKinds(protocol: string, features: ReadonlySet<string>, tlsMode?: string): RouteKind[] {
  const kinds = protocol === 'TLS' && (tlsMode ?? 'Terminate') === 'Terminate' ? TLS_TERMINATE : BY_PROTOCOL[protocol] ?? [];
  return kinds.filter((k) => features.has(k));
}

/** Route kinds that carry hostnames matched against listener hostnames. */
export function kindHasHostnames(kind: string): boolean {
  return kind === 'HTTPRoute' || kind === 'GRPCRoute' || kind === 'TLSRoute';
}

/** Protocols whose listener hostname selects traffic (ignored for TCP and UDP). */
export function protocolHasHostname(protocol: string): boolean {
  return protocol === 'HTTP' || protocol === 'HTTPS' || protocol === 'TLS';
}
