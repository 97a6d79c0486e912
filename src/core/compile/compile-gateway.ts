// Step 5, compile: one Gateway's ordered listeners -> its compiled route table
// (openapi/schemas/snapshot.yaml). Pure and deterministic: the same attachment and world give
// byte-identical JSON whatever order the objects came in, so the table can be hashed and an
// unchanged recompute detected.
import { SmallMap } from '../model/small-map';
import type { Gateway, HTTPRouteRetry, Listener, ObjectReference, ParentReference, Route, SecretObjectReference } from '../model/objects';
import type { GatewayAttachment, RejectedRoute, World } from '../model/world';
import { backendRefFilters, ruleBackendRefs, ruleFilters, rulesOf, routeHostnames, type RouteRule } from '../model/route-parts';
import { frontendValidationFor, resolveFrontendValidation, type FrontendValidation } from '../refs/ca';
import { resolveClientCertificate } from '../refs/certificates';
import { resolveBackendRef } from '../refs/backends';
import { backendTLSMemoKey, originatesTLS, withBackendTLS } from '../refs/backend-tls';
import { backendMemo, cmp, viewOf, type WorldView } from '../refs/lookup';
import { RouteReason } from '../status/reasons';
import { memoSlot, TranslationContext } from '../translate/context';
import { keepRecent } from '../model/recent';
import { patchSorted } from '../model/sorted';
import { compileSessionPersistence, type SessionPersistenceSpec } from '../session/cookie';
import { grpcEntryMatch, httpEntryMatch, orderGateway, routeKey, routeMeta, type GRPCPlanEntry, type HTTPPlanEntry, type OrderedListener, type RoutePlan } from '../precedence/order';
import { compileBackend, type BackendResolver } from './backends';
import { emptyList, entriesKey, part, tableParts, type Part, type PartList, type TableParts } from '../snapshot/table-parts';
import { entryPart, rulePart } from '../snapshot/pieced-parts';
import { durationMillis } from './duration';
import { compileFilters, type FilterContext } from './filters';
import { compileGRPCMatch, compileHTTPMatch, grpcMatchesOf, httpMatchesOf } from './matches';
import {
  TABLE_FORMAT,
  type CompiledBackend, type CompiledGRPCEntry, type CompiledHTTPEntry, type CompiledListener,
  type CompiledListenerTLS, type CompiledObjectRef, type CompiledProblem, type CompiledRetry, type CompiledRoute, type CompiledRule,
  type CompiledSNIEntry, type CompiledStreamEntry, type CompiledTable, type CompiledTimeouts,
  type CompiledUnattachedRoute, type RouteKindName,
} from './types';

export interface CompileOptions {
  /** How backendRefs become backends; by default the reference-resolution step's answers. */
  resolveBackendRef?: BackendResolver;
  /** Carry the unattached routes (for resolve's explanations); default true. */
  includeUnattached?: boolean;
  /** The Gateway's backend client certificate (spec.tls.backend.clientCertificateRef), when it resolves. */
  backendClientCertificate?: CompiledObjectRef;
  /** The addresses the Gateway is given (status.addresses), for whoever deploys its proxy. */
  addresses?: NonNullable<CompiledTable['addresses']>;
}

interface RouteInfo {
  key: string;
  meta: CompiledRoute;
}

type RuleBody = Omit<CompiledRule, 'route'>;

const KIND_ORDER: RouteKindName[] = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'];

/** The table of one Gateway from its attachment alone: steps 3 to 5 with a context of its own unless one is given. */
export function compileGateway(attachment: GatewayAttachment, world: World, opts: CompileOptions = {}, ctx = new TranslationContext()): CompiledTable {
  const view = viewOf(world, ctx);
  const client = opts.backendClientCertificate ? undefined : resolveClientCertificate(view, attachment.gateway);
  return compileTable(view, attachment, orderGateway(ctx, attachment), {
    ...opts, ...(client?.ok ? { backendClientCertificate: backendClientRef(client) } : {}),
  });
}

