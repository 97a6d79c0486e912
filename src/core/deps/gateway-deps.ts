// What one Gateway's statuses and table can depend on: the Gateway, its class, the ListenerSets
// naming it, the routes naming it or them, and every object their references reach. The loader loads exactly these, the store records
// them, and a change to any of them recomputes the Gateway. When in doubt it over-includes.
import type { Gateway } from '../model/objects';
import { dep, depKey, type DepKey, type Dependency } from './keys';
import { replacedPositions } from '../model/replaced-items';
import type { ListAt, ReadList } from '../model/chunked-list';

type RouteLike = { metadata: { namespace?: string }; spec?: unknown };

interface Ref { group?: unknown; kind?: unknown; namespace?: unknown; name?: unknown }

const isRef = (v: unknown): v is Ref => Boolean(v) && typeof v === 'object';
const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

/**
 * A reference to a core object (`defaultKind` when it names none), as the dependency on it, and on
 * the grants of its namespace when it reaches across.
 */
function referenceTo(ref: Ref, from: string, defaultKind: 'Secret' | 'ConfigMap' | 'Service', out: Dependency[]): void {
  const name = str(ref.name, '');
  if (!name) return;
  const namespace = str(ref.namespace, from);
  if (namespace !== from) out.push(dep.referenceGrants(namespace));
  if (str(ref.group, '') !== '') return;
  const kind = str(ref.kind, defaultKind);
  if (kind === 'Secret') out.push(dep.secret(namespace, name));
  else if (kind === 'ConfigMap') out.push(dep.configMap(namespace, name));
  else if (kind === 'Service') out.push(dep.service(namespace, name), dep.endpointSlices(namespace, name));
}

const refs = (v: unknown): Ref[] => (Array.isArray(v) ? v.filter(isRef) : []);
const at = (v: unknown, key: string): unknown => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined);

/** The Gateway's own references (see REFERENCE_FIELDS). */
export function gatewayOwnDependencies(gateway: Gateway): Dependency[] {
  const ns = gateway.metadata.namespace ?? '';
  const out: Dependency[] = [dep.gateway(ns, gateway.metadata.name)];
  if (gateway.spec?.gatewayClassName) out.push(dep.gatewayClass(gateway.spec.gatewayClassName));
  for (const l of gateway.spec?.listeners ?? []) {
    for (const r of refs(l?.tls?.certificateRefs)) referenceTo(r, ns, 'Secret', out);
    if (l?.allowedRoutes?.namespaces?.from === 'Selector') out.push(dep.namespaces());
  }
  if (at(at(at(gateway.spec, 'allowedListeners'), 'namespaces'), 'from') === 'Selector') out.push(dep.namespaces());
  const tls = gateway.spec?.tls;
  const client = tls?.backend?.clientCertificateRef;
  if (isRef(client)) referenceTo(client, ns, 'Secret', out);
  for (const r of refs(tls?.frontend?.default?.validation?.caCertificateRefs)) referenceTo(r, ns, 'ConfigMap', out);
  for (const p of tls?.frontend?.perPort ?? []) for (const r of refs(p?.tls?.validation?.caCertificateRefs)) referenceTo(r, ns, 'ConfigMap', out);
  return out;
}

/** A ListenerSet's own references: itself (and so the routes naming it), its certificates, its selectors. */
export function listenerSetDependencies(ls: { metadata: { namespace?: string; name: string }; spec?: unknown }): Dependency[] {
  const ns = ls.metadata.namespace ?? '';
  const out: Dependency[] = [dep.listenerSet(ns, ls.metadata.name)];
  const listeners = at(ls.spec, 'listeners');
  for (const l of Array.isArray(listeners) ? listeners : []) {
    for (const r of refs(at(at(l, 'tls'), 'certificateRefs'))) referenceTo(r, ns, 'Secret', out);
    if (at(at(at(l, 'allowedRoutes'), 'namespaces'), 'from') === 'Selector') out.push(dep.namespaces());
  }
  return out;
}

