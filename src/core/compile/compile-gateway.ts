// compileGateway: one Gateway's attachment -> its compiled route table (openapi/schemas/snapshot.yaml).
// Pure and deterministic: the same attachment and world give byte-identical JSON whatever order the
// objects came in, so the table can be hashed and an unchanged recompute detected.
import type { Route } from '../model/objects';
import type { AttachedRoute, GatewayAttachment, ListenerAttachment, RejectedRoute, World } from '../model/world';
import { unsupportedRules } from '../attach/rules';
import { effectiveHostnames } from '../match/hostname';
import { resolveBackendRef } from '../refs';
import { backendMemo } from '../refs/lookup';
import { orderGRPC, orderHTTP, orderSNI, orderStream } from '../precedence/ladder';
import { grpcRank, httpRank, sniRank, streamRank } from '../precedence/ranks';
import { compileBackend, type BackendResolver } from './backends';
import { durationMillis } from './duration';
import { compileFilters, type FilterContext } from './filters';
import { compileGRPCMatch, compileHTTPMatch, grpcMatchesOf, httpMatchesOf } from './matches';
import {
  TABLE_FORMAT,
  type CompiledBackend, type CompiledGRPCEntry, type CompiledHTTPEntry, type CompiledListener,
  type CompiledListenerTLS, type CompiledObjectRef, type CompiledProblem, type CompiledRoute, type CompiledRule,
  type CompiledSNIEntry, type CompiledStreamEntry, type CompiledTable, type CompiledTimeouts,
  type CompiledUnattachedRoute, type RouteKindName,
} from './types';

export interface CompileOptions {
  /** How backendRefs become backends; the reference-resolution step of the core by default. */
  resolveBackendRef?: BackendResolver;
  /** Carry the unattached routes (for resolve's explanations); default true. */
  includeUnattached?: boolean;
}

interface RouteInfo {
  key: string;
  meta: CompiledRoute;
}

/** An entry before rule indices are known: it names its rule by key. */
type Pending<E> = Omit<E, 'rule'> & { ruleKey: string };

const KIND_ORDER: RouteKindName[] = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'];

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function routeKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

function routeMeta(kind: RouteKindName, route: Route): CompiledRoute {
  const md = route.metadata ?? ({} as Route['metadata']);
  return {
    kind,
    namespace: md.namespace ?? 'default',
    name: md.name,
    ...(md.creationTimestamp ? { creationTimestamp: md.creationTimestamp } : {}),
    ...(typeof md.generation === 'number' ? { generation: md.generation } : {}),
  };
}