/** The table's name for a resolved backend client certificate. */
export function backendClientRef(client: { namespace: string; name: string }): CompiledObjectRef {
  return { group: '', kind: 'Secret', namespace: client.namespace, name: client.name };
}

interface RegisteredRule {
  routeKey: string;
  index: number;
  /** the compiled rule (compileTable), or its part alone (compileParts: the rule's objects are not kept) */
  rule?: RuleBody;
  part?: Part;
}

/**
 * What compileTable and compileParts share: the routes and rules the entries name, registered as
 * the entries are walked, each rule compiled once. The default resolver's answers depend on the
 * grants, Services and slices alone (and on the BackendTLSPolicies, ConfigMaps and Secrets, when
 * there are policies), so a rule compiled against the same ones is the same: it is kept (a change
 * to one route recompiles that route's rules, not its Gateway's).
 */
function registry(view: WorldView, attachment: GatewayAttachment, opts: CompileOptions, asParts = false) {
  const custom = opts.resolveBackendRef;
  // the resolution the reference-resolution step read (the same reference against the same tables
  // gives the same object); a backend's TLS (BackendTLSPolicy) is the resolution's, as a proxy must use it
  const resolve: BackendResolver = custom ?? ((route, ref) => {
    const res = resolveBackendRef(view, route, ref);
    return originatesTLS(route.kind) ? withBackendTLS(view, res) : res;
  });
  const gw = attachment.gateway;
  const gwNs = gw.metadata.namespace ?? 'default';
  const routes = new Map<string, RouteInfo>();
  const rules = { byKey: new Map<string, RegisteredRule>(), byRoute: new Map<string, [string, RegisteredRule][]>() };
  // kept per route and rule index, for as long as what a rule's backends read (see backendMemo)
  const tlsKey = custom ? undefined : backendTLSMemoKey(view);
  const memoOf = <V>(slot: string): WeakMap<Route, Map<number, V>> | undefined => {
    if (!tlsKey) return undefined;
    const byTLS = backendMemo<WeakMap<Route, Map<number, V>>>(view, slot);
    let memo = byTLS.get(tlsKey);
    if (!memo) byTLS.set(tlsKey, (memo = new WeakMap()));
    return memo;
  };
  // the worker's: a rule's part (its text) kept in place of the compiled rule, whose objects (its
  // filters, backends and their endpoints, some 2 KB a route) nothing reads once it is written
  const ruleMemo = asParts ? undefined : memoOf<RuleBody>('compiledRules');
  const partMemo = asParts ? memoOf<Part>('compiledRuleParts') : undefined;
  const compiled = (kind: RouteKindName, route: Route, index: number): RuleBody =>
    compileRule(kind, route, index, { ctx: view.ctx, route, resolve });
  const perRule = <V>(memo: WeakMap<Route, Map<number, V>> | undefined, route: Route, index: number, make: () => V): V => {
    if (!memo) return make();
    let byIndex = memo.get(route);
    if (!byIndex) memo.set(route, (byIndex = new SmallMap()));
    let v = byIndex.get(index);
    if (v === undefined) byIndex.set(index, (v = make()));
    return v;
  };
  // rule indices are known once every rule is registered: until then an entry names its rule by key
  const ruleOf = (plan: RoutePlan, index: number): string => {
    if (!routes.has(plan.rk)) routes.set(plan.rk, { key: plan.rk, meta: plan.meta });
    const key = plan.ruleKeys[index];
    if (!rules.byKey.has(key)) {
      const r: RegisteredRule = asParts
        ? { routeKey: plan.rk, index, part: perRule(partMemo, plan.route, index, () => rulePart({ route: plan.rk, ...compiled(plan.kind, plan.route, index) }, plan.rk)) }
        : { routeKey: plan.rk, index, rule: perRule(ruleMemo, plan.route, index, () => compiled(plan.kind, plan.route, index)) };
      rules.byKey.set(key, r);
      const own = rules.byRoute.get(plan.rk);
      if (own) own.push([key, r]);
      else rules.byRoute.set(plan.rk, [[key, r]]);
    }
    return key;
  };
  return { routes, rules, gw, gwNs, ruleOf };
}

