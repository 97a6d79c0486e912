// Step 4, order: per listener, every entry the attached routes contribute (a hostname x a match of
// a rule), ranked and sorted so that the first match wins. Compile then only binds the entries to
// the table's rule indices.
import type { Route } from '../model/objects';
import type { AttachedRoute, GatewayAttachment, ListenerAttachment } from '../model/world';
import { rulesOf } from '../model/route-parts';
import { unreachable } from '../model/unreachable';
import { unsupportedRules } from '../attach/rules';
import { memoSlot, type TranslationContext } from '../translate/context';
import { compileGRPCMatch, compileHTTPMatch, grpcMatchesOf, httpMatchesOf } from '../compile/matches';
import type { CompiledGRPCMatch, CompiledHTTPMatch, CompiledRoute, RouteKindName } from '../compile/types';
import { orderGRPC, orderHTTP, orderSNI, orderStream, type GRPCRank, type HTTPRank, type SNIRank, type StreamRank } from './ladder';
import { grpcRank, httpRank, sniRank, streamRank } from './ranks';

export function routeKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export function routeMeta(kind: RouteKindName, route: Route): CompiledRoute {
  const md = route.metadata ?? ({} as Route['metadata']);
  return {
    kind,
    namespace: md.namespace ?? 'default',
    name: md.name,
    ...(md.creationTimestamp ? { creationTimestamp: md.creationTimestamp } : {}),
    ...(typeof md.generation === 'number' ? { generation: md.generation } : {}),
  };
}

/**
 * What one route contributes to a listener with given hostnames: its entries with their ranks. It
 * depends on the route and the hostnames alone, so it is kept for as long as the route object lives.
 */
export interface RoutePlan {
  kind: RouteKindName;
  route: Route;
  rk: string;
  meta: CompiledRoute;
  /** the key of each rule index, unique in the table */
  ruleKeys: string[];
  http: HTTPPlanEntry[];
  grpc: GRPCPlanEntry[];
  sni: SNIPlanEntry[];
  stream: StreamPlanEntry[];
}

export interface HTTPPlanEntry { plan: RoutePlan; rank: HTTPRank; hostname: string; ri: number; mi: number; match: CompiledHTTPMatch }
export interface GRPCPlanEntry { plan: RoutePlan; rank: GRPCRank; hostname: string; ri: number; mi: number; match: CompiledGRPCMatch }
export interface SNIPlanEntry { plan: RoutePlan; rank: SNIRank; hostname: string; ri: number }
export interface StreamPlanEntry { plan: RoutePlan; rank: StreamRank; ri: number }

/** One listener's entries in the order a proxy tries them; a list is absent when the protocol carries no such routes. */
export interface OrderedListener {
  attachment: ListenerAttachment;
  protocol: string;
  /** lower-cased */
  hostname?: string;
  http?: HTTPPlanEntry[];
  grpc?: GRPCPlanEntry[];
  tls?: SNIPlanEntry[];
  tcp?: StreamPlanEntry[];
  udp?: StreamPlanEntry[];
}

const PLANS = memoSlot('precedence.plans', () => new WeakMap<Route, Map<string, RoutePlan>>());

function planOf(ctx: TranslationContext, kind: RouteKindName, route: Route, hostnames: string[]): RoutePlan {
  const key = `${kind}|${hostnames.join(',')}`;
  const plans = ctx.memo(PLANS);
  let byHostnames = plans.get(route);
  if (!byHostnames) plans.set(route, (byHostnames = new Map()));
  let plan = byHostnames.get(key);
  if (!plan) byHostnames.set(key, (plan = makePlan(ctx, kind, route, hostnames)));
  return plan;
}

