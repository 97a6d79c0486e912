// The proxyless gRPC data plane: what a gRPC client asking for Listener "<hostname>:<port>" gets
// from a Gateway's compiled table. It is the table's routing for a gRPC call to that hostname and
// port, as resolve and the reference proxy route one: the most specific HTTP listener on the port
// for the hostname, then the entries of the kind that takes the hostname's gRPC calls there
// (core/resolve/grpc-calls: its GRPCRoutes, or its HTTPRoutes where no GRPCRoute claims it or an
// older HTTPRoute does) in table order (first match wins), a call no entry matches answered
// UNIMPLEMENTED, an unusable backend's share answered UNAVAILABLE. An HTTPRoute match is what it
// is for an HTTP/2 POST to "/<service>/<method>": its path and headers as such, a method other than
// POST or any query parameter never matching a gRPC call (the match is left out, never widened).
// Pure: the adapter encodes and delivers the result.
import type {
  CompiledBackend, CompiledGRPCEntry, CompiledGRPCMatch, CompiledHTTPEntry, CompiledHTTPMatch, CompiledListener, CompiledRule, CompiledTable, CompiledValueMatch,
} from '../compile';
import { selectListener } from '../resolve/listeners';
import { grpcTakerOf } from '../resolve/grpc-calls';
import { hostnameMatches } from '../match/hostname';
import { clusterName, parseListenerName, routeName, UNUSABLE_CLUSTER } from './names';
import { endpointsOnce } from './endpoints';
import {
  FAULT_FILTER, FAULT_TYPE, HCM_TYPE, ROUTER_FILTER, ROUTER_TYPE, emptyResources,
  type Cluster, type ClusterLoadAssignment, type ClusterWeight, type Duration, type HeaderMatcher, type Listener,
  type Route, type RouteAction, type RouteConfiguration, type RouteMatch, type RetryPolicy, type Unsupported, type XdsResources,
} from './types';

const ADS = { ads: {}, resource_api_version: 'V3' } as const;

/** What one listener name brings: the listener, its route configuration, the clusters those name. */
export interface ProxylessListener {
  listener: Listener;
  route: RouteConfiguration;
  clusters: Cluster[];
  endpoints: ClusterLoadAssignment[];
  unsupported: Unsupported[];
  /** the routes ("<kind>/<namespace>/<name>") whose entries it read: a table delta touching none of them leaves it as it is */
  routes: string[];
}

/** The table's entry lists the proxyless translation reads. */
export const PROXYLESS_ENTRY_LISTS = ['grpcRoutes', 'httpRoutes'] as const;

/** The listener of `table` a gRPC call to host:port reaches, as resolve picks it. */
function listenerFor(table: CompiledTable, host: string, port: number): CompiledListener | undefined {
  const onPort = table.listeners.filter((l) => l.valid && l.port === port && (l.protocol === 'HTTP' || l.protocol === 'HTTPS'));
  return selectListener(onPort, host);
}

/** A listener's entries of one list by exact hostname, and the others (wildcards, none), each with its place in the list. */
interface EntryIndex<E> { exact: Map<string, number[]>; others: number[]; entries: E[] }
// per listener object of a parsed table: a client subscribed to thousands of hostnames would
// otherwise have each name's translation walk every entry of the listener
const INDEX = { grpcRoutes: new WeakMap<CompiledListener, EntryIndex<CompiledGRPCEntry>>(), httpRoutes: new WeakMap<CompiledListener, EntryIndex<CompiledHTTPEntry>>() };