/** The table's members before its listeners, in their order. */
function tableHeadOf(gw: Gateway, gwNs: string, opts: CompileOptions): Pick<CompiledTable, 'format' | 'gateway' | 'infrastructure' | 'backendClientCertificate' | 'addresses'> {
  return {
    format: TABLE_FORMAT,
    gateway: { namespace: gwNs, name: gw.metadata.name },
    infrastructure: infrastructureOf(gw),
    ...(opts.backendClientCertificate ? { backendClientCertificate: { ...opts.backendClientCertificate } } : {}),
    ...(opts.addresses?.length ? { addresses: opts.addresses.map((a) => ({ ...a })) } : {}),
  };
}

/**
 * Step 5: binds the ordered entries to rule indices and compiles each rule once. Backends resolve
 * as the reference-resolution step resolved them (resolveBackendRef).
 */
export function compileTable(
  view: WorldView, attachment: GatewayAttachment, ordered: readonly OrderedListener[], opts: CompileOptions = {},
): CompiledTable {
  const { routes, rules, gw, gwNs, ruleOf } = registry(view, attachment, opts);

  const pending = ordered.map((o) => ({
    head: listenerHead(view, o, gw, gwNs),
    http: o.http?.map((e) => ({ hostname: e.hostname, rule: ruleOf(e.plan, e.ri), matchIndex: e.mi, match: httpEntryMatch(e) })),
    grpc: o.grpc?.map((e) => ({ hostname: e.hostname, rule: ruleOf(e.plan, e.ri), matchIndex: e.mi, match: grpcEntryMatch(e) })),
    tls: o.tls?.map((e) => ({ hostname: e.hostname, rule: ruleOf(e.plan, e.ri) })),
    tcp: o.tcp?.map((e) => ({ rule: ruleOf(e.plan, e.ri) })),
    udp: o.udp?.map((e) => ({ rule: ruleOf(e.plan, e.ri) })),
  }));

  // indices: routes by kind, namespace, name; rules by route, then rule index
  const routeList = sortedRoutes(view.ctx, `${gwNs}/${gw.metadata.name}`, routes);
  const routeIndex = new Map(routeList.map((r, i) => [r.key, i]));
  // rules by route, then rule index: each route's rules, in the routes' order
  const ruleList: [string, RegisteredRule][] = [];
  for (const r of routeList) {
    const list = rules.byRoute.get(r.key)!;
    if (list.length > 1) list.sort(([, a], [, b]) => a.index - b.index);
    for (const entry of list) ruleList.push(entry);
  }
  const ruleIndex = new Map(ruleList.map(([key], i) => [key, i]));
  const bound = (key: string): number => ruleIndex.get(key)!;
  // the entry objects are made here, in this key order, so that the JSON reads {hostname, rule, matchIndex, match}
  const listeners: CompiledListener[] = pending.map((p) => {
    const l: CompiledListener = { ...p.head };
    if (p.http) l.httpRoutes = p.http.map((e): CompiledHTTPEntry => ({ hostname: e.hostname, rule: bound(e.rule), matchIndex: e.matchIndex, match: e.match }));
    if (p.grpc) l.grpcRoutes = p.grpc.map((e): CompiledGRPCEntry => ({ hostname: e.hostname, rule: bound(e.rule), matchIndex: e.matchIndex, match: e.match }));
    if (p.tls) l.tlsRoutes = p.tls.map((e): CompiledSNIEntry => ({ hostname: e.hostname, rule: bound(e.rule) }));
    if (p.tcp) l.tcpRoutes = p.tcp.map((e): CompiledStreamEntry => ({ rule: bound(e.rule) }));
    if (p.udp) l.udpRoutes = p.udp.map((e): CompiledStreamEntry => ({ rule: bound(e.rule) }));
    return l;
  });

  const table: CompiledTable = {
    ...tableHeadOf(gw, gwNs, opts),
    listeners,
    routes: routeList.map((r) => r.meta),
    rules: ruleList.map(([, r]) => ({ route: routeIndex.get(r.routeKey)!, ...r.rule! }) as CompiledRule),
    unattached: opts.includeUnattached === false ? [] : compileUnattached(attachment.rejected ?? []),
  };
  return table;
}

