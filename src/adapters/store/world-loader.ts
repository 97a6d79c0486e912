// Loads what one Gateway's recompute depends on, and nothing else: the core's dependency model
// (src/core/deps) says what that is, from the Gateway and the routes that name it; this file only
// fetches each dependency from an object source (the worker's object cache, or objects in memory
// for the golden cases) and returns the keys to record, found or not: a later change to any of
// them recomputes this Gateway.
import type { ListAt } from '../../core/model/chunked-list';
import type { World } from '../../core/model/world';
import type { K8sObject } from '../../core/model/objects';
import { gatewayDependencies, keySet, policyTargets, routesDependencies, uniqueDependencies, withPolicyDependencies, type DepKey, type Dependency, type RouteDependencyCounts } from '../../core/deps';
import { unreachable } from '../../core/model/unreachable';
import { streamKey } from '../../core/objects/keys';
import { inReadingOrder } from '../../core/objects/order';
import { keepRecent } from '../../core/model/recent';
import { sameItems } from '../../core/model/same-items';

/** Where the loader reads objects from. Objects, and the lists of them answered, are treated as immutable and may be shared. */
export interface ObjectSource {
  /** every event at or below this position is reflected */
  readonly position: number;
  get(stream: string): K8sObject | undefined;
  /** the routes (any kind) whose parentRefs name Gateway (or ListenerSet) `ns/name` */
  routesNaming(ns: string, name: string, parentKind?: 'Gateway' | 'ListenerSet'): ListAt<K8sObject>;
  /** the ListenerSets whose parentRef names Gateway `ns/name` */
  listenerSetsNaming(ns: string, name: string): K8sObject[];
  /** the EndpointSlices labelled for Service `ns/name` */
  slicesOf(ns: string, service: string): K8sObject[];
  /** every object of a kind in a namespace ('' for cluster-scoped kinds), or in all of them */
  ofKind(kind: string, ns?: string): K8sObject[];
  /** the data of these Secrets (it is not in the log), by stream */
  secretData(secrets: K8sObject[]): Promise<Map<string, Record<string, string>>>;
}

export interface GatewayWorld {
  world: World;
  gateway: K8sObject | null;
  /** every event at or below this position is reflected */
  sourcePosition: number;
  deps: DepKey[];
}

export const gatewayStream = (ns: string, name: string) => streamKey('Gateway', ns, name);

const emptyWorld = (): World => ({ gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [], endpointSlices: [], secrets: [], configMaps: [], backendTLSPolicies: [], listenerSets: [] });

/** What the loader keeps between recomputes of one source (owned by its caller). */
export interface LoaderMemo {
  /** what was read off each (frozen, shared) route object */
  routeDeps: WeakMap<object, Dependency[]>;
  /** each Gateway's last world: an array whose objects are all the same is passed again as the same array */
  worlds: Map<string, World>;
  /** each Gateway's routes' dependencies, counted (a change to a few routes recounts those) */
  routeCounts: Map<string, RouteDependencyCounts>;
  capacity: number;
}

export function loaderMemo(capacity: number): LoaderMemo {
  return { routeDeps: new WeakMap(), worlds: new Map(), routeCounts: new Map(), capacity };
}

// The same arrays let the core's tables and memos built on them carry over (a change to one route
// leaves the Services, slices and grants the translation reads as they were).
function stabilized(memo: LoaderMemo, key: string, world: World): World {
  const last = memo.worlds.get(key);
  if (last) for (const k of Object.keys(world) as (keyof World)[]) if (sameItems(world[k] ?? [], last[k] ?? [])) (world as Record<keyof World, unknown>)[k] = last[k];
  memo.worlds.delete(key);
  memo.worlds.set(key, world);
  while (memo.worlds.size > memo.capacity) memo.worlds.delete(memo.worlds.keys().next().value!);
  return world;
}

/**
 * What Gateway `ns/name` depends on, read from `source` (synced by the caller). `previousGatewayStatus`
 * replaces the status the source holds for the Gateway (see Reconciler).
 */
