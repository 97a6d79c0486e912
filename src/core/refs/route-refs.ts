// Every reference a route makes — rule backendRefs, the backendRefs of RequestMirror filters (on
// the rule and on each backendRef), ExtensionRef filters — resolved once, in document order, with
// the ResolvedRefs verdict they add up to. The verdict does not depend on the parent: a route's
// references resolve the same way for every Gateway it names.
import type { World, BackendResolution } from '../model/world';
import type { Route } from '../model/objects';
import { resolveBackendRef, isRefFailure } from './backends';
import { RouteReason } from '../status/reasons';
import { backendMemo } from './lookup';

export interface RefProblem {
  path: string;
  reason: string;
  message: string;
}

export interface RuleRefs {
  /** the rule's backendRefs, resolved, in spec order */
  backends: BackendResolution[];
  /** RequestMirror targets of the rule's filters and of its backendRefs' filters */
  mirrors: { path: string; backend: BackendResolution }[];
  /** filters whose reference cannot be resolved (ExtensionRef: no extension kinds are supported) */
  unresolvedFilters: RefProblem[];
}

export interface RouteRefs {
  rules: RuleRefs[];
  problems: RefProblem[];
  resolved: boolean;
  reason: string;
  message: string;
}

export function routeRefs(world: World, route: Route): RouteRefs {
  // what a route's references resolve to depends on the grants, Services and slices alone
  const perWorld = backendMemo<RouteRefs>(world, 'routeRefs');
  const hit = perWorld.get(route);
  if (hit) return hit;
  const result = compute(world, route);
  perWorld.set(route, result);
  return result;
}

function compute(world: World, route: Route): RouteRefs {
  const problems: RefProblem[] = [];
  const rules: RuleRefs[] = [];
  const note = (path: string, b: BackendResolution) => {
    if (!b.valid && isRefFailure(b.reason)) problems.push({ path, reason: b.reason!, message: b.message ?? '' });
  };
  const filtersOf = (filters: any[] | undefined, base: string, out: RuleRefs) => {
    (filters ?? []).forEach((f, fi) => {
      const path = `${base}.filters[${fi}]`;
      if (f?.type === 'RequestMirror' && f.requestMirror?.backendRef) {
        const b = resolveBackendRef(world, route, f.requestMirror.backendRef);
        out.mirrors.push({ path: `${path}.requestMirror.backendRef`, backend: b });
        note(`${path}.requestMirror.backendRef`, b);
      } else if (f?.type === 'ExtensionRef') {
        const ref = f.extensionRef ?? {};
        const p = {
          path: `${path}.extensionRef`, reason: RouteReason.InvalidKind,
          message: `ExtensionRef filter ${ref.kind ?? '?'} "${ref.name ?? ''}"${ref.group ? ` (group ${ref.group})` : ''} cannot be resolved: no extension kinds are supported`,
        };
        out.unresolvedFilters.push(p);
        problems.push(p);
      }
    });
  };
  (route.spec?.rules ?? []).forEach((rule: any, ri: number) => {
    const base = `spec.rules[${ri}]`;
    const out: RuleRefs = { backends: [], mirrors: [], unresolvedFilters: [] };
    filtersOf(rule?.filters, base, out);
    (rule?.backendRefs ?? []).forEach((ref: any, bi: number) => {
      const b = resolveBackendRef(world, route, ref);
      out.backends.push(b);
      note(`${base}.backendRefs[${bi}]`, b);
      filtersOf(ref?.filters, `${base}.backendRefs[${bi}]`, out);
    });
    rules.push(out);
  });
  if (problems.length === 0)
    return { rules, problems, resolved: true, reason: RouteReason.ResolvedRefs, message: 'All references are resolved' };
  const first = problems[0];
  const shown = problems.slice(0, 5).map((p) => `${p.path}: ${p.message}`);
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  return { rules, problems, resolved: false, reason: first.reason, message: shown.join('; ') + more };
}
