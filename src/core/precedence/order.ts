// Step 4, order: per listener, every entry the attached routes contribute (a hostname x a match of
// a rule), ranked and sorted so that the first match wins. Compile then only binds the entries to
// the table's rule indices.
import { SmallMap } from '../model/small-map';
import type { Route } from '../model/objects';
import type { AttachedRoute, GatewayAttachment, ListenerAttachment } from '../model/world';
import { routeHostnames, rulesOf } from '../model/route-parts';
import { covers } from '../match/hostname';
import { unreachable } from '../model/unreachable';
import { unsupportedRules } from '../attach/rules';
import { memoSlot, type TranslationContext } from '../translate/context';
import { patchSorted } from '../model/sorted';
import { trimmed } from '../model/trimmed';
import { lastShared } from '../model/last-shared';
import { streamOfObject } from '../objects/keys';
import type { Part } from '../snapshot/table-parts';
import { compileGRPCMatch, compileHTTPMatch, grpcMatchesOf, httpMatchesOf } from '../compile/matches';
import type { CompiledGRPCMatch, CompiledHTTPMatch, CompiledRoute, RouteKindName } from '../compile/types';
import { compareHostSpecificity, orderGRPC, orderHTTP, orderSNI, orderStream, type GRPCRank, type HTTPRank, type RouteTieBreak, type SNIRank, type StreamRank } from './ladder';
import { grpcRank, httpRank, sniRank, streamRank } from './ranks';

