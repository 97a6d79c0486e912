// status.parents entries of routes for their Service parents: one per parentRef naming a Service,
// with our controllerName (Accepted, ResolvedRefs). The references of a mesh route resolve without
// ReferenceGrants (GEP-1294), so ResolvedRefs is the mesh resolution's, not the Gateway one's.
import type { ParentReference, Route, RouteParentStatus } from '../model/objects';
import { backendRefFilters, ruleBackendRefs, ruleFilters, rulesOf, type RouteFilter } from '../model/route-parts';
import { isRefFailure } from '../refs/backends';
import type { WorldView } from '../refs/lookup';
import { draft, mergeConditions, type ConditionDraft } from '../status/conditions';
import { ConditionType, OWNED_CONDITION_TYPES, RouteReason } from '../status/reasons';
import { meshBackendResolver } from './compile-mesh';
import { isServiceParent, type MeshParentOutcome } from './parents';

export interface MeshRouteParents {
  kind: string;
  namespace: string;
  name: string;
  /** the entries for the route's Service parents (entries for Gateways are the Gateway recomputes') */
  parents: RouteParentStatus[];
}

/** ResolvedRefs of a route's references as the mesh resolves them. */
export function meshRefs(view: WorldView, route: Route): { resolved: boolean; reason: string; message: string } {
  const resolve = meshBackendResolver(view);
  const problems: string[] = [];
  let reason: string | undefined;
  const check = (ref: Parameters<typeof resolve>[1], path: string) => {
    const b = resolve(route, ref);
    if (!b.valid && isRefFailure(b.reason)) {
      reason ??= b.reason;
      problems.push(`${path}: ${b.message ?? b.reason}`);
    }
  };
  const mirrors = (filters: readonly RouteFilter[], base: string) => filters.forEach((f, fi) => {
    if (f?.type === 'RequestMirror' && f.requestMirror?.backendRef) check(f.requestMirror.backendRef, `${base}.filters[${fi}].requestMirror.backendRef`);
  });
  rulesOf(route).forEach((rule, ri) => {
    mirrors(ruleFilters(rule), `spec.rules[${ri}]`);
    ruleBackendRefs(rule).forEach((ref, bi) => {
      check(ref, `spec.rules[${ri}].backendRefs[${bi}]`);
      mirrors(backendRefFilters(ref), `spec.rules[${ri}].backendRefs[${bi}]`);
    });
  });
  if (!problems.length) return { resolved: true, reason: RouteReason.ResolvedRefs, message: 'All references are resolved' };
  return { resolved: false, reason: reason!, message: problems.slice(0, 5).join('; ') + (problems.length > 5 ? ` (and ${problems.length - 5} more)` : '') };
}

function sameServiceParent(route: Route, a: Partial<ParentReference> | undefined, b: Partial<ParentReference> | undefined): boolean {
  const ns = route.metadata.namespace;
  return !!a && !!b && isServiceParent(a) && isServiceParent(b) && (a.namespace ?? ns) === (b.namespace ?? ns) && a.name === b.name
    && (a.port ?? null) === (b.port ?? null);
}

/**
 * The Service parent entries of every route that names a Service, from the outcomes of
 * meshParentOutcomes; `previousFor` gives what the route's status holds now (for transition times).
 */
export function meshRouteParents(
  view: WorldView, outcomes: readonly MeshParentOutcome[], controllerName: string, now: string,
  previousFor: (route: Route) => RouteParentStatus[] | undefined,
): MeshRouteParents[] {
  const byRoute = new Map<Route, MeshParentOutcome[]>();
  for (const o of outcomes) (byRoute.get(o.route) ?? byRoute.set(o.route, []).get(o.route)!).push(o);
  const out: MeshRouteParents[] = [];
  for (const [route, list] of byRoute) {
    const refs = meshRefs(view, route);
    const prev = (previousFor(route) ?? []).filter((p) => p?.controllerName === controllerName);
    const parents: RouteParentStatus[] = [];
    for (const o of list) {
      // two parentRefs naming the same Service port get one entry, as for Gateways
      if (parents.some((p) => sameServiceParent(route, p.parentRef, o.parentRef))) continue;
      const drafts: ConditionDraft[] = [
        draft(ConditionType.Accepted, o.accepted, o.reason, o.message),
        draft(ConditionType.ResolvedRefs, refs.resolved, refs.reason, refs.message),
      ];
      const before = prev.find((p) => sameServiceParent(route, p.parentRef, o.parentRef));
      parents.push({
        parentRef: o.parentRef,
        controllerName,
        conditions: mergeConditions(drafts, before?.conditions, { generation: route.metadata.generation, now, owned: OWNED_CONDITION_TYPES.routeParent }),
      });
    }
    out.push({ kind: route.kind, namespace: route.metadata.namespace ?? '', name: route.metadata.name, parents });
  }
  return out;
}
