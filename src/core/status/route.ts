// status.parents entries of routes, for one Gateway: one per parentRef that names it.
import type { ParentReference, Route, RouteParentStatus } from '../model/objects';
import type { GatewayAnalysis, ParentOutcome } from '../attach/attach';
import type { RouteRefs } from '../refs/route-refs';
import { GATEWAY_GROUP } from '../refs/lookup';
import { draft, mergeConditions, type ConditionDraft } from './conditions';
import { ConditionType, OWNED_CONDITION_TYPES, RouteReason } from './reasons';
import { memoSlot, type TranslationContext } from '../translate/context';
import { sameItems } from '../model/same-items';
import { trimmed } from '../model/trimmed';
import { lastShared } from '../model/last-shared';
import { deepEqual } from '../objects/canonical';

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

// A route's entries depend on its outcomes, its references and the entries it had: when its
// outcomes and references are the same objects as at the last recompute, and the entries it had are
// the ones that recompute made, merging conditions with their own result changes nothing (whatever
// the time), and the same array is answered, so that the diff against what was written costs
// nothing for the routes a change did not touch.
interface ParentsMemo {
  outcomes: ParentOutcome[];
  refs: RouteRefs;
  controllerName: string;
  result: RouteParents;
}
const PARENTS = memoSlot('status.routeParents', () => new WeakMap<Route, ParentsMemo>());


export function routeParentsOf(
  analysis: GatewayAnalysis, refsOf: (route: Route) => RouteRefs, controllerName: string, now: string,
  previousFor: (route: Route) => RouteParentStatus[] | undefined, ctx?: TranslationContext,
): RouteParents[] {
  const byRoute = new Map<Route, ParentOutcome[]>();
  for (const o of analysis.outcomes) (byRoute.get(o.route) ?? byRoute.set(o.route, []).get(o.route)!).push(o);
  const memo = ctx?.memo(PARENTS);
  return analysis.routes.map((route) => {
    const outcomes = byRoute.get(route) ?? [];
    const refs = refsOf(route);
    const previous = previousFor(route);
    const hit = memo?.get(route);
    if (hit && hit.refs === refs && hit.controllerName === controllerName && hit.result.parents === previous
      && sameItems(hit.outcomes, outcomes)) return hit.result;
    const result = entriesOf(route, outcomes, refs, controllerName, now, previous);
    memo?.set(route, { outcomes: trimmed(outcomes), refs, controllerName, result });
    return result;
  });
}

function entriesOf(route: Route, outcomes: ParentOutcome[], refs: RouteRefs, controllerName: string, now: string, previous: RouteParentStatus[] | undefined): RouteParents {
  const prev = (previous ?? []).filter((p) => p?.controllerName === controllerName);
  // rules whose ExtensionRef filter names a kind we do not serve: kept in the table, where their
  // requests are answered 500 (the filter is never skipped), and reported as the implementations
  // we compare with report them: the whole route not accepted when every rule has one, else
  // PartiallyInvalid
  const extension = refs.rules.flatMap((r, i) => (r.unresolvedFilters.length ? [[i, r.unresolvedFilters[0].message] as const] : []));
  const allExtension = extension.length > 0 && extension.length === refs.rules.length;
  const parents = outcomes.map((o): RouteParentStatus => {
    const drafts: ConditionDraft[] = [
      o.accepted && allExtension
        ? draft(ConditionType.Accepted, false, RouteReason.UnsupportedValue,
          `Every rule uses an ExtensionRef filter this implementation does not serve; their requests are answered 500: ${extension.map(([i, m]) => `rule ${i}: ${m}`).join('; ')}`)
        : draft(ConditionType.Accepted, o.accepted, o.reason, o.message),
      draft(ConditionType.ResolvedRefs, refs.resolved, refs.reason, refs.message),
    ];
    const partial = [
      ...(o.droppedRules.size ? [`Dropped Rule${o.droppedRules.size > 1 ? 's' : ''} ${[...o.droppedRules].map(([i, m]) => `${i} (${m})`).join(', ')}`] : []),
      ...(!allExtension && extension.length ? [`Rule${extension.length > 1 ? 's' : ''} ${extension.map(([i]) => i).join(', ')} answer${extension.length > 1 ? '' : 's'} 500: an ExtensionRef filter of a kind this implementation does not serve`] : []),
    ];
    if (o.accepted && !allExtension && partial.length)
      drafts.push(draft(ConditionType.PartiallyInvalid, true, RouteReason.UnsupportedValue, partial.join('; ')));
    const before = prev.find((p) => sameParentRef(route, p.parentRef, o.parentRef));
    return {
      parentRef: o.parentRef,
      controllerName,
      conditions: mergeConditions(drafts, before?.conditions, {
        generation: route.metadata.generation, now, owned: OWNED_CONDITION_TYPES.routeParent,
      }),
    };
  });
  return { kind: route.kind, namespace: route.metadata.namespace ?? '', name: route.metadata.name, parents: sameAsLast(parents) };
}

// Routes whose parents' statuses read the same share one array of them: the routes a recompute
// accepts on the same listeners, at the same generation, get the same parentRef and conditions
// (some 400 bytes a route)
const sameAsLast = lastShared<RouteParentStatus[]>((a, b) => b.length > 0 && deepEqual(a, b));
