// Every reference a route makes — rule backendRefs, the backendRefs of RequestMirror filters (on
// the rule and on each backendRef), ExtensionRef filters — resolved once, in document order, with
// the ResolvedRefs verdict they add up to. The verdict does not depend on the parent: a route's
// references resolve the same way for every Gateway it names. Status and compile both read this
// one resolution.
import type { BackendResolution } from '../model/world';
import type { Route } from '../model/objects';
import { backendRefFilters, ruleBackendRefs, ruleFilters, rulesOf, type RouteFilter } from '../model/route-parts';
import { resolveBackendRef, isRefFailure, type BackendRefInput } from './backends';
import { RouteReason } from '../status/reasons';
import { backendMemo, type WorldView } from './lookup';
import { noItems, trimmed } from '../model/trimmed';

export interface RefProblem {
  path: string;
  reason: string;
  message: string;
}

export interface RuleRefs {
  /** the rule's backendRefs, resolved, in spec order */
  backends: BackendResolution[];
  /** RequestMirror targets and ExternalAuth servers of the rule's filters and of its backendRefs' filters */
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

export function routeRefs(view: WorldView, route: Route): RouteRefs {
  // what a route's references resolve to depends on the grants, Services and slices alone
  const perWorld = backendMemo<RouteRefs>(view, 'routeRefs');
  const hit = perWorld.get(route);
  if (hit) return hit;
  const result = compute(view, route);
  perWorld.set(route, result);
  return result;
}

// A rule with one backendRef and no filter that reaches anything: the same for every rule whose
// reference resolves to the same resolution (see resolveBackendRef), so one object for them all
// (what is resolved is not changed afterwards).
const ONLY_BACKEND = new WeakMap<BackendResolution, RuleRefs>();

function onlyBackend(b: BackendResolution): RuleRefs {
  let out = ONLY_BACKEND.get(b);
  if (!out) ONLY_BACKEND.set(b, (out = { backends: [b], mirrors: noItems(), unresolvedFilters: noItems() }));
  return out;
}

// Routes whose references all resolve, of one or two rules that share what they resolved (see
// onlyBackend), are told the same: one answer for them all.
const resolvedOf = (rules: RuleRefs[]): RouteRefs =>
  ({ rules: rules.length ? rules : noItems(), problems: noItems(), resolved: true, reason: RouteReason.ResolvedRefs, message: 'All references are resolved' });
const NO_RULES = resolvedOf([]);
const OF_ONE = new WeakMap<RuleRefs, RouteRefs>();
const OF_TWO = new WeakMap<RuleRefs, WeakMap<RuleRefs, RouteRefs>>();

const shared = (r: RuleRefs): boolean => r.backends.length === 1 && ONLY_BACKEND.get(r.backends[0]) === r;

function allResolved(rules: RuleRefs[]): RouteRefs {
  if (rules.length === 0) return NO_RULES;
  // a rule of its own makes the answer the route's own (no table entry kept for it)
  if (rules.length > 2 || !rules.every(shared)) return resolvedOf(rules);
  if (rules.length === 1) {
    let out = OF_ONE.get(rules[0]);
    if (!out) OF_ONE.set(rules[0], (out = resolvedOf(rules)));
    return out;
  }
  let second = OF_TWO.get(rules[0]);
  if (!second) OF_TWO.set(rules[0], (second = new WeakMap()));
  let out = second.get(rules[1]);
  if (!out) second.set(rules[1], (out = resolvedOf(rules)));
  return out;
}

function compute(view: WorldView, route: Route): RouteRefs {
  const problems: RefProblem[] = [];
  const resolve = (ref: BackendRefInput, path: string): BackendResolution => {
    const b = resolveBackendRef(view, route, ref);
    if (!b.valid && isRefFailure(b.reason)) problems.push({ path, reason: b.reason!, message: b.message ?? '' });
    return b;
  };
  const filtersOf = (filters: readonly RouteFilter[], base: string, out: RuleRefs) => {
    filters.forEach((f, fi) => {
      const path = `${base}.filters[${fi}]`;
      if (f?.type === 'RequestMirror' && f.requestMirror?.backendRef) {
        const at = `${path}.requestMirror.backendRef`;
        out.mirrors.push({ path: at, backend: resolve(f.requestMirror.backendRef, at) });
      } else if (f?.type === 'ExternalAuth' && (f as { externalAuth?: { backendRef?: BackendRefInput } }).externalAuth?.backendRef) {
        // an authorization server is reached like a mirror's target: resolved (ReferenceGrant
        // included) with the rule's other references, and listed with them
        const at = `${path}.externalAuth.backendRef`;
        out.mirrors.push({ path: at, backend: resolve((f as { externalAuth: { backendRef: BackendRefInput } }).externalAuth.backendRef, at) });
      } else if (f?.type === 'ExtensionRef') {
        const ref: Partial<NonNullable<RouteFilter['extensionRef']>> = f.extensionRef ?? {};
        const p = {
          path: `${path}.extensionRef`, reason: RouteReason.InvalidKind,
          message: `ExtensionRef filter ${ref.kind ?? '?'} "${ref.name ?? ''}"${ref.group ? ` (group ${ref.group})` : ''} cannot be resolved: no extension kinds are supported`,
        };
        out.unresolvedFilters.push(p);
        problems.push(p);
      }
    });
  };
  const rules = rulesOf(route).map((rule, ri): RuleRefs => {
    const base = `spec.rules[${ri}]`;
    const out: RuleRefs = { backends: [], mirrors: [], unresolvedFilters: [] };
    filtersOf(ruleFilters(rule), base, out);
    ruleBackendRefs(rule).forEach((ref, bi) => {
      out.backends.push(resolve(ref, `${base}.backendRefs[${bi}]`));
      filtersOf(backendRefFilters(ref), `${base}.backendRefs[${bi}]`, out);
    });
    if (out.backends.length === 1 && out.mirrors.length === 0 && out.unresolvedFilters.length === 0) return onlyBackend(out.backends[0]);
    return { backends: trimmed(out.backends), mirrors: trimmed(out.mirrors), unresolvedFilters: trimmed(out.unresolvedFilters) };
  });
  if (problems.length === 0) return allResolved(rules);
  const first = problems[0];
  const shown = problems.slice(0, 5).map((p) => `${p.path}: ${p.message}`);
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  return { rules: rules.length ? rules : noItems(), problems: trimmed(problems), resolved: false, reason: first.reason, message: shown.join('; ') + more };
}

/** Every resolution a route's references reached: its rules' backends and their mirrors' targets. */
export function* reachedBackends(refs: RouteRefs): Iterable<BackendResolution> {
  for (const r of refs.rules) {
    yield* r.backends;
    for (const m of r.mirrors) yield m.backend;
  }
}
