// HTTPRoute and GRPCRoute matches as the table carries them: defaults filled in (a rule without
// matches is PathPrefix "/"; header and query matches Exact), equivalent names deduplicated (the
// first entry of a name counts, as the spec says), header names lower-cased, and a match whose
// regular expression RE2 refuses flagged invalid so that it never matches.
import { trimmed } from '../model/trimmed';
import type { GRPCRouteMatch, HTTPRouteMatch } from '../model/objects';
import type { RouteRule } from '../model/route-parts';
import { regexProblem } from '../match/regex';
import type { CompiledGRPCMatch, CompiledHTTPMatch, CompiledValueMatch } from './types';

const DEFAULT_HTTP_MATCH: HTTPRouteMatch = { path: { type: 'PathPrefix', value: '/' } };

/** A match as a rule holds it: every field may be missing (compile fills in the defaults). */
type MatchInput<M> = Partial<M> | null | undefined;

function matchesOf(rule: RouteRule | undefined): unknown {
  return rule && 'matches' in rule ? rule.matches : undefined;
}

/** The matches of an HTTPRoute rule (the one default match for none). */
export function httpMatchesOf(rule: RouteRule | undefined): readonly MatchInput<HTTPRouteMatch>[] {
  const m = matchesOf(rule);
  // the caller knows the route kind: an HTTPRoute rule holds HTTPRouteMatches
  return Array.isArray(m) && m.length > 0 ? (m as MatchInput<HTTPRouteMatch>[]) : [DEFAULT_HTTP_MATCH];
}

/** The matches of a GRPCRoute rule (one match-all for none). */
export function grpcMatchesOf(rule: RouteRule | undefined): readonly MatchInput<GRPCRouteMatch>[] {
  const m = matchesOf(rule);
  // as above, for GRPCRoute rules
  return Array.isArray(m) && m.length > 0 ? (m as MatchInput<GRPCRouteMatch>[]) : [{}];
}

interface ValueMatchInput { name?: unknown; type?: unknown; value?: unknown }

function valueMatches(list: unknown, lower: boolean, problems: string[], what: string): CompiledValueMatch[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const seen = new Set<string>();
  const out: CompiledValueMatch[] = [];
  for (const raw of list as readonly (ValueMatchInput | null | undefined)[]) {
    if (!raw || typeof raw.name !== 'string') continue;
    const name = lower ? raw.name.toLowerCase() : raw.name;
    if (seen.has(name)) continue;
    seen.add(name);
    const type = raw.type ?? 'Exact';
    const value = String(raw.value ?? '');
    if (type !== 'Exact' && type !== 'RegularExpression') {
      problems.push(`${what} ${raw.name}: match type ${JSON.stringify(type)} is not supported`);
      continue;
    }
    if (type === 'RegularExpression') {
      const p = regexProblem(value);
      if (p) problems.push(`${what} ${raw.name}: ${p}`);
    }
    out.push({ name, type, value });
  }
  return out.length ? trimmed(out) : undefined;
}

export function compileHTTPMatch(raw: MatchInput<HTTPRouteMatch>): CompiledHTTPMatch {
  const problems: string[] = [];
  const pathType: string = raw?.path?.type ?? 'PathPrefix';
  const pathValue = typeof raw?.path?.value === 'string' ? raw.path.value : '/';
  let type: CompiledHTTPMatch['path']['type'] = 'PathPrefix';
  if (pathType === 'Exact' || pathType === 'PathPrefix' || pathType === 'RegularExpression') type = pathType;
  else problems.push(`path match type ${JSON.stringify(pathType)} is not supported`);
  if (type === 'RegularExpression') {
    const p = regexProblem(pathValue);
    if (p) problems.push(`path: ${p}`);
  }
  const headers = valueMatches(raw?.headers, true, problems, 'header');
  const queryParams = valueMatches(raw?.queryParams, false, problems, 'query parameter');
  const out: CompiledHTTPMatch = { path: { type, value: pathValue } };
  if (typeof raw?.method === 'string' && raw.method) out.method = raw.method;
  if (headers) out.headers = headers;
  if (queryParams) out.queryParams = queryParams;
  if (problems.length) out.invalid = problems.join('; ');
  return out;
}

export function compileGRPCMatch(raw: MatchInput<GRPCRouteMatch>): CompiledGRPCMatch {
  const problems: string[] = [];
  const out: CompiledGRPCMatch = {};
  const m = raw?.method;
  if (m) {
    const type: string = m.type ?? 'Exact';
    if (type !== 'Exact' && type !== 'RegularExpression') problems.push(`method match type ${JSON.stringify(type)} is not supported`);
    else out.type = type;
    for (const key of ['service', 'method'] as const) {
      const v = m[key];
      if (typeof v === 'string' && v !== '') {
        out[key] = v;
        if (type === 'RegularExpression') {
          const p = regexProblem(v);
          if (p) problems.push(`${key}: ${p}`);
        }
      }
    }
  }
  const headers = valueMatches(raw?.headers, true, problems, 'header');
  if (headers) out.headers = headers;
  if (problems.length) out.invalid = problems.join('; ');
  return out;
}
