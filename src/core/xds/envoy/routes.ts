// HTTP routing as Envoy's route configurations: per host domain a virtual host whose routes are,
// in the table's order (Gateway API precedence, first match wins), the entries that hosts of that
// domain reach on the listener they select; GRPCRoute entries match gRPC calls only and HTTPRoute
// entries everything else, as the reference proxy walks only the entries of the request's kind.
// An unusable backend's share is a weighted cluster entry naming the unusable cluster (which is
// sent, and has no endpoints) with a fault abort in its per-filter config, so it is answered 500
// (gRPC: UNAVAILABLE) and no route ever names a cluster the client was not sent.
import type { CompiledGRPCEntry, CompiledGRPCMatch, CompiledHTTPEntry, CompiledHTTPMatch, CompiledListener, CompiledRule, CompiledTable, CompiledValueMatch } from '../../compile';
import { routeName } from '../names';
import { grpcCallsTakenBy } from '../../resolve/grpc-calls';
import type { Unsupported } from '../types';
import { extAuthzEnabled, sessionPerRoute, STATEFUL_SESSION, type ExtAuthzSet } from './auth-session';
import type { ClusterSet } from './clusters';
import { filterPieces, type FilterPieces } from './filters';
import { accepts, envoyDomain, listenerForDomain, sortDomains } from './hosts';
import { duration, FILTER, quoteRe2, T, type Msg } from './types';

export interface RouteCtx {
  table: CompiledTable;
  clusters: ClusterSet;
  auth: ExtAuthzSet;
  unsupported: Unsupported[];
}

const GRPC_UNAVAILABLE = 14;
const FULL = { numerator: 100, denominator: 'HUNDRED' } as const;

function noteFor(c: RouteCtx, where: string) {
  return (feature: string, effect: string) => {
    if (!c.unsupported.some((u) => u.where === where && u.feature === feature && u.effect === effect)) c.unsupported.push({ where, feature, effect });
  };
}

function valueMatcher(m: CompiledValueMatch): Msg {
  return m.type === 'RegularExpression' ? { safe_regex: { regex: m.value } } : { exact: m.value };
}

const headerMatchers = (hs: readonly CompiledValueMatch[] | undefined): Msg[] =>
  (hs ?? []).map((h) => ({ name: h.name, string_match: valueMatcher(h) }));

/** An HTTPRoute match: PathPrefix by whole segments (path_separated_prefix), regexes on the whole value. */
export function httpMatch(m: CompiledHTTPMatch): Msg {
  const out: Msg = {};
  const v = m.path.value;
  if (m.path.type === 'Exact') out.path = v;
  else if (m.path.type === 'RegularExpression') out.safe_regex = { regex: v };
  else {
    const trimmed = v.replace(/\/+$/, '');
    if (trimmed === '') out.prefix = '/';
    else out.path_separated_prefix = trimmed;
  }
  const headers = headerMatchers(m.headers);
  if (m.method) headers.push({ name: ':method', string_match: { exact: m.method } });
  if (headers.length) out.headers = headers;
  if (m.queryParams?.length) out.query_parameters = m.queryParams.map((q) => ({ name: q.name, string_match: valueMatcher(q) }));
  return out;
}

/** A GRPCRoute match on the call's path "/<service>/<method>", for gRPC requests only. */
export function grpcMatch(m: CompiledGRPCMatch): Msg {
  let out: Msg;
  if (m.type === 'RegularExpression' && (m.service !== undefined || m.method !== undefined)) {
    out = { safe_regex: { regex: `/${m.service !== undefined ? `(?:${m.service})` : '[^/]+'}/${m.method !== undefined ? `(?:${m.method})` : '[^/]+'}` } };
  } else if (m.service !== undefined && m.method !== undefined) out = { path: `/${m.service}/${m.method}` };
  else if (m.service !== undefined) out = { prefix: `/${m.service}/` };
  else if (m.method !== undefined) out = { safe_regex: { regex: `/[^/]+/${quoteRe2(m.method)}` } };
  else out = { safe_regex: { regex: '/[^/]+/[^/]+' } };
  out.grpc = {};
  const headers = headerMatchers(m.headers);
  if (headers.length) out.headers = headers;
  return out;
}

/** The gateway's own answer where no backend serves: 500, or for gRPC a 503 Envoy turns into UNAVAILABLE. */
const refusal = (grpc: boolean): Msg => (grpc ? { status: 503 } : { status: 500, body: { inline_string: 'no usable backend\n' } });

/** The reference's answer where a rule's ExternalAuth names an unusable server. */
const AUTH_UNUSABLE: Msg = { status: 500, body: { inline_string: 'the ExternalAuth server is unusable\n' } };

