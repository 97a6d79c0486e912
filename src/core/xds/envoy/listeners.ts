// One Envoy listener per port (per transport: a Gateway may listen on TCP 53 and UDP 53), the port
// served as the reference proxy serves it: its kind is its first valid listener's (HTTP; HTTPS and
// TLS together, told apart by SNI; TCP; UDP), and a listener of another kind on that port is not
// served. HTTP ports route by Host through one route configuration. On a TLS-family port the
// tls_inspector reads the server name and a filter chain per target takes it: the HTTPS listener
// it selects (its certificate, client validation, and a route configuration of its own), or the
// TLSRoute entry a TLS listener gives it (passed through, or terminated, by tcp_proxy).
import type { CompiledGatewayRef, CompiledListener, CompiledSNIEntry } from '../../compile';
import type { Unsupported } from '../types';
import { enabledFilters } from './auth-session';
import type { ClusterSet } from './clusters';
import { accepts, listenerForDomain, sortDomains } from './hosts';
import { tcpProxy, udpProxy } from './l4';
import { envoyListenerName, listenerId, routeConfigName } from './names';
import { routeConfiguration, type RouteCtx } from './routes';
import { downstreamTls } from './tls';
import { ADS, FILTER, T, type Msg } from './types';

type Kind = 'http' | 'tls' | 'tcp' | 'udp';
const KIND_OF: Record<string, Kind> = { HTTP: 'http', HTTPS: 'tls', TLS: 'tls', TCP: 'tcp', UDP: 'udp' };

/** Where Envoy binds a port: every address, as the reference proxy does. */
const ANY_ADDRESS = '0.0.0.0';

/** The connection manager of a route configuration, with the auth and session filters its routes enable. */
function hcm(c: RouteCtx, statPrefix: string, routeConfig: Msg): Msg {
  const extra = enabledFilters(c.auth, routeConfig);
  return {
    name: FILTER.hcm,
    typed_config: {
      '@type': T.hcm,
      stat_prefix: statPrefix,
      rds: { config_source: ADS, route_config_name: routeConfig.name },
      http_filters: [
        ...extra.first,
        { name: FILTER.cors, typed_config: { '@type': T.cors } },
        { name: FILTER.fault, typed_config: { '@type': T.fault } },
        ...extra.beforeRouter,
        { name: FILTER.router, typed_config: { '@type': T.router } },
      ],
      // the reference passes any request's Upgrade: websocket on (appProtocol kubernetes.io/ws, wss)
      upgrade_configs: [{ upgrade_type: 'websocket' }],
      // hosts are matched without their port, as Gateway API hostnames are
      strip_any_host_port: true,
    },
  };
}

const address = (port: number, udp = false): Msg => ({ socket_address: { ...(udp ? { protocol: 'UDP' } : {}), address: ANY_ADDRESS, port_value: port } });

export interface PortOutput {
  listeners: Msg[];
  routes: Msg[];
}

export function envoyListeners(c: RouteCtx & { clusters: ClusterSet; unsupported: Unsupported[] }, gw: CompiledGatewayRef): PortOutput {
  const out: PortOutput = { listeners: [], routes: [] };
  const ports = new Map<string, { port: number; kind: Kind; listeners: CompiledListener[] }>();
  for (const l of c.table.listeners) {
    if (!l.valid) continue;
    const kind = KIND_OF[l.protocol];
    if (!kind) continue;
    const key = kind === 'udp' ? `${l.port}/udp` : String(l.port);
    const p = ports.get(key) ?? ports.set(key, { port: l.port, kind, listeners: [] }).get(key)!;
    if (p.kind === kind) p.listeners.push(l);
    else c.unsupported.push({ where: `listener ${listenerId(l)}`, feature: `${l.protocol} on port ${l.port}`, effect: `the port serves ${p.kind.toUpperCase()} (its first listener's kind): not served, as the reference proxy does not serve it` });
  }
  for (const { port, kind, listeners } of [...ports.values()].sort((a, b) => a.port - b.port || (a.kind < b.kind ? -1 : 1))) {
    const name = envoyListenerName(gw, port, kind === 'udp');
    if (kind === 'http') {
      const rc = routeConfigName(gw, port);
      const config = routeConfiguration(c, rc, listeners);
      out.routes.push(config);
      out.listeners.push({ name, address: address(port), filter_chains: [{ name: rc, filters: [hcm(c, rc, config)] }] });
    } else if (kind === 'tls') {
      out.listeners.push({
        name,
        address: address(port),
        listener_filters: [{ name: FILTER.tlsInspector, typed_config: { '@type': T.tlsInspector } }],
        filter_chains: tlsChains(c, gw, port, listeners, out),
      });
    } else if (kind === 'tcp') {
      const first = listeners[0];
      const entry = first.tcpRoutes?.[0];
      out.listeners.push({ name, address: address(port), filter_chains: [{ name, filters: [tcpProxy(c, name, entry ? c.table.rules[entry.rule] : null)] }] });
    } else {
      const first = listeners[0];
      const entry = first.udpRoutes?.[0];
      out.listeners.push({ name, address: address(port, true), udp_listener_config: {}, listener_filters: [udpProxy(c, name, entry ? c.table.rules[entry.rule] : null)] });
    }
  }
  return out;
}

