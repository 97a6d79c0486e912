// The object kinds Switchyard stores, with the API versions each accepts and the schema that
// validates each version. Versions that share a schema upstream share one here.

export type Scope = 'Cluster' | 'Namespaced';

export interface KindInfo {
  kind: string;
  plural: string;
  group: string; // '' for the core group
  scope: Scope;
  /** apiVersion -> component schema name in openapi/schemas */
  versions: Record<string, string>;
  /** the apiVersion named first in the contract */
  preferredVersion: string;
}

const GW = 'gateway.networking.k8s.io';

export const KINDS: readonly KindInfo[] = [
  { kind: 'GatewayClass', plural: 'gatewayclasses', group: GW, scope: 'Cluster',
    versions: { [`${GW}/v1`]: 'GatewayClass', [`${GW}/v1beta1`]: 'GatewayClass' }, preferredVersion: `${GW}/v1` },
  { kind: 'Gateway', plural: 'gateways', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'Gateway', [`${GW}/v1beta1`]: 'Gateway' }, preferredVersion: `${GW}/v1` },
  { kind: 'HTTPRoute', plural: 'httproutes', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'HTTPRoute', [`${GW}/v1beta1`]: 'HTTPRoute' }, preferredVersion: `${GW}/v1` },
  { kind: 'GRPCRoute', plural: 'grpcroutes', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'GRPCRoute' }, preferredVersion: `${GW}/v1` },
  { kind: 'TLSRoute', plural: 'tlsroutes', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'TLSRoute', [`${GW}/v1alpha3`]: 'TLSRoute', [`${GW}/v1alpha2`]: 'TLSRouteV1alpha2' },
    preferredVersion: `${GW}/v1` },
  { kind: 'TCPRoute', plural: 'tcproutes', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'TCPRoute', [`${GW}/v1alpha2`]: 'TCPRouteV1alpha2' }, preferredVersion: `${GW}/v1` },
  { kind: 'UDPRoute', plural: 'udproutes', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'UDPRoute', [`${GW}/v1alpha2`]: 'UDPRouteV1alpha2' }, preferredVersion: `${GW}/v1` },
  { kind: 'ReferenceGrant', plural: 'referencegrants', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'ReferenceGrant', [`${GW}/v1beta1`]: 'ReferenceGrant' }, preferredVersion: `${GW}/v1` },
  { kind: 'BackendTLSPolicy', plural: 'backendtlspolicies', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'BackendTLSPolicy', [`${GW}/v1alpha3`]: 'BackendTLSPolicy' }, preferredVersion: `${GW}/v1` },
  // served in apis/v1 (standard and experimental channels) at the corpus's upstream commit; the
  // x-k8s.io XListenerSet of earlier releases is gone there
  { kind: 'ListenerSet', plural: 'listenersets', group: GW, scope: 'Namespaced',
    versions: { [`${GW}/v1`]: 'ListenerSet' }, preferredVersion: `${GW}/v1` },
  { kind: 'Namespace', plural: 'namespaces', group: '', scope: 'Cluster',
    versions: { v1: 'Namespace' }, preferredVersion: 'v1' },
  { kind: 'Service', plural: 'services', group: '', scope: 'Namespaced',
    versions: { v1: 'Service' }, preferredVersion: 'v1' },
  { kind: 'EndpointSlice', plural: 'endpointslices', group: 'discovery.k8s.io', scope: 'Namespaced',
    versions: { 'discovery.k8s.io/v1': 'EndpointSlice' }, preferredVersion: 'discovery.k8s.io/v1' },
  { kind: 'Secret', plural: 'secrets', group: '', scope: 'Namespaced',
    versions: { v1: 'Secret' }, preferredVersion: 'v1' },
  { kind: 'ConfigMap', plural: 'configmaps', group: '', scope: 'Namespaced',
    versions: { v1: 'ConfigMap' }, preferredVersion: 'v1' },
];

export const ROUTE_KINDS = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

const byKind = new Map(KINDS.map((k) => [k.kind, k]));
const byPlural = new Map(KINDS.map((k) => [k.plural, k]));

export function kindInfo(kind: string): KindInfo | undefined {
  return byKind.get(kind);
}

export function kindByPlural(plural: string): KindInfo | undefined {
  return byPlural.get(plural);
}

export function isRouteKind(kind: string): kind is RouteKind {
  return (ROUTE_KINDS as readonly string[]).includes(kind);
}
