// Lookup tables over a World, built once per World and reused by every step of a translation.
// A World is treated as immutable: a caller that changes it builds a new one (or new arrays).
import type { World } from '../model/world';
import type { ReadList } from '../model/chunked-list';
import type {
  BackendTLSPolicy, ConfigMap, EndpointSlice, Gateway, GatewayClass, ListenerSet, Namespace, ReferenceGrant, Route, Secret, Service,
} from '../model/objects';
import { memoSlot, TranslationContext } from '../translate/context';

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export interface WorldIndex {
  gatewayClasses: Map<string, GatewayClass>;
  gateways: Map<string, Gateway>;
  services: Map<string, Service>;
  secrets: Map<string, Secret>;
  configMaps: Map<string, ConfigMap>;
  namespaces: Map<string, Namespace>;
  grantsByNamespace: Map<string, ReferenceGrant[]>;
  slicesByService: Map<string, EndpointSlice[]>;
  /** routes by the namespace/name of each Gateway one of their parentRefs names */
  routesByGateway: Map<string, Route[]>;
  /** BackendTLSPolicies by the namespace/name of each Service they target, in precedence order (oldest, then namespace/name) */
  policiesByService: Map<string, BackendTLSPolicy[]>;
  /** routes by the namespace/name of each ListenerSet one of their parentRefs names */
  routesByListenerSet: Map<string, Route[]>;
  /** ListenerSets by the namespace/name of the Gateway their parentRef names */
  listenerSetsByGateway: Map<string, ListenerSet[]>;
}

export function key(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

type NamingRoute = { metadata?: { namespace?: string }; spec?: { parentRefs?: readonly ParentRefInput[] } };

/** "namespace/name" of each parent of this kind (Gateway or ListenerSet) a route's parentRefs name, once each, in parentRef order. */
export function parentsNamedBy(route: NamingRoute, kind: 'Gateway' | 'ListenerSet'): string[] {
  const out = new Set<string>();
  for (const p of route.spec?.parentRefs ?? []) {
    if (!p || typeof p !== 'object' || !p.name) continue;
    if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (p.kind ?? 'Gateway') !== kind) continue;
    out.add(key(p.namespace ?? route.metadata?.namespace, p.name));
  }
  return [...out];
}

/** "namespace/name" of each Gateway a route's parentRefs name, once each, in parentRef order. */
export function gatewaysNamedBy(route: NamingRoute): string[] {
  return parentsNamedBy(route, 'Gateway');
}

/** "namespace/name" of the Gateway a ListenerSet's parentRef names, if it names one. */
export function gatewayOfListenerSet(ls: { metadata?: { namespace?: string }; spec?: { parentRef?: ParentRefInput } }): string | undefined {
  const p = ls.spec?.parentRef;
  if (!p || typeof p !== 'object' || !p.name) return undefined;
  if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (p.kind ?? 'Gateway') !== 'Gateway') return undefined;
  return key(p.namespace ?? ls.metadata?.namespace, p.name);
}

const ARRAYS = ['gatewayClasses', 'gateways', 'routes', 'referenceGrants', 'namespaces', 'services',
  'endpointSlices', 'secrets', 'configMaps', 'backendTLSPolicies', 'listenerSets'] as const;

/** A parentRef as a route may hold it before validation: any field may be missing. */
interface ParentRefInput { group?: string; kind?: string; namespace?: string; name?: string }


/**
 * One World seen through a translation context: the world, its lookup tables, and the context
 * whose memos the steps use. Made once per translation and handed to every step.
 */
export interface WorldView {
  readonly world: World;
  readonly index: WorldIndex;
  readonly ctx: TranslationContext;
}

/** The view every step of one translation reads; a fresh context when none is given. */
export function viewOf(world: World, ctx: TranslationContext = new TranslationContext()): WorldView {
  return { world, index: indexWorld(ctx, world), ctx };
}

interface CacheEntry { arrays: unknown[]; lengths: number[]; index: WorldIndex }
const INDEXES = memoSlot('lookup.indexes', () => new WeakMap<World, CacheEntry>());