export function compileGateway(attachment: GatewayAttachment, world: World, opts: CompileOptions = {}): CompiledTable {
  const resolve = opts.resolveBackendRef ?? resolveBackendRef;
  const gw = attachment.gateway;
  const gwNs = gw.metadata.namespace ?? 'default';

  const routes = new Map<string, RouteInfo>();
  const rules = new Map<string, { routeKey: string; index: number; rule: Omit<CompiledRule, 'route'> }>();

  // The default resolver's answers depend on the grants, Services and slices alone, so a rule
  // compiled against the same ones is the same: it is kept (a change to one route recompiles that
  // route's rules, not its Gateway's).
  const memo = resolve === resolveBackendRef ? backendMemo<Map<number, Omit<CompiledRule, 'route'>>>(world, 'compiledRules') : undefined;
  const compiled = (kind: RouteKindName, route: Route, index: number): Omit<CompiledRule, 'route'> => {
    if (!memo) return compileRule(kind, route, index, { world, route, resolve });
    let byIndex = memo.get(route);
    if (!byIndex) memo.set(route, (byIndex = new Map()));
    let rule = byIndex.get(index);
    if (!rule) byIndex.set(index, (rule = compileRule(kind, route, index, { world, route, resolve })));
    return rule;
  };
  const ruleOf: RuleOf = (kind, route, index, plan) => {
    if (!routes.has(plan.rk)) routes.set(plan.rk, { key: plan.rk, meta: plan.meta });
    const key = plan.ruleKeys[index];
    if (!rules.has(key)) rules.set(key, { routeKey: plan.rk, index, rule: compiled(kind, route, index) });
    return key;
  };

  const pendingListeners = attachment.listeners.map((la) => compileListener(la, gw, gwNs, ruleOf));

  // indices: routes by kind, namespace, name; rules by route, then rule index
  const routeList = [...routes.values()].sort((a, b) =>
    KIND_ORDER.indexOf(a.meta.kind) - KIND_ORDER.indexOf(b.meta.kind) ||
    cmpStr(a.meta.namespace, b.meta.namespace) || cmpStr(a.meta.name, b.meta.name));
  const routeIndex = new Map(routeList.map((r, i) => [r.key, i]));
  const ruleList = [...rules.entries()].sort(([, a], [, b]) =>
    (routeIndex.get(a.routeKey)! - routeIndex.get(b.routeKey)!) || a.index - b.index);
  const ruleIndex = new Map(ruleList.map(([key], i) => [key, i]));
  // rule first after hostname keeps the JSON readable: {hostname, rule, matchIndex, match}
  const bind = <E>(entries: Pending<E>[]): E[] => entries.map((e) => {
    const out: Record<string, unknown> = {};
    if ('hostname' in e) out.hostname = (e as { hostname: unknown }).hostname;
    out.rule = ruleIndex.get(e.ruleKey)!;
    for (const k in e) if (k !== 'hostname' && k !== 'ruleKey') out[k] = (e as Record<string, unknown>)[k];
    return out as E;
  });

  const listeners: CompiledListener[] = pendingListeners.map((p) => {
    const l: CompiledListener = { ...p.head };
    if (p.http) l.httpRoutes = bind<CompiledHTTPEntry>(p.http);
    if (p.grpc) l.grpcRoutes = bind<CompiledGRPCEntry>(p.grpc);
    if (p.tls) l.tlsRoutes = bind<CompiledSNIEntry>(p.tls);
    if (p.tcp) l.tcpRoutes = bind<CompiledStreamEntry>(p.tcp);
    if (p.udp) l.udpRoutes = bind<CompiledStreamEntry>(p.udp);
    return l;
  });

  return {
    format: TABLE_FORMAT,
    gateway: { namespace: gwNs, name: gw.metadata.name },
    listeners,
    routes: routeList.map((r) => r.meta),
    rules: ruleList.map(([, r]) => withRoute(routeIndex.get(r.routeKey)!, r.rule)),
    unattached: opts.includeUnattached === false ? [] : compileUnattached(attachment.rejected ?? []),
  };
}

/** A rule of the table: `{ route, ...rule }`, remembering which compiled rule it carries (see tableJson). */
function withRoute(route: number, rule: Omit<CompiledRule, 'route'>): CompiledRule {
  const out = { route, ...rule } as CompiledRule;
  ruleBodies.set(out, rule);
  return out;
}

const ruleBodies = new WeakMap<CompiledRule, Omit<CompiledRule, 'route'>>();
const ruleJson = new WeakMap<object, string>();

/**
 * JSON.stringify(table), byte for byte, faster: most of a table is its rules, and a rule compiled
 * before (the same object, see compiled()) is serialized once and its text reused.
 */
export function tableJson(table: CompiledTable): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(table)) {
    if (v === undefined) continue;
    if (k !== 'rules') {
      parts.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
      continue;
    }
    const rules = (v as CompiledRule[]).map((r) => {
      const body = ruleBodies.get(r);
      if (!body || r.route === undefined) return JSON.stringify(r);
      let text = ruleJson.get(body);
      if (text === undefined) ruleJson.set(body, (text = JSON.stringify(body)));
      return text === '{}' ? `{"route":${JSON.stringify(r.route)}}` : `{"route":${JSON.stringify(r.route)},${text.slice(1)}`;
    });
    parts.push(`"rules":[${rules.join(',')}]`);
  }
  return `{${parts.join(',')}}`;
}

// ---------------------------------------------------------------------------------------------
// listeners

interface PendingListener {
  head: CompiledListener;
  http?: Pending<CompiledHTTPEntry>[];
  grpc?: Pending<CompiledGRPCEntry>[];
  tls?: Pending<CompiledSNIEntry>[];
  tcp?: Pending<CompiledStreamEntry>[];
  udp?: Pending<CompiledStreamEntry>[];
}

type RuleOf = (kind: RouteKindName, route: Route, index: number, plan: RoutePlan) => string;

/**
 * What one route contributes to a listener with given hostnames, before rule indices are known:
 * its entries with their ranks. It depends on the route and the hostnames alone, so it is kept
 * for as long as the route object lives.
 */