/**
 * Every backend a route reaches: each `backendRef` and `backendRefs` entry anywhere in its spec
 * (rules, RequestMirror and ExternalAuth filters, and whatever later kinds add), in the route's
 * namespace terms.
 */
export function routeDependencies(route: { metadata: { namespace?: string }; spec?: unknown }): Dependency[] {
  const ns = route.metadata.namespace ?? '';
  const out: Dependency[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'backendRef' && isRef(x)) referenceTo(x, ns, 'Service', out);
      else if (k === 'backendRefs') for (const r of refs(x)) referenceTo(r, ns, 'Service', out);
      walk(x);
    }
  };
  walk(route.spec);
  return out;
}

/** A BackendTLSPolicy as the dependency model reads it (any field may be missing before validation). */
export interface PolicyInput { metadata: { namespace?: string; name?: string }; spec?: unknown }

/**
 * The Services a BackendTLSPolicy applies to (targetRefs of core Services, in its own namespace: a
 * policy can name nothing elsewhere). A change of the policy touches these keys, and every Gateway
 * whose routes reach one of the Services has recorded it.
 */
export function policyTargets(policy: PolicyInput): Dependency[] {
  const ns = policy.metadata.namespace ?? '';
  const out: Dependency[] = [];
  for (const t of refs(at(policy.spec, 'targetRefs'))) {
    if (str(t.group, '') === '' && str(t.kind, '') === 'Service' && str(t.name, '')) out.push(dep.service(ns, str(t.name, '')));
  }
  return out;
}

/** What a BackendTLSPolicy reads besides its targets: its CA certificate ConfigMaps and Secrets (in its namespace). */
export function policyDependencies(policy: PolicyInput): Dependency[] {
  const ns = policy.metadata.namespace ?? '';
  const out: Dependency[] = [];
  for (const r of refs(at(at(policy.spec, 'validation'), 'caCertificateRefs'))) {
    if (str(r.group, '') !== '' || !str(r.name, '')) continue;
    if (r.kind === 'ConfigMap') out.push(dep.configMap(ns, str(r.name, '')));
    else if (r.kind === 'Secret') out.push(dep.secret(ns, str(r.name, '')));
  }
  return out;
}

/** The BackendTLSPolicies that target Service `namespace/name` (whatever their sectionName), from whoever holds them. */
export type PoliciesOf = (namespace: string, service: string) => readonly PolicyInput[];

/**
 * Everything Gateway `gateway`'s result depends on, given the routes that name it or its
 * ListenerSets, and the ListenerSets that name it. `memo` (owned by the caller, keyed by the route
 * objects) keeps what was read off unchanged routes; `counted`, routesDependencies' answer for
 * these routes, stands for them when the caller keeps one.
 */
export function gatewayDependencies(
  gateway: Gateway,
  routes: ReadList<RouteLike>,
  memo?: WeakMap<object, Dependency[]>,
  listenerSets: readonly { metadata: { namespace?: string; name: string }; spec?: unknown }[] = [],
  counted?: RouteDependencyCounts,
): Dependency[] {
  const out = gatewayOwnDependencies(gateway);
  for (const ls of listenerSets) out.push(...listenerSetDependencies(ls));
  if (counted) {
    out.push(...counted.unique);
    return out;
  }
  for (const r of routes) {
    let d = memo?.get(r);
    if (!d) {
      d = routeDependencies(r);
      memo?.set(r, d);
    }
    out.push(...d);
  }
  return out;
}

/** The routes' dependencies counted by key, as routesDependencies keeps them between calls. */
export interface RouteDependencyCounts {
  routes: ListAt<object>;
  counts: Map<DepKey, { d: Dependency; n: number }>;
  unique: Dependency[];
}