export function indexWorld(ctx: TranslationContext, world: World): WorldIndex {
  const cache = ctx.memo(INDEXES);
  const hit = cache.get(world);
  if (hit && unchanged(world, hit)) return hit.index;
  const arrays = ARRAYS.map((k) => world[k] ?? []);
  const index = build(ctx, world);
  cache.set(world, { arrays, lengths: arrays.map((a) => a.length), index });
  return index;
}

/** Called for every lookup, so it allocates nothing. */
function unchanged(world: World, hit: CacheEntry): boolean {
  for (let i = 0; i < ARRAYS.length; i++) {
    const a = world[ARRAYS[i]];
    const was = hit.arrays[i] as unknown[];
    if (a === undefined ? was.length !== 0 || hit.lengths[i] !== 0 : a !== was || a.length !== hit.lengths[i]) return false;
  }
  return true;
}

// Each table is built from one of the world's arrays and kept for as long as that array is: a
// caller that passes the same arrays again (the worker does, for whatever did not change) gets the
// same tables, and what is memoized on them (endpoints, backend resolutions) carries over.
const EMPTY: readonly never[] = Object.freeze([]);
const PARTS = memoSlot('lookup.tables', () => new Map<string, WeakMap<ReadList<unknown>, { length: number; table: unknown }>>());

function part<T, L extends ReadList<unknown>>(ctx: TranslationContext, name: string, items: L | undefined, make: (items: L) => T): T {
  const arr = items && items.length ? items : (EMPTY as unknown as L);
  const parts = ctx.memo(PARTS);
  let memo = parts.get(name);
  if (!memo) parts.set(name, (memo = new WeakMap()));
  const hit = memo.get(arr);
  if (hit && hit.length === arr.length) return hit.table as T;
  const table = make(arr);
  memo.set(arr, { length: arr.length, table });
  return table;
}

function byKey<T extends { metadata: { name: string; namespace?: string } }>(items: readonly T[] | undefined, cluster = false): Map<string, T> {
  const m = new Map<string, T>();
  for (const o of items ?? []) if (o?.metadata?.name) m.set(cluster ? o.metadata.name : key(o.metadata.namespace, o.metadata.name), o);
  return m;
}

function grantsTable(grants: readonly ReferenceGrant[]): Map<string, ReferenceGrant[]> {
  const grantsByNamespace = new Map<string, ReferenceGrant[]>();
  for (const g of grants) {
    const ns = g.metadata.namespace ?? '';
    (grantsByNamespace.get(ns) ?? grantsByNamespace.set(ns, []).get(ns)!).push(g);
  }
  // in name order: the first grant (by name) that admits a reference is the one reported
  for (const list of grantsByNamespace.values()) list.sort((a, b) => cmp(a.metadata.name, b.metadata.name));
  return grantsByNamespace;
}

function slicesTable(slices: readonly EndpointSlice[]): Map<string, EndpointSlice[]> {
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const s of slices) {
    const svc = s.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!svc) continue;
    const k = key(s.metadata.namespace, svc);
    (slicesByService.get(k) ?? slicesByService.set(k, []).get(k)!).push(s);
  }
  for (const list of slicesByService.values()) list.sort((a, b) => cmp(a.metadata.name, b.metadata.name));
  return slicesByService;
}

/** The precedence of conflicting policies: the older creationTimestamp, then namespace/name. */
export function policyOrder(a: BackendTLSPolicy, b: BackendTLSPolicy): number {
  return cmp(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? '')
    || cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || cmp(a.metadata.name, b.metadata.name);
}

function policiesTable(policies: readonly BackendTLSPolicy[]): Map<string, BackendTLSPolicy[]> {
  const out = new Map<string, BackendTLSPolicy[]>();
  for (const p of policies) {
    const seen = new Set<string>();
    for (const t of p?.spec?.targetRefs ?? []) {
      if (!t || (t.group ?? '') !== '' || t.kind !== 'Service' || !t.name) continue;
      const k = key(p.metadata.namespace, t.name);
      if (seen.has(k)) continue;
      seen.add(k);
      (out.get(k) ?? out.set(k, []).get(k)!).push(p);
    }
  }
  for (const list of out.values()) list.sort(policyOrder);
  return out;
}

interface RouteTables { byGateway: Map<string, Route[]>; byListenerSet: Map<string, Route[]> }

