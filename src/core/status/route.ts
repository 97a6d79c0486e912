// status.parents entries of routes, for one Gateway: one per parentRef that names it.
import type { ParentReference, Route, RouteParentStatus } from '../model/objects';
import type { GatewayAnalysis, ParentOutcome } from '../attach/attach';
import type { RouteRefs } from '../refs/route-refs';
import { GATEWAY_GROUP } from '../refs/lookup';
import { draft, mergeConditions, type ConditionDraft } from './conditions';
import { ConditionType, OWNED_CONDITION_TYPES, RouteReason } from './reasons';

export type { RouteParentStatus };

export interface RouteParents {
  kind: string;
  namespace: string;
  name: string;
  parents: RouteParentStatus[];
}

/** Two parentRefs name the same parent section (namespace defaulted to the route's). */
function sameParentRef(route: Route, a: Partial<ParentReference> | undefined, b: Partial<ParentReference> | undefined): boolean {
  const ns = route.metadata.namespace;
  return !!a && !!b && (a.group ?? GATEWAY_GROUP) === (b.group ?? GATEWAY_GROUP) && (a.kind ?? 'Gateway') === (b.kind ?? 'Gateway')
    && (a.namespace ?? ns) === (b.namespace ?? ns) && a.name === b.name
    && (a.sectionName ?? '') === (b.sectionName ?? '') && (a.port ?? null) === (b.port ?? null);
}

export function routeParentsOf(
  analysis: GatewayAnalysis, refsOf: (route: Route) => RouteRefs, controllerName: string, now: string,
  previousFor: (route: Route) => RouteParentStatus[] | undefined,
): RouteParents[] {
  const byRoute = new Map<Route, ParentOutcome[]>();
  for (const o of analysis.outcomes) (byRoute.get(o.route) ?? byRoute.set(o.route, []).get(o.route)!).push(o);
  return analysis.routes.map((route) => {
    const prev = (previousFor(route) ?? []).filter((p) => p?.controllerName === controllerName);
    const refs = refsOf(route);
    const parents = (byRoute.get(route) ?? []).map((o): RouteParentStatus => {
      const drafts: ConditionDraft[] = [
        draft(ConditionType.Accepted, o.accepted, o.reason, o.message),
        draft(ConditionType.ResolvedRefs, refs.resolved, refs.reason, refs.message),
      ];
      if (o.accepted && o.droppedRules.size)
        drafts.push(draft(ConditionType.PartiallyInvalid, true, RouteReason.UnsupportedValue,
          `Dropped Rule${o.droppedRules.size > 1 ? 's' : ''} ${[...o.droppedRules].map(([i, m]) => `${i} (${m})`).join(', ')}`));
      const before = prev.find((p) => sameParentRef(route, p.parentRef, o.parentRef));
      return {
        parentRef: o.parentRef,
        controllerName,
        conditions: mergeConditions(drafts, before?.conditions, {
          generation: route.metadata.generation, now, owned: OWNED_CONDITION_TYPES.routeParent,
        }),
      };
    });
    return { kind: route.kind, namespace: route.metadata.namespace ?? '', name: route.metadata.name, parents };
  });
}
