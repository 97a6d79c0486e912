// Ranks of compiled entries, and their figures in words for explanations ("path 4, header 1").
import { lastShared } from '../model/last-shared';
import type { CompiledGRPCMatch, CompiledHTTPMatch, CompiledRoute } from '../compile/types';
import { isWildcard } from '../match/hostname';
import { unreachable } from '../model/unreachable';
import { creationMillis, namespacedName, type GRPCRank, type HTTPRank, type LadderStep, type SNIRank, type StreamRank } from './ladder';

export interface RouteMeta {
  namespace: string;
  name: string;
  creationTimestamp?: string;
}

// a route's entries are ranked one after another: their ranks share one key string
const sameKey = lastShared<string>();

function tie(route: RouteMeta, ruleIndex: number, matchIndex: number) {
  return {
    created: creationMillis(route.creationTimestamp),
    routeKey: sameKey(namespacedName(route.namespace, route.name)),
    ruleIndex,
    matchIndex,
  };
}

export function httpRank(hostname: string, match: CompiledHTTPMatch, route: RouteMeta | CompiledRoute, ruleIndex: number, matchIndex: number): HTTPRank {
  return {
    hostname,
    pathType: match.path.type,
    pathValue: match.path.value,
    method: !!match.method,
    headers: match.headers?.length ?? 0,
    query: match.queryParams?.length ?? 0,
    ...tie(route, ruleIndex, matchIndex),
  };
}

export function grpcRank(hostname: string, match: CompiledGRPCMatch, route: RouteMeta | CompiledRoute, ruleIndex: number, matchIndex: number): GRPCRank {
  return {
    hostname,
    service: match.service ?? '',
    method: match.method ?? '',
    headers: match.headers?.length ?? 0,
    ...tie(route, ruleIndex, matchIndex),
  };
}

export function sniRank(hostname: string, route: RouteMeta | CompiledRoute, ruleIndex: number): SNIRank {
  return { hostname, ...tie(route, ruleIndex, 0) };
}

export function streamRank(route: RouteMeta | CompiledRoute, ruleIndex: number): StreamRank {
  return tie(route, ruleIndex, 0);
}

const plural = (n: number, word: string) => `${word}${n === 1 ? '' : 's'} ${n}`;

function hostFigure(hostname: string): string | undefined {
  if (hostname === '') return undefined;
  return isWildcard(hostname) ? `wildcard host ${hostname.length}` : `host ${hostname.length}`;
}

/** The figures of an HTTP rank, e.g. "host 11, path 4, header 1" (zero figures left out, path always). */
export function httpFigures(r: HTTPRank): string {
  const parts: string[] = [];
  const h = hostFigure(r.hostname);
  if (h) parts.push(h);
  const kind = r.pathType === 'Exact' ? 'exact path' : r.pathType === 'RegularExpression' ? 'regex path' : 'path';
  parts.push(`${kind} ${r.pathValue.length}`);
  if (r.method) parts.push('method 1');
  if (r.headers) parts.push(r.headers === 1 ? 'header 1' : plural(r.headers, 'header'));
  if (r.query) parts.push(`query ${r.query}`);
  return parts.join(', ');
}

export function grpcFigures(r: GRPCRank): string {
  const parts: string[] = [];
  const h = hostFigure(r.hostname);
  if (h) parts.push(h);
  parts.push(`service ${r.service.length}`);
  parts.push(`method ${r.method.length}`);
  if (r.headers) parts.push(r.headers === 1 ? 'header 1' : plural(r.headers, 'header'));
  return parts.join(', ');
}

export function sniFigures(r: SNIRank): string {
  return hostFigure(r.hostname) ?? 'any host';
}

/** The fields of every rank kind, each present in some of them (a GRPC method is a name, an HTTP one a flag). */
interface RankFigures {
  hostname?: string;
  pathType?: HTTPRank['pathType'];
  pathValue?: string;
  method?: boolean | string;
  service?: string;
  headers?: number;
  query?: number;
}

/** The one figure a step compares, for "won at <step>: <a> against <b>". */
export function stepFigure(step: LadderStep, r: HTTPRank | GRPCRank | SNIRank | StreamRank): string {
  // every rank kind has the tie-break fields; the others are read where the rank has them
  const f: RankFigures & Partial<StreamRank> = r;
  switch (step) {
    case 'hostname':
      return f.hostname ? (hostFigure(f.hostname) as string) + ` (${f.hostname})` : 'any host';
    case 'exactPath':
      return f.pathType === 'Exact' ? 'exact path' : f.pathType === 'RegularExpression' ? 'regular-expression path' : 'path prefix';
    case 'prefixLength':
      return `path ${f.pathValue?.length ?? 0} (${f.pathValue})`;
    case 'method':
      return typeof f.method === 'string' ? `method ${f.method.length}` : f.method ? 'a method match' : 'no method match';
    case 'service':
      return `service ${f.service?.length ?? 0}`;
    case 'headers':
      return f.headers === 1 ? 'header 1' : `headers ${f.headers ?? 0}`;
    case 'query':
      return `query ${f.query ?? 0}`;
    case 'creationTimestamp':
      return Number.isFinite(r.created) ? `created ${new Date(r.created).toISOString()}` : 'no creation time';
    case 'name':
      return r.routeKey;
    case 'ruleOrder':
      return `rule ${r.ruleIndex}, match ${r.matchIndex}`;
    case 'onlyCandidate':
    case 'listener':
      return ''; // not a comparison of two ranks
    default:
      return unreachable(step, 'ladder step');
  }
}