/** The entries of `listener`'s `list` whose hostname matches `host`, in the listener's order. */
function entriesFor<L extends 'grpcRoutes' | 'httpRoutes'>(listener: CompiledListener, list: L, host: string): L extends 'grpcRoutes' ? CompiledGRPCEntry[] : CompiledHTTPEntry[];
function entriesFor(listener: CompiledListener, list: 'grpcRoutes' | 'httpRoutes', host: string): (CompiledGRPCEntry | CompiledHTTPEntry)[] {
  const index = INDEX[list] as WeakMap<CompiledListener, EntryIndex<CompiledGRPCEntry | CompiledHTTPEntry>>;
  let ix = index.get(listener);
  if (!ix) {
    const entries = (listener[list] ?? []) as (CompiledGRPCEntry | CompiledHTTPEntry)[];
    ix = { exact: new Map(), others: [], entries };
    for (let i = 0; i < entries.length; i++) {
      const h = entries[i].hostname.toLowerCase();
      if (h === '' || h.startsWith('*')) ix.others.push(i);
      else {
        const list = ix.exact.get(h);
        if (list) list.push(i);
        else ix.exact.set(h, [i]);
      }
    }
    index.set(listener, ix);
  }
  const at = [...(ix.exact.get(host) ?? []), ...ix.others.filter((i) => hostnameMatches(ix!.entries[i].hostname, host))].sort((a, b) => a - b);
  return at.map((i) => ix!.entries[i]);
}

/** null: the table has no listener for this name (the client is told the resource does not exist). */
export function proxylessListener(table: CompiledTable, name: string): ProxylessListener | null {
  const target = parseListenerName(name);
  if (!target) return null;
  const listener = listenerFor(table, target.host, target.port);
  if (!listener) return null;
  const unsupported: Unsupported[] = [];
  const clusters = new Map<string, CompiledBackend | null>();
  const routes: Route[] = [];
  const read = new Set<string>();
  const grpcEntries = entriesFor(listener, 'grpcRoutes', target.host);
  const httpEntries = entriesFor(listener, 'httpRoutes', target.host);
  // which kind takes the calls depends on the routes of both kinds that claim the hostname
  for (const e of [...grpcEntries, ...httpEntries]) {
    const route = table.routes[table.rules[e.rule].route];
    read.add(`${route.kind}/${route.namespace}/${route.name}`);
  }
  const taker = grpcTakerOf(table, grpcEntries, httpEntries);
  const where = (rule: CompiledRule) => {
    const route = table.routes[rule.route];
    return `${route.kind} ${route.namespace}/${route.name} rule ${rule.index}`;
  };
  if (taker.contested) {
    const { winner, loser } = taker.contested;
    unsupported.push({
      where: `${loser.kind} ${loser.namespace}/${loser.name}`, feature: `hostname ${target.host} also claimed by ${winner.kind} ${winner.namespace}/${winner.name}`,
      effect: `gRPC calls to ${target.host} go by the GRPCRoutes; the HTTPRoute's rules are not served to gRPC clients`,
    });
  }
  if (taker.kind === 'GRPCRoute') {
    for (const e of grpcEntries) {
      const rule = table.rules[e.rule];
      const match = routeMatch(e.match);
      if (!match) continue;
      routes.push({ name: routeName(table.routes[rule.route], rule.index, e.matchIndex), match, route: routeAction(rule, where(rule), clusters, unsupported) });
    }
  } else {
    for (const e of httpEntries) {
      const rule = table.rules[e.rule];
      const match = httpRouteMatch(e.match, (feature, effect) => unsupported.push({ where: `${where(rule)} match ${e.matchIndex}`, feature, effect }));
      if (!match) continue;
      routes.push({ name: routeName(table.routes[rule.route], rule.index, e.matchIndex), match, route: routeAction(rule, where(rule), clusters, unsupported) });
    }
  }
  // a call no entry matches is answered UNIMPLEMENTED, as the gateway answers it
  routes.push({
    name: 'switchyard/no-route',
    match: { prefix: '/' },
    route: { cluster: UNUSABLE_CLUSTER },
    typed_per_filter_config: { [FAULT_FILTER]: abortWith(GRPC_UNIMPLEMENTED) },
  });
  clusters.set(UNUSABLE_CLUSTER, null);
  return {
    listener: {
      name,
      api_listener: {
        api_listener: {
          '@type': HCM_TYPE,
          stat_prefix: name,
          rds: { config_source: ADS, route_config_name: name },
          http_filters: [
            { name: FAULT_FILTER, typed_config: { '@type': FAULT_TYPE } },
            { name: ROUTER_FILTER, typed_config: { '@type': ROUTER_TYPE } },
          ],
        },
      },
    },
    route: { name, virtual_hosts: [{ name, domains: ['*'], routes }] },
    clusters: [...clusters.keys()].sort().map(edsCluster),
    endpoints: [...clusters].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([n, b]) => loadAssignment(n, b)),
    unsupported,
    routes: [...read].sort(),
  };
}

