// Routes that name the Gateway but are not attached: would they have taken the request, and would
// they have ranked above the winner? They never route; resolve only tells why they do not.
import type { CompiledListener, CompiledTable, CompiledUnattachedRoute } from '../compile/types';
import { effectiveHostnames, hostnameMatches, hostnameSpecificity } from '../match/hostname';
import { grpcMatchAccepts, httpMatchAccepts, parseGRPCPath } from '../match/request';
import { compareGRPC, compareHTTP, compareSNI, type GRPCRank, type HTTPRank, type SNIRank } from '../precedence/ladder';
import { grpcFigures, grpcRank, httpFigures, httpRank, sniFigures, sniRank } from '../precedence/ranks';
import type { NormalizedRequest } from './request';
import type { Candidate, EntryKind } from './routes';
import type { ResolveUnattached } from './types';
import { routeRef, routeWords, type Visibility } from './words';

const KIND_OF: Partial<Record<EntryKind, CompiledUnattachedRoute['kind']>> = {
  http: 'HTTPRoute', grpc: 'GRPCRoute', tls: 'TLSRoute', tcp: 'TCPRoute', udp: 'UDPRoute',
};

/** The most specific of the route's hostnames that accepts the name ("" when it has none). */
function matchingHostname(hostnames: readonly string[], name: string): string | undefined {
  if (hostnames.length === 0) return '';
  let best: string | undefined;
  for (const h of hostnames) {
    if (!hostnameMatches(h, name)) continue;
    if (best === undefined) best = h;
    else {
      const [be, bl] = hostnameSpecificity(best);
      const [e, l] = hostnameSpecificity(h);
      if (e > be || (e === be && l > bl)) best = h;
    }
  }
  return best;
}

/** Could the route's parentRef have meant a listener on this port? */
function aimsAtPort(u: CompiledUnattachedRoute, table: CompiledTable, port: number | undefined): boolean {
  if (port === undefined) return true;
  if (u.port !== undefined && u.port !== port) return false;
  if (u.sectionName !== undefined) {
    const l = table.listeners.find((x: CompiledListener) => x.name === u.sectionName);
    if (l && l.port !== port) return false;
  }
  return true;
}

export function unattachedFor(
  list: readonly CompiledUnattachedRoute[], table: CompiledTable, listener: CompiledListener, kind: EntryKind,
  req: NormalizedRequest, port: number | undefined, winner: Candidate | undefined, v: Visibility,
): { items: ResolveUnattached[]; words: string[] } {
  const items: ResolveUnattached[] = [];
  const words: string[] = [];
  const wanted = KIND_OF[kind];
  for (const u of list) {
    if (u.kind !== wanted || !aimsAtPort(u, table, port)) continue;
    const name = kind === 'tls' ? req.sni : req.host;
    // ranked as if attached to the listener that took the request: its hostnames narrowed to the listener's
    const onListener = effectiveHostnames(listener.hostname, u.hostnames);
    const hostname = kind === 'tcp' || kind === 'udp'
      ? ''
      : matchingHostname(onListener.length ? onListener : u.hostnames, name) ?? matchingHostname(u.hostnames, name);
    if (hostname === undefined) continue;
    const meta = { namespace: u.namespace, name: u.name, creationTimestamp: u.creationTimestamp };
    let best: { ruleIndex: number; better: boolean; figures: string } | undefined;
    if (kind === 'http') {
      for (const m of u.httpMatches ?? []) {
        if (!httpMatchAccepts(m.match, req)) continue;
        const rank = httpRank(hostname, m.match, meta, m.ruleIndex, m.matchIndex);
        const better = !winner || compareHTTP(rank, winner.rank as HTTPRank).order < 0;
        if (!best || (better && !best.better)) best = { ruleIndex: m.ruleIndex, better, figures: httpFigures(rank) };
      }
    } else if (kind === 'grpc') {
      const call = parseGRPCPath(req.path);
      for (const m of call ? u.grpcMatches ?? [] : []) {
        if (!grpcMatchAccepts(m.match, call!, req.headers)) continue;
        const rank = grpcRank(hostname, m.match, meta, m.ruleIndex, m.matchIndex);
        const better = !winner || compareGRPC(rank, winner.rank as GRPCRank).order < 0;
        if (!best || (better && !best.better)) best = { ruleIndex: m.ruleIndex, better, figures: grpcFigures(rank) };
      }
    } else if (kind === 'tls') {
      const rank = sniRank(hostname, meta, 0);
      best = { ruleIndex: 0, better: !winner || compareSNI(rank, winner.rank as SNIRank).order < 0, figures: sniFigures(rank) };
    } else {
      best = { ruleIndex: 0, better: !winner, figures: '' };
    }
    if (!best) continue;
    const visible = v.canRead(u.namespace);
    items.push({
      route: routeRef(u, v), ruleIndex: best.ruleIndex, reason: u.reason,
      message: visible ? u.message : 'not attached', better: best.better,
    });
    const how = best.better
      ? (winner ? `would match better (${best.figures})` : `would match (${best.figures || 'any connection'})`)
      : `also matches (${best.figures})`;
    const who = routeWords(u, v);
    words.push(`${who.charAt(0).toUpperCase()}${who.slice(1)} ${how} but is not attached to this Gateway: ${u.reason}${visible ? ` - ${u.message}` : ''}.`);
  }
  return { items, words };
}
