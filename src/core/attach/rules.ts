// Route rules that use a value this implementation does not support. Such a rule is dropped; a
// route whose rules are all dropped is not accepted (Accepted=False, UnsupportedValue), and a route
// with some dropped rules is accepted with PartiallyInvalid=True ("Dropped Rule ..."), as the
// Gateway API asks. The compile step must leave the dropped rules out of the table.
import { SmallMap } from '../model/small-map';
import type { GRPCRouteRule, HTTPRouteRule, Route } from '../model/objects';
import { backendRefFilters, ruleBackendRefs, ruleFilters, rulesOf, type RouteFilter, type RouteRule } from '../model/route-parts';
import { memoSlot, type TranslationContext } from '../translate/context';
import { regexProblem } from '../match/regex';

const HTTP_FILTERS = new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite',
  'RequestMirror', 'CORS', 'ExtensionRef', 'ExternalAuth']);
const GRPC_FILTERS = new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestMirror', 'ExtensionRef']);
const PATH_TYPES = new Set(['Exact', 'PathPrefix', 'RegularExpression']);
const VALUE_MATCH_TYPES = new Set(['Exact', 'RegularExpression']);

// asked for by attachment and compile alike; a route is not changed once written
const UNSUPPORTED = memoSlot('attach.unsupportedRules', () => new WeakMap<Route, Map<number, string>>());

/** ruleIndex -> why the rule is dropped, for the rules of the route that use unsupported values. */
export function unsupportedRules(ctx: TranslationContext, route: Route): Map<number, string> {
  const memo = ctx.memo(UNSUPPORTED);
  let out = memo.get(route);
  if (!out) memo.set(route, (out = findUnsupported(route)));
  return out;
}

function findUnsupported(route: Route): Map<number, string> {
  const out = new SmallMap<number, string>();
  if (route.kind !== 'HTTPRoute' && route.kind !== 'GRPCRoute') return out;
  const filterSet = route.kind === 'HTTPRoute' ? HTTP_FILTERS : GRPC_FILTERS;
  rulesOf(route).forEach((rule: RouteRule, ri) => {
    if (!rule) return;
    const problems: string[] = [];
    const checkFilters = (filters: readonly RouteFilter[], where: string) => {
      filters.forEach((f, fi) => {
        const type = f?.type;
        if (!filterSet.has(type)) problems.push(`${where}filters[${fi}]: filter type "${type}" is not supported`);
      });
    };
    // cookie sessions are kept (src/core/session); a session carried in a header is not
    if ('sessionPersistence' in rule && rule.sessionPersistence !== undefined && (rule.sessionPersistence?.type ?? 'Cookie') !== 'Cookie')
      problems.push(`sessionPersistence type "${rule.sessionPersistence?.type}" is not supported (only Cookie)`);
    checkFilters(ruleFilters(rule), '');
    ruleBackendRefs(rule).forEach((b, bi) => checkFilters(backendRefFilters(b), `backendRefs[${bi}].`));
    // a pattern RE2 cannot compile (a backreference, a lookahead) would match nothing: the rule is
    // dropped and says why, rather than being accepted and silently dead
    const regex = (where: string, pattern: unknown) => {
      const p = typeof pattern === 'string' ? regexProblem(pattern) : undefined;
      if (p) problems.push(`${where}: ${JSON.stringify(pattern)} is ${p.startsWith('not ') ? p : `refused: ${p}`}`);
    };
    if (route.kind === 'HTTPRoute') {
      const matches = (rule as HTTPRouteRule).matches ?? [];
      matches.forEach((m, mi) => {
        const pt = m?.path?.type;
        if (pt !== undefined && !PATH_TYPES.has(pt)) problems.push(`matches[${mi}]: path match type "${pt}" is not supported`);
        else if (pt === 'RegularExpression') regex(`matches[${mi}].path.value`, m?.path?.value);
        for (const [what, list] of [['headers', m?.headers], ['queryParams', m?.queryParams]] as const)
          (list ?? []).forEach((h, hi) => {
            if (h?.type !== undefined && !VALUE_MATCH_TYPES.has(h.type)) problems.push(`matches[${mi}].${what}[${hi}]: match type "${h.type}" is not supported`);
            else if (h?.type === 'RegularExpression') regex(`matches[${mi}].${what}[${hi}].value`, h.value);
          });
      });
    } else {
      const matches = (rule as GRPCRouteRule).matches ?? [];
      matches.forEach((m, mi) => {
        const mt = m?.method?.type;
        if (mt !== undefined && !VALUE_MATCH_TYPES.has(mt)) problems.push(`matches[${mi}]: method match type "${mt}" is not supported`);
        else if (mt === 'RegularExpression') {
          regex(`matches[${mi}].method.service`, m?.method?.service);
          regex(`matches[${mi}].method.method`, m?.method?.method);
        }
        (m?.headers ?? []).forEach((h, hi) => {
          if (h?.type !== undefined && !VALUE_MATCH_TYPES.has(h.type)) problems.push(`matches[${mi}].headers[${hi}]: match type "${h.type}" is not supported`);
          else if (h?.type === 'RegularExpression') regex(`matches[${mi}].headers[${hi}].value`, h.value);
        });
      });
    }
    if (problems.length) out.set(ri, problems.join('; '));
  });
  return out;
}