/**
 * Step 5 as the worker needs it: the table as its parts (core/snapshot/table-parts), made without
 * the table of indices. Every part is kept with what it is made from (a route's metadata, a
 * compiled rule, a plan entry of precedence/order), so a change remakes the parts of what it
 * touched and lists the others again; nothing is serialized twice. The same parts as
 * tableParts(compileTable(...)) gives, which stays the reference (and is used when an id repeats).
 */
export function compileParts(
  view: WorldView, attachment: GatewayAttachment, ordered: readonly OrderedListener[], opts: CompileOptions = {},
): TableParts {
  const { routes, rules, gw, gwNs, ruleOf } = registry(view, attachment, opts, true);
  const lists = ordered.map((o) => {
    for (const l of [o.http, o.grpc, o.tls, o.tcp, o.udp]) if (l) for (const e of l) ruleOf(e.plan, e.ri);
    return o;
  });
  const routeList = sortedRoutes(view.ctx, `${gwNs}/${gw.metadata.name}`, routes);
  const made = view.ctx.memo(PARTS_MADE);
  const out: TableParts = { head: part({}), listeners: emptyList(), routes: emptyList(), rules: emptyList(), entries: new Map() };
  for (const r of routeList) add(out.routes, r.key, made, r.meta, () => r.meta as unknown as Record<string, unknown>);
  for (const r of routeList) {
    const own = rules.byRoute.get(r.key)!;
    if (own.length > 1) own.sort((a, b) => a[1].index - b[1].index);
    for (const [key, rule] of own) {
      out.rules.ids.push(key);
      out.rules.parts.set(key, rule.part!);
    }
  }
  const names = new Map<string, number>();
  for (const o of lists) {
    const head = listenerHead(view, o, gw, gwNs) as unknown as Record<string, unknown>;
    const entryLists = [o.http, o.grpc, o.tls, o.tcp, o.udp];
    ENTRY_LIST_NAMES.forEach((name, k) => { if (entryLists[k]) head[name] = []; });
    const seen = names.get(head.name as string) ?? 0;
    names.set(head.name as string, seen + 1);
    const lid = seen ? `${head.name as string}|~${seen + 1}` : head.name as string;
    if (out.listeners.parts.has(lid)) return tableParts(compileTable(view, attachment, ordered, opts));
    out.listeners.ids.push(lid);
    out.listeners.parts.set(lid, part(head));
    ENTRY_LIST_NAMES.forEach((name, k) => {
      const entries = entryLists[k];
      if (!entries) return;
      const list = emptyList();
      // as its text alone, as a rule's is: its item is read when a delta names it, and by
      // readers of the whole table of indices (the worker makes neither for most entries)
      for (const e of entries) {
        list.ids.push(e.id);
        list.parts.set(e.id, (e.part ??= entryPart(entryItem(name, e))));
      }
      out.entries.set(entriesKey(lid, name), list);
    });
  }
  const sizes = [out.routes, out.rules, ...out.entries.values()];
  // an id repeats: the reference tells the repeats apart
  if (sizes.some((l) => l.parts.size !== l.ids.length)) return tableParts(compileTable(view, attachment, ordered, opts));
  out.head = part({ ...tableHeadOf(gw, gwNs, opts), listeners: [], routes: [], rules: [], unattached: opts.includeUnattached === false ? [] : compileUnattached(attachment.rejected ?? []) });
  return out;
}