// Routes that reach the same backends have the same dependencies: one list, and one object a
// dependency, for them all (a Gateway of 50,000 routes kept four objects, their keys and a list a
// route). Emptied past SHARED_LIMIT of either (a list or object forgotten is made again when met).
const SHARED_LIMIT = 65_536;
const sharedDeps = new Map<DepKey, Dependency>();
const sharedLists = new Map<string, Dependency[]>();

function sharedDependencies(list: Dependency[]): Dependency[] {
  if (sharedDeps.size > SHARED_LIMIT || sharedLists.size > SHARED_LIMIT) {
    sharedDeps.clear();
    sharedLists.clear();
  }
  const keys = list.map(depKey);
  const listKey = keys.join('\n');
  let out = sharedLists.get(listKey);
  if (!out) {
    out = list.map((d, i) => sharedDeps.get(keys[i]) ?? (sharedDeps.set(keys[i], d), d));
    sharedLists.set(listKey, out);
  }
  return out;
}

/** beyond this many routes replaced, counting them all again is as cheap */
const RECOUNT_LIMIT = 64;

/**
 * The dependencies of `routes`, each once (in no particular order), with the counts they were
 * found from: given the counts of an earlier call whose routes were the same but for a few in the
 * same places, only those are read again. `memo` keeps what was read off each route object.
 */
export function routesDependencies(
  routes: ListAt<RouteLike>, memo: WeakMap<object, Dependency[]>, before?: RouteDependencyCounts,
): RouteDependencyCounts {
  const own = (r: { metadata: { namespace?: string }; spec?: unknown }) => {
    let d = memo.get(r);
    if (!d) memo.set(r, (d = sharedDependencies(routeDependencies(r))));
    return d;
  };
  const add = (counts: RouteDependencyCounts['counts'], r: RouteLike, by: number): boolean => {
    let keysMoved = false;
    const seen = new Set<DepKey>();
    for (const d of own(r)) {
      const k = depKey(d);
      if (seen.has(k)) continue;
      seen.add(k);
      const c = counts.get(k);
      if (c) {
        c.n += by;
        if (c.n === 0) {
          counts.delete(k);
          keysMoved = true;
        }
      } else {
        counts.set(k, { d, n: by });
        keysMoved = true;
      }
    }
    return keysMoved;
  };
  if (before && before.routes.length === routes.length) {
    const replaced = replacedPositions(before.routes, routes, RECOUNT_LIMIT);
    if (replaced) {
      if (!replaced.length) return { ...before, routes };
      const counts = new Map([...before.counts].map(([k, c]) => [k, { ...c }]));
      let moved = false;
      for (const i of replaced) moved = add(counts, before.routes.at(i) as never, -1) || moved;
      for (const i of replaced) moved = add(counts, routes.at(i)!, 1) || moved;
      return { routes, counts, unique: moved ? [...counts.values()].map((c) => c.d) : before.unique };
    }
  }
  const counts: RouteDependencyCounts['counts'] = new Map();
  for (const r of routes) add(counts, r, 1);
  return { routes, counts, unique: [...counts.values()].map((c) => c.d) };
}

/**
 * `deps` (what gatewayDependencies found) with what the BackendTLSPolicies of every Service reached
 * read: their CA ConfigMaps and Secrets, and their other targets (whether a policy loses a conflict
 * there decides its status here), whose policies are followed in turn. Every caller that records or
 * loads a Gateway's dependencies applies it to gatewayDependencies' answer.
 */
export function withPolicyDependencies(deps: Dependency[], policiesOf: PoliciesOf): Dependency[] {
  const out = [...deps];
  const services = new Set<string>();
  for (let i = 0; i < out.length; i++) {
    const d = out[i];
    if (d.kind !== 'Service') continue;
    const k = depKey(d);
    if (services.has(k)) continue;
    services.add(k);
    for (const p of policiesOf(d.namespace, d.name)) out.push(...policyDependencies(p), ...policyTargets(p));
  }
  return out;
}

