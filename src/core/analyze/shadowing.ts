// Shadowed rules (HTTPRoute and GRPCRoute): a rule none of whose matches can ever win, because for every hostname it serves,
// on every listener it is attached to, an entry of another route comes first in the precedence
// order (precedence/order.ts, the order the proxies try entries in) and accepts every request the
// match accepts. Only what is certain counts: a regular expression covers only the same expression.
import type { CompiledGRPCMatch, CompiledHTTPMatch, CompiledValueMatch } from '../compile/types';
import { grpcEntryMatch, httpEntryMatch, type GRPCPlanEntry, type HTTPPlanEntry, type OrderedListener } from '../precedence/order';
import { covers as hostnameCovers } from '../match/hostname';
import { pathPrefixMatches } from '../match/path';
import { grpcFigures, httpFigures } from '../precedence/ranks';

/** Per rule ("kind/namespace/name#rule"): how many entries it has, and the first winner of each shadowed one. */
export interface ShadowTally {
  entries: number;
  shadowed: number;
  /** the other route's rule that wins, and why it ranks first */
  by?: { kind: string; namespace: string; name: string; ruleIndex: number; figures: string };
}

/** Does every request that `m` accepts also satisfy `e`? */
export function matchCovers(e: CompiledHTTPMatch, m: CompiledHTTPMatch): boolean {
  if (e.invalid || m.invalid) return false;
  const ep = e.path;
  const mp = m.path;
  if (ep.type === 'PathPrefix') {
    if (mp.type === 'RegularExpression' || !pathPrefixMatches(ep.value, mp.value)) return false;
  } else if (ep.type === 'Exact') {
    if (mp.type !== 'Exact' || mp.value !== ep.value) return false;
  } else if (mp.type !== 'RegularExpression' || mp.value !== ep.value) return false;
  if (e.method && e.method !== m.method) return false;
  return valuesCovered(e.headers, m.headers) && valuesCovered(e.queryParams, m.queryParams);
}

/** The same for gRPC: an absent service or method is any; a regular expression covers only itself. */
export function grpcMatchCovers(e: CompiledGRPCMatch, m: CompiledGRPCMatch): boolean {
  if (e.invalid || m.invalid) return false;
  const eRegex = e.type === 'RegularExpression';
  const mRegex = m.type === 'RegularExpression';
  for (const part of ['service', 'method'] as const) {
    if (e[part] === undefined) continue;
    if (m[part] === undefined || e[part] !== m[part] || eRegex !== mRegex) return false;
  }
  return valuesCovered(e.headers, m.headers);
}

function valuesCovered(need: readonly CompiledValueMatch[] | undefined, have: readonly CompiledValueMatch[] | undefined): boolean {
  return (need ?? []).every((n) => (have ?? []).some((h) => h.name === n.name && h.type === n.type && h.value === n.value));
}

type Entry = HTTPPlanEntry | GRPCPlanEntry;

/** Adds one listener's HTTP and gRPC entries to the tallies. */
export function tallyShadowing(listener: OrderedListener, tallies: Map<string, ShadowTally>): void {
  // each entry's match made once for the pairs it is compared in (plan entries do not keep it)
  const http = new Map((listener.http ?? []).map((e) => [e, httpEntryMatch(e)]));
  const grpc = new Map((listener.grpc ?? []).map((e) => [e, grpcEntryMatch(e)]));
  tally(listener.http ?? [], (e, m) => matchCovers(http.get(e)!, http.get(m)!), (e) => httpFigures(e.rank), tallies);
  tally(listener.grpc ?? [], (e, m) => grpcMatchCovers(grpc.get(e)!, grpc.get(m)!), (e) => grpcFigures(e.rank), tallies);
}

function tally<E extends Entry>(entries: readonly E[], covers: (e: E, m: E) => boolean, figures: (e: E) => string, tallies: Map<string, ShadowTally>): void {
  // entries only compete with entries whose hostname covers theirs: group by hostname, keep the order
  const byHost = new Map<string, E[]>();
  for (const entry of entries) (byHost.get(entry.hostname) ?? byHost.set(entry.hostname, []).get(entry.hostname)!).push(entry);
  const hosts = [...byHost.keys()];
  const position = new Map<E, number>(entries.map((entry, i) => [entry, i]));
  entries.forEach((m, i) => {
    const id = `${m.plan.rk}#${m.ri}`;
    const t = tallies.get(id) ?? tallies.set(id, { entries: 0, shadowed: 0 }).get(id)!;
    t.entries++;
    const winner = firstCovering(m, i, hosts, byHost, position, covers);
    if (!winner) return;
    t.shadowed++;
    const { kind, namespace, name } = winner.plan.meta;
    t.by ??= { kind, namespace, name, ruleIndex: winner.ri, figures: figures(winner) };
  });
}

function firstCovering<E extends Entry>(
  m: E, index: number, hosts: string[], byHost: Map<string, E[]>, position: Map<E, number>, covers: (e: E, m: E) => boolean,
): E | undefined {
  let best: E | undefined;
  let bestAt = index;
  for (const h of hosts) {
    if (h !== m.hostname && !(h === '' || (m.hostname !== '' && hostnameCovers(h, m.hostname)))) continue;
    for (const e of byHost.get(h)!) {
      const at = position.get(e)!;
      if (at >= bestAt) break;
      if (e.plan.rk !== m.plan.rk && covers(e, m)) {
        best = e;
        bestAt = at;
        break;
      }
    }
  }
  return best;
}
