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

/** Route kinds a listener of this protocol carries, among the claimed features (feature name = kind). */
export function protocolKinds(protocol: string, features: ReadonlySet<string>): RouteKind[] {
  return (BY_PROTOCOL[protocol] ?? []).filter((k) => features.has(k));
}

/** Route kinds that carry hostnames matched against listener hostnames. */
export function kindHasHostnames(kind: string): boolean {
  return kind === 'HTTPRoute' || kind === 'GRPCRoute' || kind === 'TLSRoute';
}

/** Protocols whose listener hostname selects traffic (ignored for TCP and UDP). */
export function protocolHasHostname(protocol: string): boolean {
  return protocol === 'HTTP' || protocol === 'HTTPS' || protocol === 'TLS';
}