/** Every listener name of `names` the table has, with what they name, merged. */
export function proxylessResources(table: CompiledTable | null, names: Iterable<string>, memo?: (name: string) => ProxylessListener | null): XdsResources {
  const out = emptyResources();
  for (const name of [...new Set(names)].sort()) {
    const r = memo ? memo(name) : table ? proxylessListener(table, name) : null;
    if (!r) continue;
    out.listener.set(name, r.listener);
    out.route.set(r.route.name, r.route);
    for (const c of r.clusters) out.cluster.set(c.name, c);
    for (const c of r.endpoints) out.endpoint.set(c.cluster_name, c);
    out.unsupported.push(...r.unsupported);
  }
  // a rule two listener names share is noted once
  const seen = new Set<string>();
  out.unsupported = out.unsupported.filter((u) => {
    const k = `${u.where}\n${u.feature}\n${u.effect}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  return out;
}

const GRPC_UNIMPLEMENTED = 12;

const abortWith = (grpcStatus: number) => ({ '@type': FAULT_TYPE, abort: { grpc_status: grpcStatus, percentage: { numerator: 100, denominator: 'HUNDRED' } } });

const RE2_SPECIAL = /[\\^$.|?*+()[\]{}]/g;
const quote = (s: string) => s.replace(RE2_SPECIAL, '\\$&');

/** A GRPCRoute match as a route match on the call's path "/<service>/<method>"; null: it can never match. */
function routeMatch(m: CompiledGRPCMatch): RouteMatch | null {
  if (m.invalid) return null;
  const headers = (m.headers ?? []).map(headerMatcher);
  const withHeaders = (r: RouteMatch): RouteMatch => (headers.length ? { ...r, headers } : r);
  if (m.type === 'RegularExpression' && (m.service !== undefined || m.method !== undefined)) {
    return withHeaders({ safe_regex: { regex: `/${m.service !== undefined ? `(?:${m.service})` : '[^/]+'}/${m.method !== undefined ? `(?:${m.method})` : '[^/]+'}` } });
  }
  if (m.service !== undefined && m.method !== undefined) return withHeaders({ path: `/${m.service}/${m.method}` });
  if (m.service !== undefined) return withHeaders({ prefix: `/${m.service}/` });
  if (m.method !== undefined) return withHeaders({ safe_regex: { regex: `/[^/]+/${quote(m.method)}` } });
  return withHeaders({ prefix: '/' });
}

/**
 * An HTTPRoute match as the route match of a gRPC call (an HTTP/2 POST to "/<service>/<method>",
 * without a query string); null when it can never match one, said through `note`.
 */
function httpRouteMatch(m: CompiledHTTPMatch, note: (feature: string, effect: string) => void): RouteMatch | null {
  if (m.invalid) return null;
  if (m.method !== undefined && m.method.toUpperCase() !== 'POST') {
    note(`method ${m.method}`, 'a gRPC call is a POST: the match never matches one and is left out');
    return null;
  }
  if (m.queryParams?.length) {
    note('query parameter match', 'a gRPC call has no query string: the match never matches one and is left out');
    return null;
  }
  const headers = (m.headers ?? []).map(headerMatcher);
  const withHeaders = (r: RouteMatch): RouteMatch => (headers.length ? { ...r, headers } : r);
  const v = m.path.value;
  if (m.path.type === 'Exact') return withHeaders({ path: v });
  if (m.path.type === 'RegularExpression') return withHeaders({ safe_regex: { regex: v } });
  // PathPrefix matches whole segments: "/echo.Echo" takes "/echo.Echo" and "/echo.Echo/Ping", not "/echo.EchoV2/Ping"
  const trimmed = v.replace(/\/+$/, '');
  if (trimmed === '') return withHeaders({ prefix: '/' });
  return withHeaders({ safe_regex: { regex: `${quote(trimmed)}(?:/.*)?` } });
}

function headerMatcher(h: CompiledValueMatch): HeaderMatcher {
  return h.type === 'RegularExpression' ? { name: h.name, safe_regex_match: { regex: h.value } } : { name: h.name, string_match: { exact: h.value } };
}

function duration(ms: number): Duration {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms % 1000) * 1_000_000;
  return nanos ? { seconds, nanos } : { seconds };
}

/** The gRPC statuses a retry on these HTTP statuses stands for (google.rpc.Code's HTTP mapping). */
const RETRY_ON: Record<number, string> = { 499: 'cancelled', 500: 'internal', 503: 'unavailable', 504: 'deadline-exceeded', 429: 'resource-exhausted' };

function routeAction(rule: CompiledRule, where: string, clusters: Map<string, CompiledBackend | null>, unsupported: Unsupported[]): RouteAction {
  const note = (feature: string, effect: string) => unsupported.push({ where, feature, effect });
  for (const f of rule.filters) note(f.type, 'proxyless gRPC clients do not apply it: calls are routed without it');
  const shares = new Map<string, number>();
  if (rule.invalid) note('invalid rule', `${rule.invalid.reason}: every call it matches is answered UNAVAILABLE`);
  else {
    for (const b of rule.backends) {
      if (b.weight <= 0) continue;
      let name = UNUSABLE_CLUSTER;
      if (b.valid && b.tls) note('BackendTLSPolicy', `${b.namespace}/${b.name}: proxyless gRPC clients cannot originate the Gateway's backend TLS; its share is answered UNAVAILABLE`);
      else if (b.valid) name = clusterName(b);
      for (const f of b.filters ?? []) note(f.type, `on backend ${b.namespace}/${b.name}: proxyless gRPC clients do not apply it`);
      if (name !== UNUSABLE_CLUSTER) clusters.set(name, b);
      shares.set(name, (shares.get(name) ?? 0) + b.weight);
    }
  }
  if (shares.size === 0) shares.set(UNUSABLE_CLUSTER, 1);
  if (shares.has(UNUSABLE_CLUSTER)) clusters.set(UNUSABLE_CLUSTER, null);
  const action: RouteAction = shares.size === 1
    ? { cluster: [...shares.keys()][0] }
    : { weighted_clusters: { clusters: [...shares].map(([name, w]): ClusterWeight => ({ name, weight: { value: w } })) } };
  const timeoutMs = rule.timeouts?.requestMs || rule.timeouts?.backendRequestMs;
  if (timeoutMs) action.max_stream_duration = { max_stream_duration: duration(timeoutMs) };
  if (rule.timeouts?.requestMs && rule.timeouts.backendRequestMs && rule.timeouts.backendRequestMs < rule.timeouts.requestMs)
    note('backendRequest timeout', 'proxyless gRPC clients have no per-attempt timeout: the request timeout bounds the whole call');
  if (rule.retry) {
    const on = [...new Set(rule.retry.codes.map((c) => RETRY_ON[c]).filter(Boolean))];
    const dropped = rule.retry.codes.filter((c) => !RETRY_ON[c]);
    if (dropped.length) note('retry codes', `HTTP ${dropped.join(', ')} have no gRPC status a client retries on: not retried`);
    // gRPC retries a call that failed before it reached a backend by itself (transparent retry)
    if (on.length) {
      const policy: RetryPolicy = { retry_on: on.join(','), num_retries: { value: rule.retry.attempts } };
      if (rule.retry.backoffMs) policy.retry_back_off = { base_interval: duration(rule.retry.backoffMs) };
      action.retry_policy = policy;
    }
  }
  return action;
}

function edsCluster(name: string): Cluster {
  return {
    name,
    type: 'EDS',
    eds_cluster_config: { eds_config: ADS, service_name: name },
    lb_policy: 'ROUND_ROBIN',
    connect_timeout: { seconds: 5 },
  };
}

function loadAssignment(name: string, b: CompiledBackend | null): ClusterLoadAssignment {
  const eps = endpointsOnce(b);
  if (eps.length === 0) return { cluster_name: name, endpoints: [] };
  return {
    cluster_name: name,
    endpoints: [{
      locality: {},
      load_balancing_weight: { value: 1 },
      lb_endpoints: eps.map((e) => ({ endpoint: { address: { socket_address: { address: e.address, port_value: e.port } } } })),
    }],
  };
}