/** the part made from a route's metadata, a compiled rule or a plan entry (each determines its part and id) */
const PARTS_MADE = memoSlot('compile.partsMade', () => new WeakMap<object, Part>());

function add(list: PartList, id: string, made: WeakMap<object, Part>, src: object, item: () => Record<string, unknown>): void {
  let p = made.get(src);
  if (!p) made.set(src, (p = part(item())));
  list.ids.push(id);
  list.parts.set(id, p);
}

const ENTRY_LIST_NAMES = ['httpRoutes', 'grpcRoutes', 'tlsRoutes', 'tcpRoutes', 'udpRoutes'] as const;

/** An entry's part as compileTable writes the entry, its rule named by id (see compileTable's listeners). */
function entryItem(list: (typeof ENTRY_LIST_NAMES)[number], entry: object): Record<string, unknown> {
  const e = entry as { plan: RoutePlan; ri: number; hostname?: string; mi?: number };
  const rule = e.plan.ruleKeys[e.ri];
  switch (list) {
    case 'httpRoutes':
      return { hostname: e.hostname, rule, matchIndex: e.mi, match: httpEntryMatch(entry as HTTPPlanEntry) };
    case 'grpcRoutes':
      return { hostname: e.hostname, rule, matchIndex: e.mi, match: grpcEntryMatch(entry as GRPCPlanEntry) };
    case 'tlsRoutes':
      return { hostname: e.hostname, rule };
    default:
      return { rule };
  }
}

/** The order of the table's routes (and of their rules, each route's by index). */
export const tableRouteOrder = (a: CompiledRoute, b: CompiledRoute): number =>
  KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || cmp(a.namespace, b.namespace) || cmp(a.name, b.name);
const byKindNamespaceName = (a: RouteInfo, b: RouteInfo): number => tableRouteOrder(a.meta, b.meta);

// A Gateway's routes in table order, and the route infos they were sorted from, kept per Gateway (by
// name: the Gateway object itself is remade with its status): a recompute that changes a few routes
// drops and inserts those (kind, namespace and name are unique, so this is the order a sort gives).
const SORTED_ROUTES = memoSlot('compile.sortedRoutes', () => new Map<string, { list: RouteInfo[]; keys: Map<string, RouteInfo> }>());
const ROUTE_PATCH_LIMIT = 256;

function sortedRoutes(ctx: TranslationContext, gateway: string, routes: Map<string, RouteInfo>): RouteInfo[] {
  const memo = ctx.memo(SORTED_ROUTES);
  const prev = memo.get(gateway);
  let list: RouteInfo[] | undefined;
  if (prev) {
    const added: RouteInfo[] = [];
    for (const [k, r] of routes) if (prev.keys.get(k)?.meta !== r.meta && added.push(r) > ROUTE_PATCH_LIMIT) break;
    let gone = 0;
    if (added.length <= ROUTE_PATCH_LIMIT) for (const [k, r] of prev.keys) if (routes.get(k)?.meta !== r.meta) gone++;
    if (added.length <= ROUTE_PATCH_LIMIT && gone <= ROUTE_PATCH_LIMIT) {
      list = patchSorted(prev.list, gone ? (r) => routes.get(r.key)?.meta === r.meta : undefined, added, byKindNamespaceName);
    }
  }
  list ??= [...routes.values()].sort(byKindNamespaceName);
  keepRecent(memo, gateway, { list, keys: new Map(list.map((r) => [r.key, r])) }, ctx.capacity);
  return list;
}

/**
 * spec.infrastructure as the deployer of the proxy needs it: upstream finds what was generated for a
 * Gateway by the gateway-name label, so that label is always there (and wins over one of the same key).
 */
