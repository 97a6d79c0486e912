// Which routes take the gRPC calls to a host on a listener. A gRPC call is an HTTP/2 POST to
// "/<service>/<method>": GRPCRoutes are written for it, and an HTTPRoute routes it as any request
// (Gateway API's advice for serving gRPC and other HTTP on one hostname is HTTPRoutes for both).
// Where routes of both kinds claim the host, Gateway API (GRPCRoute spec.hostnames; GEP-1016 "Cross
// Serving") accepts only one of an HTTPRoute and a GRPCRoute whose hostnames intersect on a listener:
// the oldest, then the first by "{namespace}/{name}". Every route claiming the host intersects every
// route of the other kind claiming it, so the kind of the oldest of them takes the host's calls; the
// GRPCRoutes take them when no HTTPRoute claims the host, as before any HTTPRoute is attached.
// One place for resolve, the proxyless translation and Envoy's, so that they cannot disagree.
import type { CompiledListener, CompiledRoute, CompiledTable } from '../compile/types';
import { ageAndName, byAgeThenName } from '../precedence/ladder';

export interface GrpcTaker {
  kind: 'GRPCRoute' | 'HTTPRoute';
  /** when routes of both kinds claim the host: the oldest of them (of `kind`), and the oldest of the other kind */
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
  const http = oldest(table, httpClaims);
  if (!http) return { kind: 'GRPCRoute' };
  const grpc = oldest(table, grpcClaims);
  if (!grpc) return { kind: 'HTTPRoute' };
  return byAgeThenName(ageAndName(grpc), ageAndName(http)) <= 0
    ? { kind: 'GRPCRoute', contested: { winner: grpc, loser: http } }
    : { kind: 'HTTPRoute', contested: { winner: http, loser: grpc } };
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