/** Routes by the Gateways and by the ListenerSets their parentRefs name, in one pass over the routes. */
function routeTables(routes: ReadList<Route>): RouteTables {
  const byGateway = new Map<string, Route[]>();
  const byListenerSet = new Map<string, Route[]>();
  for (const r of routes) {
    for (const p of r.spec?.parentRefs ?? []) {
      if (!p || typeof p !== 'object' || !p.name || (p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP) continue;
      const kind = p.kind ?? 'Gateway';
      const table = kind === 'Gateway' ? byGateway : kind === 'ListenerSet' ? byListenerSet : undefined;
      if (!table) continue;
      const k = key(p.namespace ?? r.metadata?.namespace, p.name);
      const list = table.get(k) ?? table.set(k, []).get(k)!;
      // once per parent, however many parentRefs name it (sections)
      if (list[list.length - 1] !== r) list.push(r);
    }
  }
  return { byGateway, byListenerSet };
}

function listenerSetsTable(sets: readonly ListenerSet[]): Map<string, ListenerSet[]> {
  const byGateway = new Map<string, ListenerSet[]>();
  for (const ls of sets) {
    const k = ls?.metadata?.name ? gatewayOfListenerSet(ls) : undefined;
    if (k) (byGateway.get(k) ?? byGateway.set(k, []).get(k)!).push(ls);
  }
  return byGateway;
}

// (module-level functions: a closure made per call costs more than the lookup it serves)
function clusterTable<T extends { metadata: { name: string; namespace?: string } }>(items: readonly T[]): Map<string, T> {
  return byKey(items, true);
}

function namespacedTable<T extends { metadata: { name: string; namespace?: string } }>(items: readonly T[]): Map<string, T> {
  return byKey(items);
}

function build(ctx: TranslationContext, world: World): WorldIndex {
  return {
    gatewayClasses: part(ctx, 'gatewayClasses', world.gatewayClasses, clusterTable),
    gateways: part(ctx, 'gateways', world.gateways, namespacedTable),
    services: part(ctx, 'services', world.services, namespacedTable),
    secrets: part(ctx, 'secrets', world.secrets, namespacedTable),
    configMaps: part(ctx, 'configMaps', world.configMaps, namespacedTable),
    namespaces: part(ctx, 'namespaces', world.namespaces, clusterTable),
    grantsByNamespace: part(ctx, 'grants', world.referenceGrants, grantsTable),
    slicesByService: part(ctx, 'slices', world.endpointSlices, slicesTable),
    routesByGateway: part(ctx, 'routes', world.routes, routeTables).byGateway,
    policiesByService: part(ctx, 'backendTLSPolicies', world.backendTLSPolicies, policiesTable),
    routesByListenerSet: part(ctx, 'routes', world.routes, routeTables).byListenerSet,
    listenerSetsByGateway: part(ctx, 'listenerSets', world.listenerSets, listenerSetsTable),
  };
}

/**
 * A memo that lives as long as the tables a backend resolution reads (grants, Services, slices):
 * the same three tables give the same answers, whatever else in the world changed.
 */
type Slots = Record<string, WeakMap<object, unknown>>;
const BACKEND_MEMOS = memoSlot('lookup.backendMemos', () => new WeakMap<object, WeakMap<object, WeakMap<object, Slots>>>());
export function backendMemo<V>(view: WorldView, slot: string): WeakMap<object, V> {
  const idx = view.index;
  const backendMemos = view.ctx.memo(BACKEND_MEMOS);
  let byServices = backendMemos.get(idx.grantsByNamespace);
  if (!byServices) backendMemos.set(idx.grantsByNamespace, (byServices = new WeakMap()));
  let bySlices = byServices.get(idx.services);
  if (!bySlices) byServices.set(idx.services, (bySlices = new WeakMap()));
  let slots = bySlices.get(idx.slicesByService);
  if (!slots) bySlices.set(idx.slicesByService, (slots = {}));
  return (slots[slot] ??= new WeakMap()) as WeakMap<object, V>;
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A namespace's labels: its object's labels plus kubernetes.io/metadata.name, which every namespace has. */
export function namespaceLabels(view: WorldView, namespace: string): Record<string, string> {
  const ns = view.index.namespaces.get(namespace);
  return { ...(ns?.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: namespace };
}

/** "infra/web" or "web" for cluster-scoped objects, for messages. */
export function refName(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