export async function loadGatewayWorld(source: ObjectSource, ns: string, name: string, memo: LoaderMemo, previousGatewayStatus?: Record<string, unknown>): Promise<GatewayWorld> {
  const sourcePosition = source.position;
  const world = emptyWorld();
  const gateway = source.get(gatewayStream(ns, name)) ?? null;
  if (!gateway) return { world, gateway, sourcePosition, deps: [] };
  const listenerSets = source.listenerSetsNaming(ns, name);
  const named = source.routesNaming(ns, name);
  let routes: ListAt<K8sObject> = named;
  if (listenerSets.length) {
    // a route naming the Gateway and one of its ListenerSets (or two of them) is loaded once
    const all = [...named];
    const seen = new Set(all);
    for (const ls of listenerSets) for (const r of source.routesNaming(ls.metadata.namespace ?? '', ls.metadata.name, 'ListenerSet'))
      if (!seen.has(r)) { seen.add(r); all.push(r); }
    routes = all;
  }
  // the BackendTLSPolicies of every Service reached, found here once each: what they read is a dependency too
  const policies = new Map<string, K8sObject[]>();
  const policiesOf = (pns: string, service: string): K8sObject[] => {
    const k = `${pns}/${service}`;
    let found = policies.get(k);
    if (!found) {
      found = source.ofKind('BackendTLSPolicy', pns).filter((p) => policyTargets(p).some((t) => t.kind === 'Service' && t.name === service));
      policies.set(k, found);
    }
    return found;
  };
  const key = gatewayStream(ns, name);
  const counted = routesDependencies(routes, memo.routeDeps, memo.routeCounts.get(key));
  keepRecent(memo.routeCounts, key, counted, memo.capacity);
  const deps = withPolicyDependencies(gatewayDependencies(gateway as never, routes, memo.routeDeps, listenerSets, counted), policiesOf);
  const seenPolicies = new Set<K8sObject>();
  for (const list of policies.values()) for (const p of list) if (!seenPolicies.has(p)) {
    seenPolicies.add(p);
    world.backendTLSPolicies!.push(p as never);
  }
  const secrets: K8sObject[] = [];
  for (const d of uniqueDependencies(deps)) {
    switch (d.kind) {
      case 'Gateway':
        if (d.namespace === ns && d.name === name) {
          world.gateways.push((previousGatewayStatus ? { ...gateway, status: previousGatewayStatus } : gateway) as never);
          // the source's own array (not copied: a Gateway can have tens of thousands of routes)
          world.routes = routes as never[];
          world.listenerSets!.push(...(listenerSets as never[]));
        }
        break;
      case 'ListenerSet': break; // loaded with the Gateway, as its routes are
      case 'MeshParent': break; // a Gateway's world never holds one: mesh worlds are loaded apart (service/mesh-reconcile.ts)
      case 'GatewayClass': push(world.gatewayClasses, source.get(streamKey('GatewayClass', '', d.name))); break;
      case 'Service': push(world.services, source.get(streamKey('Service', d.namespace, d.name))); break;
      case 'EndpointSlices': world.endpointSlices.push(...(source.slicesOf(d.namespace, d.service) as never[])); break;
      case 'Secret': { const s = source.get(streamKey('Secret', d.namespace, d.name)); if (s) secrets.push(s); break; }
      case 'ConfigMap': push(world.configMaps, source.get(streamKey('ConfigMap', d.namespace, d.name))); break;
      case 'ReferenceGrants': world.referenceGrants.push(...(source.ofKind('ReferenceGrant', d.namespace) as never[])); break;
      case 'Namespaces': world.namespaces.push(...(source.ofKind('Namespace') as never[])); break;
      default: unreachable(d, 'dependency');
    }
  }
  if (secrets.length) {
    const data = await source.secretData(secrets);
    for (const sec of secrets) {
      const { dataDigest: _d, ...rest } = sec;
      world.secrets.push(inReadingOrder({ ...rest, data: data.get(streamKey('Secret', sec.metadata.namespace ?? '', sec.metadata.name)) ?? {} }) as never);
    }
  }
  return { world: stabilized(memo, gatewayStream(ns, name), world), gateway, sourcePosition, deps: keySet(deps) };
}

function push(into: unknown[], o: K8sObject | undefined): void {
  if (o) into.push(o);
}