function infrastructureOf(gw: Gateway): CompiledTable['infrastructure'] {
  const infra = gw.spec?.infrastructure;
  return {
    labels: sortedMap({ ...(infra?.labels ?? {}), [GATEWAY_NAME_LABEL]: gw.metadata.name }),
    annotations: sortedMap({ ...(infra?.annotations ?? {}) }),
  };
}

const GATEWAY_NAME_LABEL = 'gateway.networking.k8s.io/gateway-name';

function sortedMap(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---------------------------------------------------------------------------------------------
// listeners

function listenerHead(view: WorldView, o: OrderedListener, gw: Gateway, gwNs: string): CompiledListener {
  const l = o.attachment.listener;
  const owner = o.attachment.listenerSet;
  const head: CompiledListener = {
    name: String(l?.name),
    // listener names are unique per Gateway or ListenerSet only: this says which one
    ...(owner ? { listenerSet: { namespace: owner.namespace, name: owner.name } } : {}),
    port: Number(l?.port),
    protocol: o.protocol,
    ...(o.hostname ? { hostname: o.hostname } : {}),
    valid: o.attachment.valid !== false,
  };
  // a ListenerSet's certificateRefs are relative to its own namespace
  const tls = listenerTLS(l, gw, owner?.namespace ?? gwNs, o.protocol, l && resolveFrontendValidation(view, gw, l));
  if (tls) head.tls = tls;
  return head;
}

function objectRef(r: Partial<SecretObjectReference | ObjectReference>, kind: string, gwNs: string): CompiledObjectRef {
  return { group: r.group ?? '', kind: r.kind ?? kind, namespace: r.namespace ?? gwNs, name: String(r.name) };
}

function listenerTLS(l: Listener | undefined, gw: Gateway, ownerNs: string, protocol: string, resolved?: FrontendValidation): CompiledListenerTLS | undefined {
  if (protocol !== 'HTTPS' && protocol !== 'TLS') return undefined;
  const gwNs = gw.metadata.namespace ?? 'default';
  const mode = l?.tls?.mode === 'Passthrough' ? 'Passthrough' : 'Terminate';
  const certificateRefs = (l?.tls?.certificateRefs ?? []).map((r) => objectRef(r, 'Secret', ownerNs));
  const out: CompiledListenerTLS = { mode, certificateRefs };
  if (mode === 'Terminate' && l) {
    const validation = frontendValidationFor(gw, l.port)?.validation;
    const cas = validation?.caCertificateRefs;
    if (validation && Array.isArray(cas) && cas.length > 0) {
      out.caCertificateRefs = cas.map((r) => objectRef(r, 'ConfigMap', gwNs));
      out.clientValidationMode = validation.mode ?? 'AllowValidOnly';
      const bundle = (resolved?.refs ?? []).filter((r) => r.ok && r.bundle).map((r) => r.bundle!.trim()).join('\n');
      if (bundle) out.caBundle = `${bundle}\n`;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// rules

function compileRule(kind: RouteKindName, route: Route, index: number, ctx: FilterContext): RuleBody {
  const rule: RouteRule | undefined = rulesOf(route)[index];
  const isHTTP = kind === 'HTTPRoute';
  const isGRPC = kind === 'GRPCRoute';
  let invalid: CompiledProblem | undefined;

  const ruleLevel = isHTTP || isGRPC ? compileFilters(ruleFilters(rule), isHTTP ? 'rule' : 'grpcRule', ctx) : { filters: [] };
  if (ruleLevel.problem) invalid = ruleLevel.problem;

  const backends: CompiledBackend[] = ruleBackendRefs(rule).map((ref) => {
    const res = ctx.resolve(route, ref);
    if (!isHTTP && !isGRPC) return compileBackend(ctx.ctx, res);
    const bf = compileFilters(backendRefFilters(ref), isHTTP ? 'backend' : 'grpcRule', ctx);
    return compileBackend(ctx.ctx, res, bf.filters, bf.problem);
  });

  if (isHTTP && !invalid) {
    const usesPrefixReplace = [ruleLevel.filters, ...backends.map((b) => b.filters ?? [])].some((fs) =>
      fs.some((f) => f.requestRedirect?.path?.type === 'ReplacePrefixMatch' || f.urlRewrite?.path?.type === 'ReplacePrefixMatch'));
    if (usesPrefixReplace && httpMatchesOf(rule).some((m) => (m?.path?.type ?? 'PathPrefix') !== 'PathPrefix')) {
      invalid = { reason: RouteReason.UnsupportedValue, message: 'ReplacePrefixMatch needs every match of the rule to be a PathPrefix match' };
    }
  }

  const out = { index } as RuleBody;
  const name = rule?.name;
  if (typeof name === 'string' && name) out.name = name;
  out.filters = ruleLevel.filters;
  out.backends = backends;
  const timeouts = isHTTP && rule && 'timeouts' in rule ? compileTimeouts(rule.timeouts) : undefined;
  if (timeouts) out.timeouts = timeouts;
  const retry = isHTTP && rule && 'retry' in rule ? compileRetry(rule.retry) : undefined;
  if (retry) out.retry = retry;
  const session = (isHTTP || isGRPC) && rule && 'sessionPersistence' in rule
    ? compileSessionPersistence(rule.sessionPersistence as SessionPersistenceSpec | undefined, `${kind}/${route.metadata.namespace}/${route.metadata.name}`, index)
    : undefined;
  if (session) out.sessionPersistence = session;
  if (invalid) out.invalid = invalid;
  return out;
}

function compileTimeouts(t: { request?: string; backendRequest?: string } | undefined): CompiledTimeouts | undefined {
  if (!t) return undefined;
  const out: CompiledTimeouts = {};
  const request = durationMillis(t.request);
  const backendRequest = durationMillis(t.backendRequest);
  if (request !== undefined) out.requestMs = request;
  if (backendRequest !== undefined) out.backendRequestMs = backendRequest;
  return Object.keys(out).length ? out : undefined;
}

// An unspecified number of attempts is the implementation's to choose: one retry, so that a
// connection error is retried once as the API asks without multiplying the load on a failing backend.
const DEFAULT_RETRY_ATTEMPTS = 1;

function compileRetry(r: HTTPRouteRetry | undefined): CompiledRetry | undefined {
  if (!r || typeof r !== 'object') return undefined;
  const codes = [...new Set((r.codes ?? []).filter((c): c is number => Number.isInteger(c)))].sort((a, b) => a - b);
  const out: CompiledRetry = { codes, attempts: typeof r.attempts === 'number' && r.attempts >= 1 ? r.attempts : DEFAULT_RETRY_ATTEMPTS };
  const backoff = durationMillis(r.backoff);
  if (backoff !== undefined) out.backoffMs = backoff;
  return out;
}

// ---------------------------------------------------------------------------------------------
// unattached routes (for explanations)

export function compileUnattached(rejected: readonly RejectedRoute[]): CompiledUnattachedRoute[] {
  const out: CompiledUnattachedRoute[] = [];
  const seen = new Set<string>();
  for (const r of rejected) {
    const meta = routeMeta(r.kind, r.route);
    const key = `${routeKey(meta.kind, meta.namespace, meta.name)}|${r.parentRefIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const parentRef: Partial<ParentReference> = r.route.spec?.parentRefs?.[r.parentRefIndex] ?? {};
    const rules = rulesOf(r.route);
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
      hostnames: [...new Set<string>(routeHostnames(r.route).map((h) => h.toLowerCase()))].sort(),
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
  return out.sort(unattachedOrder);
}

/** The order of the unattached routes: the table's route order, then the parentRef's. */
export const unattachedOrder = (a: CompiledUnattachedRoute, b: CompiledUnattachedRoute): number =>
  tableRouteOrder(a, b) || a.parentRefIndex - b.parentRefIndex;
