// The candidates of a request on one listener: every entry that accepts it, in table order (the
// first wins). Each carries its rank, so that the decision between the winner and the runner-up
// can be named by the step of the precedence ladder where they part.
import { unreachable } from '../model/unreachable';
import type {
  CompiledGRPCEntry, CompiledHTTPEntry, CompiledListener, CompiledRoute, CompiledRule, CompiledSNIEntry,
  CompiledStreamEntry, CompiledTable,
} from '../compile/types';
import { hostnameMatches } from '../match/hostname';
import { grpcMatchAccepts, httpMatchAccepts, parseGRPCPath } from '../match/request';
import {
  compareGRPC, compareHTTP, compareSNI, compareStream, type Comparison, type GRPCRank, type HTTPRank, type SNIRank,
  type StreamRank,
} from '../precedence/ladder';
import { grpcFigures, grpcRank, httpFigures, httpRank, sniFigures, sniRank, streamRank } from '../precedence/ranks';
import type { NormalizedRequest } from './request';

export type EntryKind = 'http' | 'grpc' | 'tls' | 'tcp' | 'udp';

export interface Candidate {
  kind: EntryKind;
  listener: CompiledListener;
  rule: CompiledRule;
  route: CompiledRoute;
  matchIndex: number;
  hostname?: string;
  /** the path prefix the entry matched (for ReplacePrefixMatch) */
  prefix?: string;
  rank: HTTPRank | GRPCRank | SNIRank | StreamRank;
}

export function compareCandidates(a: Candidate, b: Candidate): Comparison {
  switch (a.kind) {
    case 'http':
      return compareHTTP(a.rank as HTTPRank, b.rank as HTTPRank);
    case 'grpc':
      return compareGRPC(a.rank as GRPCRank, b.rank as GRPCRank);
    case 'tls':
      return compareSNI(a.rank as SNIRank, b.rank as SNIRank);
    case 'tcp':
    case 'udp':
      return compareStream(a.rank as StreamRank, b.rank as StreamRank);
    default:
      return unreachable(a.kind, 'entry kind');
  }
}

export function figuresOf(c: Candidate): string {
  switch (c.kind) {
    case 'http':
      return httpFigures(c.rank as HTTPRank);
    case 'grpc':
      return grpcFigures(c.rank as GRPCRank);
    case 'tls':
      return sniFigures(c.rank as SNIRank);
    case 'tcp':
    case 'udp':
      return c.route.creationTimestamp ? `created ${c.route.creationTimestamp}` : 'no creation time';
    default:
      return unreachable(c.kind, 'entry kind');
  }
}

/** Every entry of the listener that accepts the request, in table order. */
export function candidatesOn(table: CompiledTable, listener: CompiledListener, kind: EntryKind, req: NormalizedRequest): Candidate[] {
  const out: Candidate[] = [];
  const ruleAt = (i: number) => table.rules[i];
  const routeOf = (rule: CompiledRule) => table.routes[rule.route];
  if (kind === 'http') {
    for (const e of (listener.httpRoutes ?? []) as CompiledHTTPEntry[]) {
      if (!hostnameMatches(e.hostname, req.host) || !httpMatchAccepts(e.match, req)) continue;
      const rule = ruleAt(e.rule);
      const route = routeOf(rule);
      out.push({
        kind, listener, rule, route, matchIndex: e.matchIndex, hostname: e.hostname,
        ...(e.match.path.type === 'PathPrefix' ? { prefix: e.match.path.value } : {}),
        rank: httpRank(e.hostname, e.match, route, rule.index, e.matchIndex),
      });
    }
  } else if (kind === 'grpc') {
    const call = parseGRPCPath(req.path);
    if (!call) return out;
    for (const e of (listener.grpcRoutes ?? []) as CompiledGRPCEntry[]) {
      if (!hostnameMatches(e.hostname, req.host) || !grpcMatchAccepts(e.match, call, req.headers)) continue;
      const rule = ruleAt(e.rule);
      const route = routeOf(rule);
      out.push({ kind, listener, rule, route, matchIndex: e.matchIndex, hostname: e.hostname, rank: grpcRank(e.hostname, e.match, route, rule.index, e.matchIndex) });
    }
  } else if (kind === 'tls') {
    for (const e of (listener.tlsRoutes ?? []) as CompiledSNIEntry[]) {
      if (!hostnameMatches(e.hostname, req.sni)) continue;
      const rule = ruleAt(e.rule);
      const route = routeOf(rule);
      out.push({ kind, listener, rule, route, matchIndex: 0, hostname: e.hostname, rank: sniRank(e.hostname, route, rule.index) });
    }
  } else {
    const list = (kind === 'tcp' ? listener.tcpRoutes : listener.udpRoutes) ?? [];
    for (const e of list as CompiledStreamEntry[]) {
      const rule = ruleAt(e.rule);
      const route = routeOf(rule);
      out.push({ kind, listener, rule, route, matchIndex: 0, rank: streamRank(route, rule.index) });
    }
  }
  return out;
}

/** One candidate per rule: a rule that matches through several matches or hostnames competes once, with its best. */
export function bestPerRule(cands: readonly Candidate[]): Candidate[] {
  const seen = new Set<CompiledRule>();
  return cands.filter((c) => (seen.has(c.rule) ? false : (seen.add(c.rule), true)));
}