interface RoutePlan {
  rk: string;
  meta: CompiledRoute;
  /** the rules map key of each rule index */
  ruleKeys: string[];
  http: { rank: ReturnType<typeof httpRank>; hostname: string; ri: number; mi: number; match: CompiledHTTPEntry['match'] }[];
  grpc: { rank: ReturnType<typeof grpcRank>; hostname: string; ri: number; mi: number; match: CompiledGRPCEntry['match'] }[];
  sni: { rank: ReturnType<typeof sniRank>; hostname: string; ri: number }[];
  stream: { rank: ReturnType<typeof streamRank>; ri: number }[];
}

const plans = new WeakMap<Route, Map<string, RoutePlan>>();

function planOf(kind: RouteKindName, route: Route, hostnames: string[]): RoutePlan {
  const key = `${kind}|${hostnames.join(',')}`;
  let byHostnames = plans.get(route);
  if (!byHostnames) plans.set(route, (byHostnames = new Map()));
  let plan = byHostnames.get(key);
  if (!plan) byHostnames.set(key, (plan = makePlan(kind, route, hostnames)));
  return plan;
}

function makePlan(kind: RouteKindName, route: Route, hostnames: string[]): RoutePlan {
  const meta = routeMeta(kind, route);
  const rk = routeKey(kind, meta.namespace, meta.name);
  const dropped = unsupportedRules(route);
  // a rule that uses a value we do not support is dropped (the route reports PartiallyInvalid)
  const rules: any[] = (Array.isArray((route.spec as any)?.rules) ? (route.spec as any).rules : [])
    .map((r: any, i: number) => (dropped.has(i) ? undefined : r));
  const plan: RoutePlan = { rk, meta, ruleKeys: rules.map((_, i) => `${rk}#${i}`), http: [], grpc: [], sni: [], stream: [] };
  const seen = new Set<string>();
  const once = (key: string) => (seen.has(key) ? false : (seen.add(key), true));
  rules.forEach((rule, ri) => {
    if (!rule) return;
    if (kind === 'HTTPRoute') {
      httpMatchesOf(rule).forEach((m, mi) => {
        const match = compileHTTPMatch(m);
        for (const hostname of hostnames) {
          if (once(`${hostname}|${ri}|${mi}`)) plan.http.push({ rank: httpRank(hostname, match, meta, ri, mi), hostname, ri, mi, match });
        }
      });
    } else if (kind === 'GRPCRoute') {
      grpcMatchesOf(rule).forEach((m, mi) => {
        const match = compileGRPCMatch(m);
        for (const hostname of hostnames) {
          if (once(`${hostname}|${ri}|${mi}`)) plan.grpc.push({ rank: grpcRank(hostname, match, meta, ri, mi), hostname, ri, mi, match });
        }
      });
    } else if (kind === 'TLSRoute') {
      for (const hostname of hostnames) if (once(`${hostname}|${ri}`)) plan.sni.push({ rank: sniRank(hostname, meta, ri), hostname, ri });
    } else {
      plan.stream.push({ rank: streamRank(meta, ri), ri });
    }
  });
  return plan;
}

