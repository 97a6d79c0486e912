// The xDS resources the translations make, as plain objects: each message by its proto field names
// (snake_case, as Envoy's YAML writes them), durations as {seconds, nanos}, wrapped numbers as
// {value}, and an Any as {'@type': <type URL>, ...the packed message's fields}. The adapter encodes
// them with the real Envoy v3 protos (src/adapters/grpc/xds-protos.ts); golden files show them as
// they are. Typed here narrowly, for the fields we set: proto-loader's generated input types model
// an Any as packed bytes, which would put the encoding into this pure layer and the goldens.

export const TYPE_URL = {
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
} as const;

export type ResourceKind = keyof typeof TYPE_URL;
/** The order go-control-plane's ADS sends types in: nothing names a cluster or endpoint set the client lacks. */
export const PUSH_ORDER: readonly ResourceKind[] = ['cluster', 'endpoint', 'listener', 'route', 'secret'];

export const kindOfTypeUrl = (url: string): ResourceKind | undefined =>
  (Object.keys(TYPE_URL) as ResourceKind[]).find((k) => TYPE_URL[k] === url);

export const HCM_TYPE = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
export const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
export const FAULT_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault';
export const FAULT_FILTER = 'envoy.filters.http.fault';
export const ROUTER_FILTER = 'envoy.filters.http.router';

export interface Duration { seconds: number; nanos?: number }
export interface Any { '@type': string; [field: string]: unknown }

export interface StringMatcher { exact?: string; prefix?: string; safe_regex?: { regex: string } }
export interface HeaderMatcher { name: string; string_match?: StringMatcher; safe_regex_match?: { regex: string } }
export interface RouteMatch { path?: string; prefix?: string; safe_regex?: { regex: string }; headers?: HeaderMatcher[] }
export interface ClusterWeight { name: string; weight: { value: number } }
export interface RetryPolicy { retry_on: string; num_retries: { value: number }; retry_back_off?: { base_interval: Duration } }
export interface RouteAction {
  cluster?: string;
  weighted_clusters?: { clusters: ClusterWeight[] };
  max_stream_duration?: { max_stream_duration: Duration };
  retry_policy?: RetryPolicy;
}
export interface Route {
  name: string;
  match: RouteMatch;
  route: RouteAction;
  typed_per_filter_config?: Record<string, Any>;
}
export interface VirtualHost { name: string; domains: string[]; routes: Route[] }
export interface RouteConfiguration { name: string; virtual_hosts: VirtualHost[] }

export interface Listener { name: string; api_listener: { api_listener: Any } }

export interface ConfigSource { ads: Record<string, never>; resource_api_version: 'V3' }
export interface Cluster {
  name: string;
  type: 'EDS';
  eds_cluster_config: { eds_config: ConfigSource; service_name: string };
  lb_policy: 'ROUND_ROBIN';
  connect_timeout: Duration;
}
export interface LbEndpoint { endpoint: { address: { socket_address: { address: string; port_value: number } } } }
export interface LocalityEndpoints { locality: Record<string, never>; load_balancing_weight: { value: number }; lb_endpoints: LbEndpoint[] }
export interface ClusterLoadAssignment { cluster_name: string; endpoints: LocalityEndpoints[] }

export interface ResourceOf {
  listener: Listener;
  route: RouteConfiguration;
  cluster: Cluster;
  endpoint: ClusterLoadAssignment;
  secret: Any;
}

/** What a table feature becomes where a data plane cannot express it: said by name, never dropped silently. */
export interface Unsupported {
  /** "GRPCRoute ns/name rule 0" */
  where: string;
  feature: string;
  effect: string;
}

/** Resources of each kind by name, in name order, and what could not be expressed. */
export interface XdsResources {
  listener: Map<string, Listener>;
  route: Map<string, RouteConfiguration>;
  cluster: Map<string, Cluster>;
  endpoint: Map<string, ClusterLoadAssignment>;
  secret: Map<string, Any>;
  unsupported: Unsupported[];
}

export const emptyResources = (): XdsResources => ({ listener: new Map(), route: new Map(), cluster: new Map(), endpoint: new Map(), secret: new Map(), unsupported: [] });
