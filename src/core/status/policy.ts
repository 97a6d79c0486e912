// status.ancestors entries of BackendTLSPolicies, for one Gateway: the Gateway is an ancestor of
// every policy that targets a Service its accepted HTTPRoutes, GRPCRoutes and terminated TLSRoutes
// reach (rule backends and mirrors), one entry per policy for this Gateway and controller, with the
// policy's Accepted and ResolvedRefs.
import type { Gateway, PolicyAncestorStatus, Route } from '../model/objects';
import type { GatewayAnalysis } from '../attach/attach';
import { reachedBackends, type RouteRefs } from '../refs/route-refs';
import { originatesTLS, policyVerdict } from '../refs/backend-tls';
import { GATEWAY_GROUP, key, type WorldView } from '../refs/lookup';
import { draft, mergeConditions } from './conditions';
import { ConditionType, OWNED_CONDITION_TYPES, RouteReason } from './reasons';

export type { PolicyAncestorStatus };

export interface PolicyAncestors {
  kind: 'BackendTLSPolicy';
  namespace: string;
  name: string;
  ancestors: PolicyAncestorStatus[];
}

export function policyAncestorsOf(
  view: WorldView, analysis: GatewayAnalysis, refsOf: (route: Route) => RouteRefs, controllerName: string, now: string,
  previousFor: (namespace: string, name: string) => PolicyAncestorStatus[] | undefined,
): PolicyAncestors[] {
  if (!view.index.policiesByService.size) return [];
  const gw: Gateway = analysis.gateway;
  // the routes through which the Gateway originates TLS to backends: HTTPRoutes, GRPCRoutes, and
  // TLSRoutes on a listener that terminates TLS (passthrough forwards the client's own TLS)
  const accepted = new Set<Route>();
  const listeners = gw.spec?.listeners ?? [];
  for (const o of analysis.outcomes) {
    if (!o.accepted || !originatesTLS(o.kind)) continue;
    if (o.kind === 'TLSRoute' && ![...o.attached.keys()].some((i) => listeners[i]?.tls?.mode !== 'Passthrough')) continue;
    accepted.add(o.route);
  }
  const policies = new Set<NonNullable<ReturnType<typeof view.index.policiesByService.get>>[number]>();
  for (const route of accepted) {
    for (const res of reachedBackends(refsOf(route))) {
      // a Service the route may not reach (no ReferenceGrant) is not reached through this Gateway
      if ((res.group ?? '') !== '' || (res.kind ?? 'Service') !== 'Service' || res.reason === RouteReason.RefNotPermitted
        || !view.index.services.has(key(res.namespace, res.name))) continue;
      for (const p of view.index.policiesByService.get(key(res.namespace, res.name)) ?? []) policies.add(p);
    }
  }
  const ancestorRef = { group: GATEWAY_GROUP, kind: 'Gateway', namespace: gw.metadata.namespace ?? '', name: gw.metadata.name };
  const out: PolicyAncestors[] = [];
  for (const p of policies) {
    const v = policyVerdict(view, p);
    const ns = p.metadata.namespace ?? '';
    const before = (previousFor(ns, p.metadata.name) ?? []).find((a) => a?.controllerName === controllerName
      && a.ancestorRef?.name === ancestorRef.name && (a.ancestorRef?.namespace ?? ns) === ancestorRef.namespace);
    out.push({
      kind: 'BackendTLSPolicy', namespace: ns, name: p.metadata.name,
      ancestors: [{
        ancestorRef: { ...ancestorRef },
        controllerName,
        conditions: mergeConditions([
          draft(ConditionType.Accepted, v.accepted.ok, v.accepted.reason, v.accepted.message),
          draft(ConditionType.ResolvedRefs, v.resolvedRefs.ok, v.resolvedRefs.reason, v.resolvedRefs.message),
        ], before?.conditions, { generation: p.metadata.generation, now, owned: OWNED_CONDITION_TYPES.policyAncestor }),
      }],
    });
  }
  return out.sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