function compileListener(la: ListenerAttachment, gw: any, gwNs: string, ruleOf: RuleOf): PendingListener {
  const l = la.listener ?? {};
  const protocol = String(l.protocol ?? '');
  const head: CompiledListener = {
    name: String(l.name),
    port: Number(l.port),
    protocol,
    ...(l.hostname ? { hostname: String(l.hostname).toLowerCase() } : {}),
    valid: la.valid !== false,
  };
  const tls = listenerTLS(l, gw, gwNs, protocol);
  if (tls) head.tls = tls;

  const out: PendingListener = { head };
  const isHTTP = protocol === 'HTTP' || protocol === 'HTTPS';
  if (isHTTP) {
    out.http = [];
    out.grpc = [];
  }
  if (protocol === 'TLS') out.tls = [];
  if (protocol === 'TCP') out.tcp = [];
  if (protocol === 'UDP') out.udp = [];

  const httpRanked: { rank: ReturnType<typeof httpRank>; entry: Pending<CompiledHTTPEntry> }[] = [];
  const grpcRanked: { rank: ReturnType<typeof grpcRank>; entry: Pending<CompiledGRPCEntry> }[] = [];
  const sniRanked: { rank: ReturnType<typeof sniRank>; entry: Pending<CompiledSNIEntry> }[] = [];
  const tcpRanked: { rank: ReturnType<typeof streamRank>; entry: Pending<CompiledStreamEntry> }[] = [];
  const udpRanked: { rank: ReturnType<typeof streamRank>; entry: Pending<CompiledStreamEntry> }[] = [];

  for (const ar of la.routes ?? []) {
    const kind = ar.kind as RouteKindName;
    const route = ar.route;
    const fits = (kind === 'HTTPRoute' && out.http) || (kind === 'GRPCRoute' && out.grpc) || (kind === 'TLSRoute' && out.tls)
      || (kind === 'TCPRoute' && out.tcp) || (kind === 'UDPRoute' && out.udp);
    if (!fits) continue;
    const plan = planOf(kind, route, hostnamesOf(ar, head.hostname));
    for (const e of plan.http) {
      httpRanked.push({ rank: e.rank, entry: { hostname: e.hostname, ruleKey: ruleOf(kind, route, e.ri, plan), matchIndex: e.mi, match: e.match } });
    }
    for (const e of plan.grpc) {
      grpcRanked.push({ rank: e.rank, entry: { hostname: e.hostname, ruleKey: ruleOf(kind, route, e.ri, plan), matchIndex: e.mi, match: e.match } });
    }
    for (const e of plan.sni) sniRanked.push({ rank: e.rank, entry: { hostname: e.hostname, ruleKey: ruleOf(kind, route, e.ri, plan) } });
    const list = kind === 'TCPRoute' ? tcpRanked : udpRanked;
    for (const e of plan.stream) list.push({ rank: e.rank, entry: { ruleKey: ruleOf(kind, route, e.ri, plan) } });
  }

  if (out.http) out.http = httpRanked.sort((a, b) => orderHTTP(a.rank, b.rank) || tieByHostname(a.entry, b.entry)).map((x) => x.entry);
  if (out.grpc) out.grpc = grpcRanked.sort((a, b) => orderGRPC(a.rank, b.rank) || tieByHostname(a.entry, b.entry)).map((x) => x.entry);
  if (out.tls) out.tls = sniRanked.sort((a, b) => orderSNI(a.rank, b.rank) || tieByHostname(a.entry, b.entry)).map((x) => x.entry);
  if (out.tcp) out.tcp = tcpRanked.sort((a, b) => orderStream(a.rank, b.rank)).map((x) => x.entry);
  if (out.udp) out.udp = udpRanked.sort((a, b) => orderStream(a.rank, b.rank)).map((x) => x.entry);
  return out;
}

/** Two wildcard hostnames of equal length rank equal; order them by name to stay deterministic. */
function tieByHostname(a: { hostname: string }, b: { hostname: string }): number {
  return cmpStr(a.hostname, b.hostname);
}

function hostnamesOf(ar: AttachedRoute, listenerHostname: string | undefined): string[] {
  const given = (ar.hostnames ?? []).map((h) => h.toLowerCase());
  const list = given.length > 0 ? given : effectiveHostnames(listenerHostname, (ar.route.spec as any)?.hostnames);
  const out = [...new Set(list.length ? list : [listenerHostname ?? ''])];
  return out.sort();
}

