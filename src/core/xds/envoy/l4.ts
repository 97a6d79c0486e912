// Streams as Envoy proxies them: a TCP connection (TCPRoute, TLS passthrough, terminated TLSRoute)
// by tcp_proxy over the rule's weighted clusters, a UDP session by udp_proxy. An unusable share, a
// rule without usable backends or no route at all goes to the unusable cluster, which has no
// endpoints, so the connection is closed (the reference refuses it) or the datagrams dropped.
import type { CompiledRule, CompiledTable } from '../../compile';
import type { Unsupported } from '../types';
import type { ClusterSet, ClusterUse } from './clusters';
import { FILTER, T, type Msg } from './types';

export interface StreamCtx {
  table: CompiledTable;
  clusters: ClusterSet;
  unsupported: Unsupported[];
}

const whereOf = (c: StreamCtx, rule: CompiledRule) => {
  const r = c.table.routes[rule.route];
  return `${r.kind} ${r.namespace}/${r.name} rule ${rule.index}`;
};

/** The weighted shares of a stream rule (null rule: refused). */
function shares(c: StreamCtx, rule: CompiledRule | null, use: ClusterUse): { name: string; weight: number }[] {
  if (!rule || rule.invalid) return [{ name: c.clusters.unusable(), weight: 1 }];
  const out: { name: string; weight: number }[] = [];
  let unusable = 0;
  for (const b of rule.backends) {
    if (b.weight <= 0) continue;
    if (!b.valid) unusable += b.weight;
    else {
      const name = c.clusters.of(b, use);
      const same = out.find((s) => s.name === name);
      if (same) same.weight += b.weight;
      else out.push({ name, weight: b.weight });
    }
  }
  if (unusable > 0 || out.length === 0) out.push({ name: c.clusters.unusable(), weight: unusable || 1 });
  return out;
}

export function tcpProxy(c: StreamCtx, statPrefix: string, rule: CompiledRule | null, use: ClusterUse = {}): Msg {
  const s = shares(c, rule, use);
  const proxy: Msg = { '@type': T.tcpProxy, stat_prefix: statPrefix };
  if (s.length === 1) proxy.cluster = s[0].name;
  else proxy.weighted_clusters = { clusters: s.map((x) => ({ name: x.name, weight: x.weight })) };
  return { name: FILTER.tcpProxy, typed_config: proxy };
}

/**
 * udp_proxy routes a session to one cluster: a rule with several shares sends every session to the
 * heaviest (the first of equals), and says so, where the reference splits sessions by weight.
 */
export function udpProxy(c: StreamCtx, statPrefix: string, rule: CompiledRule | null): Msg {
  const s = shares(c, rule, {});
  let chosen = s[0];
  for (const x of s) if (x.weight > chosen.weight) chosen = x;
  if (s.length > 1 && rule) {
    c.unsupported.push({ where: whereOf(c, rule), feature: 'weighted UDPRoute backends', effect: `Envoy's udp_proxy takes one cluster: every session goes to ${chosen.name}` });
  }
  return {
    name: FILTER.udpProxy,
    typed_config: {
      '@type': T.udpProxy,
      stat_prefix: statPrefix,
      matcher: {
        on_no_match: {
          action: { name: 'route', typed_config: { '@type': T.udpRoute, cluster: chosen.name } },
        },
      },
    },
  };
}
