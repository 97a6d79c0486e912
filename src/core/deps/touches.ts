// What one change of one object can touch: the dependency keys of its version before and after.
// Stamped on the event when it is written (events.touches), so that the dispatcher and the
// store's checks match keys without knowing the rules.
import { isRouteKind } from '../model/kinds';
import { unreachable } from '../model/unreachable';
import { SERVICE_NAME_LABEL, gatewayOfListenerSet, gatewaysNamedBy, parentsNamedBy } from '../refs/lookup';
import { dep, keySet, type DepKey, type Dependency } from './keys';
import { policyTargets } from './gateway-deps';
import { servicesNamedBy } from '../mesh/parents';

interface Version { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> }; spec?: unknown }

/** Every stored kind but the routes, whose rule is the same for all five (test/unit/dependencies.test.ts checks it against KINDS). */
type OtherKind = 'Gateway' | 'GatewayClass' | 'Namespace' | 'Service' | 'EndpointSlice' | 'Secret' | 'ConfigMap' | 'ReferenceGrant'
  | 'BackendTLSPolicy' | 'ListenerSet';

const split = (k: string): [string, string] => {
  const slash = k.indexOf('/');
  return [k.slice(0, slash), k.slice(slash + 1)];
};

function touchedByVersion(kind: string, v: Version, out: Dependency[]): void {
  const ns = v.metadata?.namespace ?? '';
  const name = v.metadata?.name ?? '';
  if (isRouteKind(kind)) {
    for (const g of gatewaysNamedBy(v as Parameters<typeof gatewaysNamedBy>[0])) out.push(dep.gateway(...split(g)));
    // a route naming a ListenerSet reaches the Gateway of that ListenerSet, which records the key
    for (const l of parentsNamedBy(v as Parameters<typeof gatewaysNamedBy>[0], 'ListenerSet')) out.push(dep.listenerSet(...split(l)));
    // a route naming a Service governs mesh traffic to it: the mesh tables and statuses read it
    for (const s of servicesNamedBy(v as Parameters<typeof servicesNamedBy>[0])) out.push(dep.meshParent(...split(s)));
    return;
  }
  const other = kind as OtherKind;
  switch (other) {
    case 'Gateway': out.push(dep.gateway(ns, name)); return;
    case 'GatewayClass': out.push(dep.gatewayClass(name)); return;
    case 'Namespace': out.push(dep.namespaces()); return;
    case 'Service': out.push(dep.service(ns, name)); return;
    case 'EndpointSlice': {
      const svc = v.metadata?.labels?.[SERVICE_NAME_LABEL];
      if (svc) out.push(dep.endpointSlices(ns, svc));
      return;
    }
    case 'Secret': out.push(dep.secret(ns, name)); return;
    case 'ConfigMap': out.push(dep.configMap(ns, name)); return;
    case 'ReferenceGrant': out.push(dep.referenceGrants(ns)); return;
    // a policy applies to the Services it targets: the Gateways reaching them recorded those keys
    case 'BackendTLSPolicy': out.push(...policyTargets({ metadata: { namespace: ns, name }, spec: v.spec })); return;
    case 'ListenerSet': {
      const g = gatewayOfListenerSet(v as Parameters<typeof gatewayOfListenerSet>[0]);
      if (g) out.push(dep.gateway(...split(g)));
      out.push(dep.listenerSet(ns, name));
      return;
    }
    // a kind added to KINDS must say here what its changes touch
    default: unreachable(other, 'object kind');
  }
}

/** The keys a change touches: those of the version before (absent on create) and after (absent on delete). */
export function touchedBy(kind: string, before?: Version | null, after?: Version | null): DepKey[] {
  const out: Dependency[] = [];
  if (before) touchedByVersion(kind, before, out);
  if (after) touchedByVersion(kind, after, out);
  return keySet(out);
}