/**
 * Per server name domain (every listener's and TLSRoute entry's hostname, and the catch-all of
 * connections without a matching name), where its connections go; domains going to the same place
 * share a filter chain. A domain no listener takes gets none: Envoy closes the connection.
 */
function tlsChains(c: RouteCtx, gw: CompiledGatewayRef, port: number, listeners: CompiledListener[], out: PortOutput): Msg[] {
  const domains = new Set<string>(['']);
  for (const l of listeners) {
    domains.add((l.hostname ?? '').toLowerCase());
    if (l.protocol === 'TLS') for (const e of l.tlsRoutes ?? []) domains.add(e.hostname.toLowerCase());
  }
  const https = listeners.filter((l) => l.protocol === 'HTTPS');
  const groups = new Map<string, { domains: string[]; make: (name: string) => Msg | null }>();
  const group = (key: string, d: string, make: (name: string) => Msg | null) => {
    const g = groups.get(key) ?? groups.set(key, { domains: [], make }).get(key)!;
    g.domains.push(d);
  };
  const listenerName = envoyListenerName(gw, port);
  for (const d of sortDomains(domains)) {
    const selected = listenerForDomain(listeners, d);
    if (!selected) continue;
    const id = listenerId(selected);
    if (selected.protocol === 'HTTPS') {
      group(`https/${id}`, d, (name) => {
        if (!selected.tls?.certificateRefs.length) {
          c.unsupported.push({ where: `listener ${id}`, feature: 'HTTPS without a certificate', effect: 'not served' });
          return null;
        }
        const rc = routeConfigName(gw, port, selected);
        const config = routeConfiguration(c, rc, https, selected);
        out.routes.push(config);
        return { name, transport_socket: { name: FILTER.tls, typed_config: downstreamTls(selected.tls, ['h2', 'http/1.1'], true) }, filters: [hcm(c, rc, config)] };
      });
      continue;
    }
    const entry = (selected.tlsRoutes ?? []).find((e: CompiledSNIEntry) => accepts(e.hostname, d));
    const passthrough = selected.tls?.mode === 'Passthrough';
    const key = `tls/${id}/${entry ? `rule/${entry.rule}` : 'no-route'}`;
    group(key, d, (name) => {
      const rule = entry ? c.table.rules[entry.rule] : null;
      const chain: Msg = { name, filters: [tcpProxy(c, name, rule, { plain: passthrough })] };
      if (!passthrough && rule && selected.tls?.certificateRefs.length) chain.transport_socket = { name: FILTER.tls, typed_config: downstreamTls(selected.tls, undefined, false) };
      return chain;
    });
  }
  const chains: Msg[] = [];
  for (const [key, g] of groups) {
    const chain = g.make(`${listenerName}/${key}`);
    if (!chain) continue;
    const names = g.domains.filter((d) => d !== '');
    // a chain without server_names takes only the names no other chain names, so the names this
    // place gets are listed even where it also takes the rest (a more specific name elsewhere
    // would otherwise win): then the rest has a chain of its own, the same but for its match
    if (names.length) chains.push({ ...chain, filter_chain_match: { server_names: names, transport_protocol: 'tls' } });
    if (g.domains.includes('')) chains.push({ ...chain, name: `${chain.name}/any-name`, filter_chain_match: { transport_protocol: 'tls' } });
  }
  return chains;
}