function weightedEntry(name: string, weight: number, pieces?: FilterPieces): Msg {
  const e: Msg = { name, weight: { value: weight } };
  if (pieces) {
    Object.assign(e, pieces.headers);
    if (pieces.hostRewrite) e.host_rewrite_literal = pieces.hostRewrite;
  }
  return e;
}

function unusableEntry(c: RouteCtx, weight: number, grpc: boolean): Msg {
  const abort = grpc ? { grpc_status: GRPC_UNAVAILABLE, percentage: FULL } : { http_status: 500, percentage: FULL };
  return { name: c.clusters.unusable(), weight: { value: weight }, typed_per_filter_config: { [FILTER.fault]: { '@type': T.fault, abort } } };
}

/** The route fields (action, headers, per-filter config) of a rule reached through one entry. */
function ruleFields(c: RouteCtx, rule: CompiledRule, where: string, listener: CompiledListener, grpc: boolean, matchedPrefix: string | undefined): Msg {
  const note = noteFor(c, where);
  // a rule that cannot be programmed is answered as the reference answers it: not a gap to note
  if (rule.invalid) return { direct_response: refusal(grpc) };
  const p = filterPieces(rule.filters, { listener, matchedPrefix }, note);
  const out: Msg = { ...p.headers };
  const perFilter: Msg = {};
  if (p.cors) perFilter[FILTER.cors] = p.cors;
  // the rule's ExternalAuth comes before all else it does; an unusable server is never skipped
  const auth = rule.filters.find((f) => f.type === 'ExternalAuth')?.externalAuth;
  if (auth && !auth.backend.valid) return { direct_response: AUTH_UNUSABLE };
  if (auth) perFilter[c.auth.of(auth, note)] = extAuthzEnabled();
  if (Object.keys(perFilter).length) out.typed_per_filter_config = perFilter;
  if (p.redirect) return { ...out, redirect: p.redirect };

  const usable = rule.backends.reduce((n, b) => n + (b.valid ? Math.max(0, b.weight) : 0), 0);
  if (usable === 0) return { ...out, direct_response: refusal(grpc) };
  const entries: Msg[] = [];
  let unusableWeight = 0;
  let withFilters = false;
  for (const b of rule.backends) {
    if (b.weight <= 0) continue;
    if (!b.valid) {
      unusableWeight += b.weight;
      continue;
    }
    const name = c.clusters.of(b, { h2: grpc });
    let pieces: FilterPieces | undefined;
    if (b.filters?.length) {
      pieces = filterPieces(b.filters, { listener, matchedPrefix }, note);
      withFilters = true;
      const at = `backend ${b.namespace}/${b.name}`;
      if (pieces.redirect) note(`RequestRedirect on ${at}`, 'Envoy redirects per route, not per weighted cluster: not applied');
      if (pieces.pathRewrite) note(`URLRewrite path on ${at}`, 'Envoy rewrites paths per route, not per weighted cluster: not applied');
      if (pieces.mirrors.length) note(`RequestMirror on ${at}`, 'Envoy mirrors per route, not per weighted cluster: not mirrored');
      if (pieces.cors) note(`CORS on ${at}`, 'Envoy applies CORS per route, not per weighted cluster: not applied');
    }
    const same = !pieces && entries.find((e) => e.name === name && Object.keys(e).length === 2);
    if (same) (same.weight as { value: number }).value += b.weight;
    else entries.push(weightedEntry(name, b.weight, pieces));
  }
  if (unusableWeight > 0) entries.push(unusableEntry(c, unusableWeight, grpc));
  const session = sessionPerRoute(rule, entries.length - (unusableWeight > 0 ? 1 : 0), note);
  if (session) out.typed_per_filter_config = { ...(out.typed_per_filter_config as Msg | undefined), [STATEFUL_SESSION]: session };
  const action: Msg = entries.length === 1 && !withFilters ? { cluster: entries[0].name } : { weighted_clusters: { clusters: entries } };
  if (p.hostRewrite) action.host_rewrite_literal = p.hostRewrite;
  if (p.pathRewrite) Object.assign(action, p.pathRewrite);
  timeouts(rule, action);
  retries(rule, action);
  const mirrors = p.mirrors.filter((m) => m.backend.valid && m.percent > 0).map((m) => {
    const policy: Msg = { cluster: c.clusters.of(m.backend, { h2: grpc }), disable_shadow_host_suffix_append: true };
    if (m.percent < 100) policy.runtime_fraction = { default_value: { numerator: Math.round(m.percent * 10_000), denominator: 'MILLION' } };
    return policy;
  });
  if (mirrors.length) action.request_mirror_policies = mirrors;
  return { ...out, route: action };
}

/**
 * The request timeout bounds the whole exchange (none: none, where Envoy would otherwise stop at
 * 15 s); the backend timeout bounds each try (a single try where the rule does not retry).
 */
