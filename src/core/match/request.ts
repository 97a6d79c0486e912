// Whether one compiled match accepts a request. Requests are normalized first (lower-case header
// names, the first value of each query parameter).
import type { CompiledGRPCMatch, CompiledHTTPMatch, CompiledValueMatch } from '../compile/types';
import type { HeaderMap } from './headers';
import { pathPrefixMatches } from './path';
import { regexFullMatch } from './regex';

export interface MatchableRequest {
  path: string;
  method: string;
  /** lower-case names */
  headers: HeaderMap;
  /** case-sensitive names, first value */
  query: Record<string, string>;
}

function valueMatches(m: CompiledValueMatch, value: string | undefined): boolean {
  if (value === undefined) return false;
  return m.type === 'RegularExpression' ? regexFullMatch(m.value, value) : m.value === value;
}

export function httpMatchAccepts(m: CompiledHTTPMatch, req: MatchableRequest): boolean {
  if (m.invalid) return false;
  const { type, value } = m.path;
  if (type === 'Exact') {
    if (req.path !== value) return false;
  } else if (type === 'PathPrefix') {
    if (!pathPrefixMatches(value, req.path)) return false;
  } else if (type === 'RegularExpression') {
    if (!regexFullMatch(value, req.path)) return false;
  } else {
    return false;
  }
  if (m.method && m.method !== req.method) return false;
  for (const h of m.headers ?? []) if (!valueMatches(h, req.headers[h.name])) return false;
  for (const q of m.queryParams ?? []) if (!valueMatches(q, req.query[q.name])) return false;
  return true;
}

/** gRPC: the path is "/<service>/<method>". */
export function parseGRPCPath(path: string): { service: string; method: string } | undefined {
  const m = /^\/([^/]+)\/([^/]+)$/.exec(path);
  return m ? { service: m[1], method: m[2] } : undefined;
}

export function grpcMatchAccepts(m: CompiledGRPCMatch, call: { service: string; method: string }, headers: HeaderMap): boolean {
  if (m.invalid) return false;
  const regex = m.type === 'RegularExpression';
  if (m.service !== undefined && !(regex ? regexFullMatch(m.service, call.service) : m.service === call.service)) return false;
  if (m.method !== undefined && !(regex ? regexFullMatch(m.method, call.method) : m.method === call.method)) return false;
  for (const h of m.headers ?? []) if (!valueMatches(h, headers[h.name])) return false;
  return true;
}
