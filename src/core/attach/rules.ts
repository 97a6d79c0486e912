// Route rules that use a value this implementation does not support. Such a rule is dropped; a
// route whose rules are all dropped is not accepted (Accepted=False, UnsupportedValue), and a route
// with some dropped rules is accepted with PartiallyInvalid=True ("Dropped Rule ..."), as the
// Gateway API asks. The compile step must leave the dropped rules out of the table.
import type { Route } from '../model/objects';

const HTTP_FILTERS = new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite',
  'RequestMirror', 'CORS', 'ExtensionRef']);
const GRPC_FILTERS = new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestMirror', 'ExtensionRef']);
const PATH_TYPES = new Set(['Exact', 'PathPrefix', 'RegularExpression']);
const VALUE_MATCH_TYPES = new Set(['Exact', 'RegularExpression']);

// asked for by attachment, status and compile alike; a route is not changed once written
const memo = new WeakMap<Route, Map<number, string>>();

/** ruleIndex -> why the rule is dropped, for the rules of the route that use unsupported values. */
export function unsupportedRules(route: Route): Map<number, string> {
  let out = memo.get(route);
  if (!out) memo.set(route, (out = findUnsupported(route)));
  return out;
}

function findUnsupported(route: Route): Map<number, string> {
  const out = new Map<number, string>();
  if (route.kind !== 'HTTPRoute' && route.kind !== 'GRPCRoute') return out;
  const filterSet = route.kind === 'HTTPRoute' ? HTTP_FILTERS : GRPC_FILTERS;
  (route.spec?.rules ?? []).forEach((rule: any, ri: number) => {
    const problems: string[] = [];
    const checkFilters = (filters: any[] | undefined, where: string) => {
      (filters ?? []).forEach((f, fi) => {
        const type = f?.type;
        if (!filterSet.has(type)) problems.push(`${where}filters[${fi}]: filter type "${type}" is not supported`);
        else if (type === 'RequestMirror' && (f.requestMirror?.percent !== undefined || f.requestMirror?.fraction !== undefined))
          problems.push(`${where}filters[${fi}]: mirroring a fraction of requests is not supported`);
      });
    };
    if (rule?.retry !== undefined) problems.push('retry is not supported');
    if (rule?.sessionPersistence !== undefined) problems.push('sessionPersistence is not supported');
    checkFilters(rule?.filters, '');
    (rule?.backendRefs ?? []).forEach((b: any, bi: number) => checkFilters(b?.filters, `backendRefs[${bi}].`));
    (rule?.matches ?? []).forEach((m: any, mi: number) => {
      if (route.kind === 'HTTPRoute') {
        const pt = m?.path?.type;
        if (pt !== undefined && !PATH_TYPES.has(pt)) problems.push(`matches[${mi}]: path match type "${pt}" is not supported`);
        for (const [what, list] of [['headers', m?.headers], ['queryParams', m?.queryParams]] as const)
          (list ?? []).forEach((h: any, hi: number) => {
            if (h?.type !== undefined && !VALUE_MATCH_TYPES.has(h.type)) problems.push(`matches[${mi}].${what}[${hi}]: match type "${h.type}" is not supported`);
          });
      } else {
        const mt = m?.method?.type;
        if (mt !== undefined && !VALUE_MATCH_TYPES.has(mt)) problems.push(`matches[${mi}]: method match type "${mt}" is not supported`);
        (m?.headers ?? []).forEach((h: any, hi: number) => {
          if (h?.type !== undefined && !VALUE_MATCH_TYPES.has(h.type)) problems.push(`matches[${mi}].headers[${hi}]: match type "${h.type}" is not supported`);
        });
      }
    });
    if (problems.length) out.set(ri, problems.join('; '));
  });
  return out;
}
