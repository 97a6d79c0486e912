// A Service port's OutboundPolicy (OutboundPolicies.Get/Watch) from the mesh table of the client's
// namespace: the routes that govern the port, each rule with its matches, filters, weighted
// backends (each discovered with Destination.Get by its authority), timeouts and retry. With no
// route, the port's traffic goes to the Service itself, as the table's `backend` says.
//
// What the API cannot say, by name: a filter other than the header modifiers and (HTTP) redirects,
// and a rule the table marks invalid, become a failure injector answering 500 (gRPC: INTERNAL)
// whose message names it, which is what the Gateway API asks of a rule that cannot be programmed;
// an invalid backend gets one too, so that its share fails rather than spreads over the others.
// gRPC method matches by regular expression cannot be written (the API matches exact names): such a
// match is left out of its rule. Bytes fields (header values) are base64, as protobuf JSON writes them.
import type { MeshTable } from '../mesh/types';
import type { components } from '../../generated/api';
import type { DestinationTarget } from './destination-path';
import { authorityOf } from './destination-path';
import { duration, meshPortOf, serviceRef, statusRanges } from './mesh-target';

type S = components['schemas'];
type Rule = S['CompiledRule'];
type Backend = S['CompiledBackend'];
type Filter = S['CompiledFilter'];
type Msg = Record<string, unknown>;

/** how long the proxy waits to tell HTTP from other traffic (Linkerd's default) */
const DETECT_MS = 10_000;
const QUEUE = { capacity: 100, failfast_timeout: duration(3_000) };
const LOAD = { peak_ewma: { default_rtt: duration(30), decay: duration(10_000) } };
const GRPC_INTERNAL = 13;

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'HEAD', 'TRACE']);
const method = (m: string) => (METHODS.has(m) ? { registered: m } : { unregistered: m });
const headers = (hs: readonly { name: string; value: string }[]) => ({ headers: hs.map((h) => ({ name: h.name, value: Buffer.from(h.value).toString('base64') })) });
const headerModifier = (m: S['CompiledHeaderModifier']) => ({ add: headers(m.add), set: headers(m.set), remove: [...m.remove] });

function backendMsg(b: Backend, clusterDomain: string): Msg {
  return {
    metadata: serviceRef(b.namespace, b.name, b.port),
    balancer: { discovery: { dst: { path: authorityOf(b.namespace, b.name, b.port ?? 0, clusterDomain) } }, ...LOAD },
    queue: QUEUE,
  };
}

function failure(grpc: boolean, message: string): Msg {
  return { failure_injector: grpc ? { code: GRPC_INTERNAL, message, ratio: { numerator: 1, denominator: 1 } } : { status: 500, message, ratio: { numerator: 1, denominator: 1 } } };
}

function filterMsg(f: Filter, grpc: boolean): Msg {
  if (f.type === 'RequestHeaderModifier' && f.requestHeaderModifier) return { request_header_modifier: headerModifier(f.requestHeaderModifier) };
  if (!grpc && f.type === 'ResponseHeaderModifier' && f.responseHeaderModifier) return { response_header_modifier: headerModifier(f.responseHeaderModifier) };
  if (!grpc && f.type === 'RequestRedirect' && f.requestRedirect) {
    const r = f.requestRedirect;
    const out: Msg = { host: r.hostname ?? '', port: r.port ?? 0, status: r.statusCode };
    if (r.scheme) out.scheme = { registered: r.scheme.toUpperCase() === 'HTTPS' ? 'HTTPS' : 'HTTP' };
    if (r.path) out.path = r.path.type === 'ReplaceFullPath' ? { full: r.path.value } : { prefix: r.path.value };
    return { redirect: out };
  }
  return failure(grpc, `the ${f.type} filter cannot be expressed in Linkerd's outbound policy`);
}

function distribution(rule: Rule, grpc: boolean, clusterDomain: string): Msg {
  const backends = rule.backends.filter((b) => b.weight > 0);
  if (backends.length === 0) return { empty: {} };
  return {
    random_available: {
      backends: backends.map((b) => ({
        weight: b.weight,
        backend: {
          backend: backendMsg(b, clusterDomain),
          filters: b.valid ? (b.filters ?? []).map((f) => filterMsg(f, grpc)) : [failure(grpc, `backend ${b.namespace}/${b.name} cannot be used: ${b.reason ?? 'invalid'}`)],
        },
      })),
    },
  };
}

