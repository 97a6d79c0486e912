// Which routes take the gRPC calls to a host on a listener. A gRPC call is an HTTP/2 POST to
// "/<service>/<method>": GRPCRoutes are written for it, and an HTTPRoute routes it as any request
// (Gateway API's advice for serving gRPC and other HTTP on one hostname is HTTPRoutes for both).
// Where routes of both kinds claim the host, the GRPCRoutes take its gRPC calls and the HTTPRoutes
// its other requests: both routes are Accepted (Gateway API's cross-serving text would refuse the
// newer of the two, which the attachment step does not do yet), so each keeps the traffic written
// for it rather than a route shown Accepted losing all of its own. The HTTPRoutes take the gRPC
// calls of a host no GRPCRoute on the listener claims.
// One place for resolve, the proxyless translation and Envoy's, so that they cannot disagree.
import type { CompiledListener, CompiledRoute, CompiledTable } from '../compile/types';
import { ageAndName, byAgeThenName } from '../precedence/ladder';

export interface GrpcTaker {
  kind: 'GRPCRoute' | 'HTTPRoute';
  /** when routes of both kinds claim the host: the oldest GRPCRoute (which takes the calls) and the oldest HTTPRoute */
  contested?: { winner: CompiledRoute; loser: CompiledRoute };
}

type Entry = { hostname: string; rule: number };

/** The oldest route of `entries`, by the age-then-name order. */
function oldest(table: CompiledTable, entries: Iterable<Entry>): CompiledRoute | undefined {
  let best: CompiledRoute | undefined;
  let bestKey: ReturnType<typeof ageAndName> | undefined;
  let seen = -1;
  for (const e of entries) {
    const at = table.rules[e.rule].route;
    if (at === seen) continue;
    seen = at;
    const route = table.routes[at];
    const key = ageAndName(route);
    if (!bestKey || byAgeThenName(key, bestKey) < 0) [best, bestKey] = [route, key];
  }
  return best;
}

/** The kind of route that takes gRPC calls to a host, given the entries of each kind that claim it. */
export function grpcTakerOf(table: CompiledTable, grpcClaims: Iterable<Entry>, httpClaims: Iterable<Entry>): GrpcTaker {
  const grpc = oldest(table, grpcClaims);
  const http = oldest(table, httpClaims);
  if (!grpc) return { kind: http ? 'HTTPRoute' : 'GRPCRoute' };
  return http ? { kind: 'GRPCRoute', contested: { winner: grpc, loser: http } } : { kind: 'GRPCRoute' };
}

/**
 * The kind of route that takes gRPC calls on `listener` for the hosts whose claiming entries
 * `claims` keeps (one host: hostnameMatches(entry, host); Envoy's virtual host of domain d: the
 * entries that cover d).
 */
export function grpcCallsTakenBy(table: CompiledTable, listener: CompiledListener, claims: (entryHostname: string) => boolean): GrpcTaker {
  const keep = (list: readonly Entry[] | undefined) => (list ?? []).filter((e) => claims(e.hostname));
  return grpcTakerOf(table, keep(listener.grpcRoutes), keep(listener.httpRoutes));
}