function timeouts(rule: CompiledRule, action: Msg): void {
  const req = rule.timeouts?.requestMs ?? 0;
  const backend = rule.timeouts?.backendRequestMs ?? 0;
  let whole = req;
  if (backend && !rule.retry && (!whole || backend < whole)) whole = backend;
  action.timeout = duration(whole);
}

/** A failed try (one of the codes, or a connection error before an answer) is tried again, `attempts` times at most. */
function retries(rule: CompiledRule, action: Msg): void {
  const r = rule.retry;
  if (!r) return;
  const policy: Msg = {
    retry_on: ['connect-failure', 'refused-stream', 'reset', ...(r.codes.length ? ['retriable-status-codes'] : [])].join(','),
    num_retries: { value: r.attempts },
  };
  if (r.codes.length) policy.retriable_status_codes = r.codes;
  if (r.backoffMs) policy.retry_back_off = { base_interval: duration(r.backoffMs), max_interval: duration(r.backoffMs) };
  if (rule.timeouts?.backendRequestMs) policy.per_try_timeout = duration(rule.timeouts.backendRequestMs);
  action.retry_policy = policy;
}

function entryRoute(c: RouteCtx, listener: CompiledListener, e: CompiledHTTPEntry | CompiledGRPCEntry, grpc: boolean): Msg | null {
  if (e.match.invalid) return null;
  const rule = c.table.rules[e.rule];
  const route = c.table.routes[rule.route];
  const where = `${route.kind} ${route.namespace}/${route.name} rule ${rule.index}`;
  const http = (e as CompiledHTTPEntry).match;
  const match = grpc ? grpcMatch(e.match as CompiledGRPCMatch) : httpMatch(http);
  const prefix = !grpc && http.path.type === 'PathPrefix' ? http.path.value : undefined;
  return { name: routeName(route, rule.index, e.matchIndex), match, ...ruleFields(c, rule, where, listener, grpc, prefix) };
}

/** A gRPC call no GRPCRoute entry takes is answered UNIMPLEMENTED (Envoy turns a local 404 into it), not routed by HTTPRoutes, where the GRPCRoutes take the host's gRPC calls. */
const GRPC_NO_ROUTE: Msg = { name: 'switchyard/grpc-no-route', match: { prefix: '/', grpc: {} }, direct_response: { status: 404 } };

/**
 * The routes hosts of domain `d` get on `listener`: its gRPC entries, the gRPC catch-all, its HTTP
 * entries; only the HTTP entries, which then route gRPC calls too, where the HTTPRoutes take the
 * domain's gRPC calls (core/resolve/grpc-calls).
 */
function routesFor(c: RouteCtx, listener: CompiledListener, d: string): Msg[] {
  const out: Msg[] = [];
  if (grpcCallsTakenBy(c.table, listener, (h) => accepts(h, d)).kind === 'GRPCRoute') {
    for (const e of listener.grpcRoutes ?? []) {
      if (!accepts(e.hostname, d)) continue;
      const r = entryRoute(c, listener, e, true);
      if (r) out.push(r);
    }
    out.push(GRPC_NO_ROUTE);
  }
  for (const e of listener.httpRoutes ?? []) {
    if (!accepts(e.hostname, d)) continue;
    const r = entryRoute(c, listener, e, false);
    if (r) out.push(r);
  }
  return out;
}

const MISDIRECTED: Msg = {
  name: 'switchyard/misdirected',
  match: { prefix: '/' },
  direct_response: { status: 421, body: { inline_string: 'misdirected request: this connection\'s server name selects another listener\n' } },
};

/**
 * The route configuration of an HTTP port (`sni` absent: the Host selects among `listeners`) or of
 * an HTTPS listener's filter chain (`sni`: the listener the server name chose; a Host that selects
 * another listener of the port, or none, is answered 421 as the reference answers it).
 */
export function routeConfiguration(c: RouteCtx, name: string, listeners: readonly CompiledListener[], sni?: CompiledListener): Msg {
  const domains = new Set<string>(['']);
  for (const l of listeners) {
    domains.add((l.hostname ?? '').toLowerCase());
    for (const e of [...(l.httpRoutes ?? []), ...(l.grpcRoutes ?? [])]) domains.add(e.hostname.toLowerCase());
  }
  const virtualHosts: Msg[] = [];
  for (const d of sortDomains(domains)) {
    const selected = listenerForDomain(listeners, d);
    const domain = envoyDomain(d);
    if (sni && selected !== sni) virtualHosts.push({ name: domain, domains: [domain], routes: [MISDIRECTED] });
    // no listener takes these hosts: Envoy answers 404 where no virtual host matches, as the reference does
    else if (selected) virtualHosts.push({ name: domain, domains: [domain], routes: routesFor(c, selected, d) });
  }
  return { name, virtual_hosts: virtualHosts };
}