function listenerTLS(l: any, gw: any, gwNs: string, protocol: string): CompiledListenerTLS | undefined {
  if (protocol !== 'HTTPS' && protocol !== 'TLS') return undefined;
  const mode = l.tls?.mode === 'Passthrough' ? 'Passthrough' : 'Terminate';
  const certificateRefs: CompiledObjectRef[] = (l.tls?.certificateRefs ?? []).map((r: any) => ({
    group: r.group ?? '',
    kind: r.kind ?? 'Secret',
    namespace: r.namespace ?? gwNs,
    name: String(r.name),
  }));
  const out: CompiledListenerTLS = { mode, certificateRefs };
  if (mode === 'Terminate') {
    const frontend = gw?.spec?.tls?.frontend;
    const perPort = (frontend?.perPort ?? []).find((p: any) => Number(p?.port) === Number(l.port));
    const validation = perPort ? perPort.tls?.validation : frontend?.default?.validation;
    const cas = validation?.caCertificateRefs;
    if (Array.isArray(cas) && cas.length > 0) {
      out.caCertificateRefs = cas.map((r: any) => ({
        group: r.group ?? '',
        kind: r.kind ?? 'ConfigMap',
        namespace: r.namespace ?? gwNs,
        name: String(r.name),
      }));
      out.clientValidationMode = validation.mode ?? 'AllowValidOnly';
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// rules

function compileRule(kind: RouteKindName, route: Route, index: number, ctx: FilterContext): Omit<CompiledRule, 'route'> {
  const rule: any = (route.spec as any)?.rules?.[index] ?? {};
  const isHTTP = kind === 'HTTPRoute';
  const isGRPC = kind === 'GRPCRoute';
  let invalid: CompiledProblem | undefined;

  const ruleFilters = isHTTP || isGRPC ? compileFilters(rule.filters, isHTTP ? 'rule' : 'grpcRule', ctx) : { filters: [] };
  if (ruleFilters.problem) invalid = ruleFilters.problem;

  const backends: CompiledBackend[] = (Array.isArray(rule.backendRefs) ? rule.backendRefs : []).map((ref: any) => {
    const res = ctx.resolve(ctx.world, route, ref);
    if (!isHTTP && !isGRPC) return compileBackend(res);
    const bf = compileFilters(ref?.filters, isHTTP ? 'backend' : 'grpcRule', ctx);
    return compileBackend(res, bf.filters, bf.problem);
  });

  if (isHTTP && !invalid) {
    const usesPrefixReplace = [ruleFilters.filters, ...backends.map((b) => b.filters ?? [])].some((fs) =>
      fs.some((f) => f.requestRedirect?.path?.type === 'ReplacePrefixMatch' || f.urlRewrite?.path?.type === 'ReplacePrefixMatch'));
    if (usesPrefixReplace && httpMatchesOf(rule).some((m) => (m?.path?.type ?? 'PathPrefix') !== 'PathPrefix')) {
      invalid = { reason: 'UnsupportedValue', message: 'ReplacePrefixMatch needs every match of the rule to be a PathPrefix match' };
    }
  }

  const out = { index } as Omit<CompiledRule, 'route'>;
  if (typeof rule.name === 'string' && rule.name) out.name = rule.name;
  out.filters = ruleFilters.filters;
  out.backends = backends;
  const timeouts = isHTTP ? compileTimeouts(rule.timeouts) : undefined;
  if (timeouts) out.timeouts = timeouts;
  if (invalid) out.invalid = invalid;
  return out as Omit<CompiledRule, 'route'>;
}

function compileTimeouts(t: any): CompiledTimeouts | undefined {
  if (!t) return undefined;
  const out: CompiledTimeouts = {};
  const request = durationMillis(t.request);
  const backendRequest = durationMillis(t.backendRequest);
  if (request !== undefined) out.requestMs = request;
  if (backendRequest !== undefined) out.backendRequestMs = backendRequest;
  return Object.keys(out).length ? out : undefined;
}

// ---------------------------------------------------------------------------------------------
// unattached routes (for explanations)

export function compileUnattached(rejected: readonly RejectedRoute[]): CompiledUnattachedRoute[] {
  const out: CompiledUnattachedRoute[] = [];
  const seen = new Set<string>();
  for (const r of rejected) {
    const meta = routeMeta(r.kind as RouteKindName, r.route);
    const key = `${routeKey(meta.kind, meta.namespace, meta.name)}|${r.parentRefIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const parentRef = (r.route.spec as any)?.parentRefs?.[r.parentRefIndex] ?? {};
    const rules: any[] = Array.isArray((r.route.spec as any)?.rules) ? (r.route.spec as any).rules : [];
    const u: CompiledUnattachedRoute = {
      kind: meta.kind,
      namespace: meta.namespace,
      name: meta.name,
      ...(meta.creationTimestamp ? { creationTimestamp: meta.creationTimestamp } : {}),
      parentRefIndex: r.parentRefIndex,
      ...(parentRef.sectionName ? { sectionName: String(parentRef.sectionName) } : {}),
      ...(parentRef.port ? { port: Number(parentRef.port) } : {}),
      reason: r.reason,
      message: r.message,
      hostnames: [...new Set<string>(((r.route.spec as any)?.hostnames ?? []).map((h: string) => h.toLowerCase()))].sort(),
    };
    if (meta.kind === 'HTTPRoute') {
      u.httpMatches = rules.flatMap((rule, ruleIndex) =>
        httpMatchesOf(rule).map((m, matchIndex) => ({ ruleIndex, matchIndex, match: compileHTTPMatch(m) })));
    } else if (meta.kind === 'GRPCRoute') {
      u.grpcMatches = rules.flatMap((rule, ruleIndex) =>
        grpcMatchesOf(rule).map((m, matchIndex) => ({ ruleIndex, matchIndex, match: compileGRPCMatch(m) })));
    }
    out.push(u);
  }
  return out.sort((a, b) =>
    KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || cmpStr(a.namespace, b.namespace) ||
    cmpStr(a.name, b.name) || a.parentRefIndex - b.parentRefIndex);
}
