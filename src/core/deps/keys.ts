// What a Gateway's result can depend on, as typed keys. The same keys are recorded per Gateway
// (gateway_deps), stamped on every event (events.touches) and matched by the store as opaque
// strings: this file is the only place that spells them.

export type Dependency =
  /** the Gateway itself and every route that names it in a parentRef */
  | { kind: 'Gateway'; namespace: string; name: string }
  | { kind: 'GatewayClass'; name: string }
  | { kind: 'Service'; namespace: string; name: string }
  /** the EndpointSlices labelled kubernetes.io/service-name for one Service */
  | { kind: 'EndpointSlices'; namespace: string; service: string }
  | { kind: 'Secret'; namespace: string; name: string }
  | { kind: 'ConfigMap'; namespace: string; name: string }
  /** every ReferenceGrant in a namespace (a grant admits references into its own namespace) */
  | { kind: 'ReferenceGrants'; namespace: string }
  /** the labels of any Namespace (namespace selectors) */
  | { kind: 'Namespaces' }
  /** a ListenerSet naming the Gateway, and every route that names the ListenerSet */
  | { kind: 'ListenerSet'; namespace: string; name: string }
  /** a Service as a route's parent (GAMMA): the routes naming it govern mesh traffic to it */
  | { kind: 'MeshParent'; namespace: string; name: string };

import { unreachable } from '../model/unreachable';

declare const depKeyBrand: unique symbol;
/** A Dependency as the store keeps it. */
export type DepKey = string & { readonly [depKeyBrand]: true };

export const dep = {
  gateway: (namespace: string, name: string): Dependency => ({ kind: 'Gateway', namespace, name }),
  gatewayClass: (name: string): Dependency => ({ kind: 'GatewayClass', name }),
  service: (namespace: string, name: string): Dependency => ({ kind: 'Service', namespace, name }),
  endpointSlices: (namespace: string, service: string): Dependency => ({ kind: 'EndpointSlices', namespace, service }),
  secret: (namespace: string, name: string): Dependency => ({ kind: 'Secret', namespace, name }),
  configMap: (namespace: string, name: string): Dependency => ({ kind: 'ConfigMap', namespace, name }),
  referenceGrants: (namespace: string): Dependency => ({ kind: 'ReferenceGrants', namespace }),
  namespaces: (): Dependency => ({ kind: 'Namespaces' }),
  listenerSet: (namespace: string, name: string): Dependency => ({ kind: 'ListenerSet', namespace, name }),
  meshParent: (namespace: string, name: string): Dependency => ({ kind: 'MeshParent', namespace, name }),
};

// A route's dependencies are kept with the route object (see gatewayDependencies), so the same
// objects come back on every recompute of its Gateway: their keys are spelled once.
const KEYS = new WeakMap<Dependency, DepKey>();

export function depKey(d: Dependency): DepKey {
  let k = KEYS.get(d);
  if (k === undefined) KEYS.set(d, (k = spell(d)));
  return k;
}

// The spellings predate this module (gateway_deps rows written by earlier versions stay valid).
function spell(d: Dependency): DepKey {
  switch (d.kind) {
    case 'Gateway': return `Gateway/${d.namespace}/${d.name}` as DepKey;
    case 'GatewayClass': return `GatewayClass//${d.name}` as DepKey;
    case 'Service': return `Service/${d.namespace}/${d.name}` as DepKey;
    case 'EndpointSlices': return `EndpointSlice/${d.namespace}/${d.service}` as DepKey;
    case 'Secret': return `Secret/${d.namespace}/${d.name}` as DepKey;
    case 'ConfigMap': return `ConfigMap/${d.namespace}/${d.name}` as DepKey;
    case 'ReferenceGrants': return `ReferenceGrant/${d.namespace}` as DepKey;
    case 'Namespaces': return 'Namespace/*' as DepKey;
    case 'ListenerSet': return `ListenerSet/${d.namespace}/${d.name}` as DepKey;
    case 'MeshParent': return `MeshParent/${d.namespace}/${d.name}` as DepKey;
    default: return unreachable(d, 'dependency');
  }
}

/** The Dependency a stored key names, or undefined for a string no builder makes. */
export function parseDepKey(key: string): Dependency | undefined {
  if (key === 'Namespace/*') return dep.namespaces();
  const first = key.indexOf('/');
  if (first < 0) return undefined;
  const kind = key.slice(0, first);
  const rest = key.slice(first + 1);
  if (kind === 'ReferenceGrant') return rest && !rest.includes('/') ? dep.referenceGrants(rest) : undefined;
  const second = rest.indexOf('/');
  if (second < 0) return undefined;
  const namespace = rest.slice(0, second);
  const name = rest.slice(second + 1);
  if (!name) return undefined;
  switch (kind) {
    case 'Gateway': return namespace ? dep.gateway(namespace, name) : undefined;
    case 'GatewayClass': return namespace ? undefined : dep.gatewayClass(name);
    case 'Service': return dep.service(namespace, name);
    case 'EndpointSlice': return dep.endpointSlices(namespace, name);
    case 'Secret': return dep.secret(namespace, name);
    case 'ConfigMap': return dep.configMap(namespace, name);
    case 'ListenerSet': return namespace ? dep.listenerSet(namespace, name) : undefined;
    case 'MeshParent': return namespace ? dep.meshParent(namespace, name) : undefined;
    default: return undefined;
  }
}

/** Unique keys in one order, so that an unchanged dependency list compares equal. */
export function keySet(deps: Iterable<Dependency>): DepKey[] {
  const out = new Set<DepKey>();
  for (const d of deps) out.add(depKey(d));
  return [...out].sort();
}

/** Each dependency once, in key order (so that a world does not depend on the order refs were found). */
export function uniqueDependencies(deps: Iterable<Dependency>): Dependency[] {
  const byKey = new Map<DepKey, Dependency>();
  for (const d of deps) {
    const k = depKey(d);
    if (!byKey.has(k)) byKey.set(k, d);
  }
  return [...byKey.keys()].sort().map((k) => byKey.get(k)!);
}
