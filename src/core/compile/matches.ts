// HTTPRoute and GRPCRoute matches as the table carries them: defaults filled in (a rule without
// matches is PathPrefix "/"; header and query matches Exact), equivalent names deduplicated (the
// first entry of a name counts, as the spec says), header names lower-cased, and a match whose
// regular expression RE2 refuses flagged invalid so that it never matches.
import { regexProblem } from '../match/regex';
import type { CompiledGRPCMatch, CompiledHTTPMatch, CompiledValueMatch } from './types';

const DEFAULT_HTTP_MATCH = { path: { type: 'PathPrefix', value: '/' } };

export function httpMatchesOf(rule: any): any[] {
  const m = rule?.matches;
  return Array.isArray(m) && m.length > 0 ? m : [DEFAULT_HTTP_MATCH];
}

export function grpcMatchesOf(rule: any): any[] {
  const m = rule?.matches;
  return Array.isArray(m) && m.length > 0 ? m : [{}];
}

function valueMatches(list: unknown, lower: boolean, problems: string[], what: string): CompiledValueMatch[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const seen = new Set<string>();
  const out: CompiledValueMatch[] = [];
  for (const raw of list as any[]) {
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
  return out.length ? out : undefined;
}

export function compileHTTPMatch(raw: any): CompiledHTTPMatch {
  const problems: string[] = [];
  const pathType = raw?.path?.type ?? 'PathPrefix';
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

export function compileGRPCMatch(raw: any): CompiledGRPCMatch {
  const problems: string[] = [];
  const out: CompiledGRPCMatch = {};
  const m = raw?.method;
  if (m) {
    const type = m.type ?? 'Exact';
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