function ruleMsg(rule: Rule, matches: Msg[], grpc: boolean, clusterDomain: string): Msg {
  const filters = rule.invalid ? [failure(grpc, `the rule cannot be programmed: ${rule.invalid.message ?? rule.invalid.reason ?? 'invalid'}`)]
    : rule.backends.every((b) => b.weight === 0) ? [failure(grpc, 'the rule has no backend to send to')]
      : rule.filters.map((f) => filterMsg(f, grpc));
  const out: Msg = { matches, filters, backends: distribution(rule, grpc, clusterDomain) };
  const t = rule.timeouts;
  if (t?.requestMs || t?.backendRequestMs) out.timeouts = { ...(t.requestMs ? { request: duration(t.requestMs) } : {}), ...(t.backendRequestMs ? { response: duration(t.backendRequestMs) } : {}) };
  if (rule.retry) {
    const codes = statusRanges(rule.retry.codes);
    out.retry = {
      max_retries: rule.retry.attempts,
      conditions: grpc ? { unavailable: true } : { status_ranges: codes.map((c) => ({ start: c.min, end: c.max })) },
      ...(rule.retry.backoffMs ? { backoff: { min_backoff: duration(rule.retry.backoffMs), max_backoff: duration(rule.retry.backoffMs), jitter_ratio: 0 } } : {}),
    };
  }
  return out;
}

function httpMatch(m: S['CompiledHTTPMatch']): Msg {
  const path = m.path.type === 'Exact' ? { exact: m.path.value } : m.path.type === 'PathPrefix' ? { prefix: m.path.value } : { regex: m.path.value };
  const out: Msg = {
    path,
    headers: (m.headers ?? []).map((h) => (h.type === 'Exact' ? { name: h.name, exact: Buffer.from(h.value).toString('base64') } : { name: h.name, regex: h.value })),
    query_params: (m.queryParams ?? []).map((q) => (q.type === 'Exact' ? { name: q.name, exact: q.value } : { name: q.name, regex: q.value })),
  };
  if (m.method) out.method = method(m.method);
  return out;
}

function grpcMatch(m: S['CompiledGRPCMatch']): Msg | undefined {
  if (m.type === 'RegularExpression' && (m.service !== undefined || m.method !== undefined)) return undefined;
  return {
    rpc: { service: m.service ?? '', method: m.method ?? '' },
    headers: (m.headers ?? []).map((h) => (h.type === 'Exact' ? { name: h.name, exact: Buffer.from(h.value).toString('base64') } : { name: h.name, regex: h.value })),
  };
}

/** Entries grouped back into routes and rules, in the order they first appear (the table's precedence). */
function grouped<E extends { rule: number; match: { invalid?: string } }>(table: MeshTable, entries: readonly E[], toMatch: (e: E) => Msg | undefined) {
  const routes = new Map<number, Map<number, Msg[]>>();
  for (const e of entries) {
    if (e.match.invalid) continue;
    const rule = table.rules[e.rule];
    let rs = routes.get(rule.route);
    if (!rs) routes.set(rule.route, (rs = new Map()));
    let ms = rs.get(e.rule);
    if (!ms) rs.set(e.rule, (ms = []));
    const m = toMatch(e);
    if (m) ms.push(m);
  }
  return routes;
}

export interface PolicyOptions { clusterDomain: string }

/** The policy, or undefined when the target is no port of a Service of the mesh. */
export function outboundPolicy(table: MeshTable | undefined, target: DestinationTarget, opts: PolicyOptions): Msg | undefined {
  const found = table && meshPortOf(table, target);
  if (!table || !found) return undefined;
  const { service, port } = found;
  const metadata = serviceRef(service.namespace, service.name, port.port);
  const routeMeta = (i: number) => {
    const r = table.routes[i];
    return { resource: { group: 'gateway.networking.k8s.io', kind: r.kind, namespace: r.namespace, name: r.name } };
  };
  if (port.routeKind === 'GRPCRoute') {
    const routes = [...grouped(table, port.grpcRoutes ?? [], (e) => grpcMatch(e.match))].map(([ri, rules]) => ({
      metadata: routeMeta(ri), hosts: [],
      rules: [...rules].filter(([, ms]) => ms.length).map(([rule, ms]) => ruleMsg(table.rules[rule], ms, true, opts.clusterDomain)),
    }));
    return { metadata, protocol: { grpc: { routes } } };
  }
  let routes: Msg[];
  if (port.routeKind === 'HTTPRoute') {
    routes = [...grouped(table, port.httpRoutes ?? [], (e) => httpMatch(e.match))].map(([ri, rules]) => ({
      metadata: routeMeta(ri), hosts: [],
      rules: [...rules].map(([rule, ms]) => ruleMsg(table.rules[rule], ms, false, opts.clusterDomain)),
    }));
  } else {
    // no route: every request to the Service itself, as a default route the proxy can still measure
    const own: Rule = { route: -1, index: 0, filters: [], backends: [port.backend] };
    routes = [{ metadata: { default: 'service' }, hosts: [], rules: [ruleMsg(own, [{ path: { prefix: '/' }, headers: [], query_params: [] }], false, opts.clusterDomain)] }];
  }
  const opaque = { routes: port.routeKind ? [] : [{ metadata: { default: 'service' }, rules: [{ backends: distribution({ route: -1, index: 0, filters: [], backends: [port.backend] }, false, opts.clusterDomain), filters: [] }] }] };
  return { metadata, protocol: { detect: { timeout: duration(DETECT_MS), opaque, http1: { routes }, http2: { routes } } } };
}