function makePlan(ctx: TranslationContext, kind: RouteKindName, route: Route, hostnames: string[]): RoutePlan {
  const meta = routeMeta(kind, route);
  const rk = routeKey(kind, meta.namespace, meta.name);
  const dropped = unsupportedRules(ctx, route);
  // a rule that uses a value we do not support is dropped (the route reports PartiallyInvalid)
  const rules = rulesOf(route).map((r, i) => (dropped.has(i) ? undefined : r));
  const plan: RoutePlan = { kind, route, rk, meta, ruleKeys: rules.map((_, i) => `${rk}#${i}`), http: [], grpc: [], sni: [], stream: [] };
  const seen = new Set<string>();
  const once = (key: string) => (seen.has(key) ? false : (seen.add(key), true));
  rules.forEach((rule, ri) => {
    if (!rule) return;
    switch (kind) {
      case 'HTTPRoute':
        httpMatchesOf(rule).forEach((m, mi) => {
          const match = compileHTTPMatch(m);
          for (const hostname of hostnames) {
            if (once(`${hostname}|${ri}|${mi}`)) plan.http.push({ plan, rank: httpRank(hostname, match, meta, ri, mi), hostname, ri, mi, match });
          }
        });
        return;
      case 'GRPCRoute':
        grpcMatchesOf(rule).forEach((m, mi) => {
          const match = compileGRPCMatch(m);
          for (const hostname of hostnames) {
            if (once(`${hostname}|${ri}|${mi}`)) plan.grpc.push({ plan, rank: grpcRank(hostname, match, meta, ri, mi), hostname, ri, mi, match });
          }
        });
        return;
      case 'TLSRoute':
        for (const hostname of hostnames) if (once(`${hostname}|${ri}`)) plan.sni.push({ plan, rank: sniRank(hostname, meta, ri), hostname, ri });
        return;
      case 'TCPRoute':
      case 'UDPRoute':
        plan.stream.push({ plan, rank: streamRank(meta, ri), ri });
        return;
      default:
        return unreachable(kind, 'route kind');
    }
  });
  return plan;
}

/** Two wildcard hostnames of equal length rank equal; order them by name to stay deterministic. */
function tieByHostname(a: { hostname: string }, b: { hostname: string }): number {
  return a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : 0;
}

/** The hostnames a route serves on a listener, as entries carry them ("" = any). */
function hostnamesOf(ar: AttachedRoute, listenerHostname: string | undefined): string[] {
  // attach gives the intersections; none means neither side restricts, so the listener's (or any)
  const given = (ar.hostnames ?? []).map((h) => h.toLowerCase());
  return [...new Set(given.length > 0 ? given : [listenerHostname ?? ''])].sort();
}

function orderListener(ctx: TranslationContext, la: ListenerAttachment): OrderedListener {
  const l = la.listener;
  const protocol = String(l?.protocol ?? '');
  const hostname = l?.hostname ? String(l.hostname).toLowerCase() : undefined;
  const out: OrderedListener = { attachment: la, protocol, ...(hostname ? { hostname } : {}) };
  const http: HTTPPlanEntry[] | undefined = protocol === 'HTTP' || protocol === 'HTTPS' ? [] : undefined;
  const grpc: GRPCPlanEntry[] | undefined = http ? [] : undefined;
  const tls: SNIPlanEntry[] | undefined = protocol === 'TLS' ? [] : undefined;
  const tcp: StreamPlanEntry[] | undefined = protocol === 'TCP' ? [] : undefined;
  const udp: StreamPlanEntry[] | undefined = protocol === 'UDP' ? [] : undefined;

  for (const ar of la.routes ?? []) {
    const kind = ar.kind;
    const list = kind === 'HTTPRoute' ? http : kind === 'GRPCRoute' ? grpc : kind === 'TLSRoute' ? tls : kind === 'TCPRoute' ? tcp : udp;
    if (!list) continue;
    const plan = planOf(ctx, kind, ar.route, hostnamesOf(ar, hostname));
    if (http) for (const e of plan.http) http.push(e);
    if (grpc) for (const e of plan.grpc) grpc.push(e);
    if (tls) for (const e of plan.sni) tls.push(e);
    const stream = kind === 'TCPRoute' ? tcp : kind === 'UDPRoute' ? udp : undefined;
    if (stream) for (const e of plan.stream) stream.push(e);
  }

  if (http) out.http = http.sort((a, b) => orderHTTP(a.rank, b.rank) || tieByHostname(a, b));
  if (grpc) out.grpc = grpc.sort((a, b) => orderGRPC(a.rank, b.rank) || tieByHostname(a, b));
  if (tls) out.tls = tls.sort((a, b) => orderSNI(a.rank, b.rank) || tieByHostname(a, b));
  if (tcp) out.tcp = tcp.sort((a, b) => orderStream(a.rank, b.rank));
  if (udp) out.udp = udp.sort((a, b) => orderStream(a.rank, b.rank));
  return out;
}

/** Step 4 over every listener of the attachment. */
export function orderGateway(ctx: TranslationContext, attachment: GatewayAttachment): OrderedListener[] {
  return attachment.listeners.map((la) => orderListener(ctx, la));
}