// keys are joined, not concatenated: a concatenation is held as a tree of its pieces (a Gateway of
// 50,000 routes holds some ten keys a route), a join as one string
export function routeKey(kind: string, namespace: string, name: string): string {
  return [kind, namespace, name].join('/');
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

// `id`: the entry's part id in a snapshot (core/snapshot/table-parts entryId), made once per plan;
// `part`: that part, once compile made it (kept here rather than in a map beside: a Gateway of
// 50,000 routes has some 150,000 entries). The compiled match is not kept (its objects took some
// 130 bytes an entry, read only to make the entry's part): httpEntryMatch and grpcEntryMatch make
// it again from the route. An entry is its own rank: the rank's fields are copied onto it when it
// is made (a rank object beside each entry took some 120 bytes), and `rank`, `ri`, `mi` read them.
class RankedEntry<R extends RouteTieBreak> {
  part: Part | undefined = undefined;
  constructor(readonly plan: RoutePlan, readonly id: string, rank: R) {
    Object.assign(this, rank);
  }
  get rank(): R {
    return this as unknown as R;
  }
  get ri(): number {
    return this.rank.ruleIndex;
  }
  get mi(): number {
    return this.rank.matchIndex;
  }
}
type PlanEntryOf<R extends RouteTieBreak> = RankedEntry<R> & R;
const entryOf = <R extends RouteTieBreak>(plan: RoutePlan, id: string, rank: R): PlanEntryOf<R> => new RankedEntry(plan, id, rank) as PlanEntryOf<R>;

export type HTTPPlanEntry = PlanEntryOf<HTTPRank>;
export type GRPCPlanEntry = PlanEntryOf<GRPCRank>;
export type SNIPlanEntry = PlanEntryOf<SNIRank>;
export type StreamPlanEntry = PlanEntryOf<StreamRank>;

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

// a route's plans are kept by this key: joined (a concatenation is held as a tree of its pieces),
// and the routes of one listener, planned one after another, share one copy of it
const sameHostnamesKey = lastShared<string>();

function planOf(ctx: TranslationContext, kind: RouteKindName, route: Route, hostnames: string[]): RoutePlan {
  const key = sameHostnamesKey([kind, hostnames.join(',')].join('|'));
  const plans = ctx.memo(PLANS);
  let byHostnames = plans.get(route);
  if (!byHostnames) plans.set(route, (byHostnames = new SmallMap()));
  let plan = byHostnames.get(key);
  if (!plan) byHostnames.set(key, (plan = makePlan(ctx, kind, route, hostnames)));
  return plan;
}

function makePlan(ctx: TranslationContext, kind: RouteKindName, route: Route, hostnames: string[]): RoutePlan {
  const meta = routeMeta(kind, route);
  // the route's stream where it is the same words (a route with a namespace): one string a route
  const rk = route.kind === kind && route.metadata?.namespace !== undefined ? streamOfObject(route) : routeKey(kind, meta.namespace, meta.name);
  const dropped = unsupportedRules(ctx, route);
  // a rule that uses a value we do not support is dropped (the route reports PartiallyInvalid)
  const rules = rulesOf(route).map((r, i) => (dropped.has(i) ? undefined : r));
  const plan: RoutePlan = { kind, route, rk, meta, ruleKeys: rules.map((_, i) => [rk, i].join('#')), http: [], grpc: [], sni: [], stream: [] };
  const seen = new Set<string>();
  const once = (key: string) => (seen.has(key) ? false : (seen.add(key), true));
  const own = ownHostnames(route, hostnames);
  rules.forEach((rule, ri) => {
    if (!rule) return;
    switch (kind) {
      case 'HTTPRoute':
        httpMatchesOf(rule).forEach((m, mi) => {
          const match = compileHTTPMatch(m);
          for (const hostname of hostnames) {
            if (once(`${hostname}|${ri}|${mi}`)) plan.http.push(entryOf(plan, [plan.ruleKeys[ri], mi, hostname].join('|'), { ...httpRank(hostname, match, meta, ri, mi), ownHostname: own.get(hostname)! }));
          }
        });
        return;
      case 'GRPCRoute':
        grpcMatchesOf(rule).forEach((m, mi) => {
          const match = compileGRPCMatch(m);
          for (const hostname of hostnames) {
            if (once(`${hostname}|${ri}|${mi}`)) plan.grpc.push(entryOf(plan, [plan.ruleKeys[ri], mi, hostname].join('|'), { ...grpcRank(hostname, match, meta, ri, mi), ownHostname: own.get(hostname)! }));
          }
        });
        return;
      case 'TLSRoute':
        for (const hostname of hostnames) if (once(`${hostname}|${ri}`)) plan.sni.push(entryOf(plan, [plan.ruleKeys[ri], '', hostname].join('|'), { ...sniRank(hostname, meta, ri), ownHostname: own.get(hostname)! }));
        return;
      case 'TCPRoute':
      case 'UDPRoute':
        plan.stream.push(entryOf(plan, [plan.ruleKeys[ri], '', ''].join('|'), streamRank(meta, ri)));
        return;
      default:
        return unreachable(kind, 'route kind');
    }
  });
  plan.http = trimmed(plan.http);
  plan.grpc = trimmed(plan.grpc);
  plan.sni = trimmed(plan.sni);
  plan.stream = trimmed(plan.stream);
  return plan;
}

/** The compiled match of an HTTP entry (made again from its route: the plan was made from the same). */
export function httpEntryMatch(e: HTTPPlanEntry): CompiledHTTPMatch {
  return compileHTTPMatch(httpMatchesOf(rulesOf(e.plan.route)[e.ri])[e.mi]);
}

/** The compiled match of a gRPC entry. */
export function grpcEntryMatch(e: GRPCPlanEntry): CompiledGRPCMatch {
  return compileGRPCMatch(grpcMatchesOf(rulesOf(e.plan.route)[e.ri])[e.mi]);
}

/**
 * For each entry hostname (an intersection with the listener's), the most specific of the route's
 * own hostnames that covers it ("" when the route names none): what precedence compares when two
 * routes' intersections are equal.
 */
function ownHostnames(route: Route, hostnames: readonly string[]): Map<string, string> {
  const given = routeHostnames(route).map((h) => h.toLowerCase());
  const out = new Map<string, string>();
  for (const h of hostnames) {
    let best = '';
    for (const g of given) if (covers(g, h) && (best === '' || compareHostSpecificity(g, best) < 0)) best = g;
    out.set(h, h === '' ? '' : best);
  }
  return out;
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

type Lists = Pick<OrderedListener, 'http' | 'grpc' | 'tls' | 'tcp' | 'udp'>;

// What a listener was ordered from last time, and the order: a recompute that changes a few routes
// takes the previous order, drops the entries of the plans that went and inserts those of the plans
// that came. Each ladder is a total order over a listener's entries (the tie-breaks end at the
// route's name, its rule and match, and the hostname), so this gives exactly what a sort gives.
interface OrderedMemo {
  protocol: string;
  hostname: string | undefined;
  plans: RoutePlan[];
  planSet: Set<RoutePlan>;
  lists: Lists;
}
const ORDERED = memoSlot('precedence.ordered', () => new WeakMap<object, OrderedMemo>());
/** beyond this many plans come or gone, sorting afresh is as cheap */
const PATCH_LIMIT = 256;

const LADDERS = {
  http: (a: HTTPPlanEntry, b: HTTPPlanEntry) => orderHTTP(a.rank, b.rank) || tieByHostname(a, b),
  grpc: (a: GRPCPlanEntry, b: GRPCPlanEntry) => orderGRPC(a.rank, b.rank) || tieByHostname(a, b),
  tls: (a: SNIPlanEntry, b: SNIPlanEntry) => orderSNI(a.rank, b.rank) || tieByHostname(a, b),
  tcp: (a: StreamPlanEntry, b: StreamPlanEntry) => orderStream(a.rank, b.rank),
  udp: (a: StreamPlanEntry, b: StreamPlanEntry) => orderStream(a.rank, b.rank),
};

/** The order of a listener's entries in one list (the table's httpRoutes, grpcRoutes, ...): a total order. */
export function entryOrder(list: keyof Lists): (a: never, b: never) => number {
  return LADDERS[list] as (a: never, b: never) => number;
}

function entriesOf(plan: RoutePlan, list: keyof Lists): readonly unknown[] {
  switch (list) {
    case 'http': return plan.http;
    case 'grpc': return plan.grpc;
    case 'tls': return plan.sni;
    case 'tcp': return plan.kind === 'TCPRoute' ? plan.stream : [];
    case 'udp': return plan.kind === 'UDPRoute' ? plan.stream : [];
  }
}

function orderListener(ctx: TranslationContext, la: ListenerAttachment): OrderedListener {
  const l = la.listener;
  const protocol = String(l?.protocol ?? '');
  const hostname = l?.hostname ? String(l.hostname).toLowerCase() : undefined;
  const out: OrderedListener = { attachment: la, protocol, ...(hostname ? { hostname } : {}) };
  const lists: Lists = {};
  if (protocol === 'HTTP' || protocol === 'HTTPS') { lists.http = []; lists.grpc = []; }
  if (protocol === 'TLS') lists.tls = [];
  // a TLS listener that terminates carries TCPRoutes too (the decrypted stream)
  const terminatingTLS = protocol === 'TLS' && (l?.tls?.mode ?? 'Terminate') === 'Terminate';
  if (protocol === 'TCP' || terminatingTLS) lists.tcp = [];
  // what the lists are made of: the memo below may patch only lists of the same shape
  const shape = terminatingTLS ? 'TLS+TCP' : protocol;
  if (protocol === 'UDP') lists.udp = [];
  const names = Object.keys(lists) as (keyof Lists)[];

  const plans: RoutePlan[] = [];
  for (const ar of la.routes ?? []) {
    const kind = ar.kind;
    const list = kind === 'HTTPRoute' ? lists.http : kind === 'GRPCRoute' ? lists.grpc : kind === 'TLSRoute' ? lists.tls : kind === 'TCPRoute' ? lists.tcp : lists.udp;
    if (list) plans.push(planOf(ctx, kind, ar.route, hostnamesOf(ar, hostname)));
  }

  const memo = l ? ctx.memo(ORDERED) : undefined;
  const prev = l ? memo!.get(l) : undefined;
  const planSet = new Set(plans);
  let patched: Lists | undefined;
  if (prev && prev.protocol === shape && prev.hostname === hostname) {
    const added = plans.filter((p) => !prev.planSet.has(p));
    const gone = added.length <= PATCH_LIMIT ? new Set(prev.plans.filter((p) => !planSet.has(p))) : undefined;
    if (gone && gone.size <= PATCH_LIMIT) {
      patched = {};
      for (const name of names) {
        const cmp = LADDERS[name] as (a: unknown, b: unknown) => number;
        (patched as Record<string, unknown>)[name] = patchSorted<unknown>(prev.lists[name] as { plan: RoutePlan }[],
          gone.size ? (e) => !gone.has((e as { plan: RoutePlan }).plan) : undefined, added.flatMap((p) => entriesOf(p, name)), cmp);
      }
    }
  }
  if (!patched) {
    patched = {};
    for (const name of names) {
      const list: unknown[] = [];
      for (const p of plans) for (const e of entriesOf(p, name)) list.push(e);
      (patched as Record<string, unknown>)[name] = list.sort(LADDERS[name] as (a: unknown, b: unknown) => number);
    }
  }
  if (memo) memo.set(l!, { protocol: shape, hostname, plans, planSet, lists: patched });
  // the lists are shared with the next recompute's patch: callers read them, never change them
  Object.assign(out, patched);
  return out;
}

/** Step 4 over every listener of the attachment. */
export function orderGateway(ctx: TranslationContext, attachment: GatewayAttachment): OrderedListener[] {
  return attachment.listeners.map((la) => orderListener(ctx, la));
}
