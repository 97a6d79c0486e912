// Which Gateways of a whole world a change can affect: those it names directly, and those whose
// dependencies it touches. The worker learns the same from what each recompute recorded; this
// form serves callers that hold the whole world (the golden cases).
import type { World } from '../model/world';
import type { Gateway } from '../model/objects';
import { cmp, gatewayOfListenerSet, gatewaysNamedBy, key, parentsNamedBy } from '../refs/lookup';
import { depKey, parseDepKey } from './keys';
import { gatewayDependencies, policyTargets, withPolicyDependencies, type PoliciesOf } from './gateway-deps';
import { touchedBy } from './touches';

/** An object as the change had it. */
interface Changed { kind: string; metadata?: { name?: string; namespace?: string; labels?: Record<string, string> }; spec?: unknown }

export interface GatewayKey {
  namespace: string;
  name: string;
}

/** The world's BackendTLSPolicies by the Services they target. */
function policiesIn(world: World): PoliciesOf {
  const policies = world.backendTLSPolicies ?? [];
  return (ns, service) => policies.filter((p) => policyTargets(p).some((t) => t.kind === 'Service' && t.namespace === ns && t.name === service));
}

export function affectedGateways(world: World, before?: Changed | null, after?: Changed | null): GatewayKey[] {
  const obj = after ?? before;
  if (!obj) return [];
  const touched = new Set<string>(touchedBy(obj.kind, before, after));
  const out = new Map<string, GatewayKey>();
  for (const k of touched) {
    const d = parseDepKey(k);
    if (d?.kind === 'Gateway') out.set(key(d.namespace, d.name), { namespace: d.namespace, name: d.name });
  }
  for (const g of world.gateways as Gateway[]) {
    const ns = g.metadata.namespace ?? '';
    const named = key(ns, g.metadata.name);
    const sets = (world.listenerSets ?? []).filter((ls) => gatewayOfListenerSet(ls) === named);
    const setKeys = new Set(sets.map((ls) => key(ls.metadata.namespace, ls.metadata.name)));
    const routes = [...world.routes].filter((r) => gatewaysNamedBy(r).includes(named) || parentsNamedBy(r, 'ListenerSet').some((k) => setKeys.has(k)));
    const deps = withPolicyDependencies(gatewayDependencies(g, routes, undefined, sets), policiesIn(world));
    if (deps.some((d) => touched.has(depKey(d)))) out.set(key(ns, g.metadata.name), { namespace: ns, name: g.metadata.name });
  }
  return [...out.values()].sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.name, b.name));
}
