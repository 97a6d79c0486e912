// The stream servers: TLS ports routed by SNI with ssl_preread (passthrough to a rule's backends,
// termination in an internal server of the listener's certificates, or the HTTPS listeners' http
// server on the same port), TCP and UDP ports to their first route's rule.
import type { CompiledListener } from '../compile/types';
import { hostnameMatches } from '../match/hostname';
import { selectListener } from '../resolve/listeners';
import { listenerName, routeName, type GatewayCtx, type RenderCtx } from './context';
import { q } from './names';
import { verifiedName } from './locations';
import type { StreamUpstreamSpec } from './upstreams';

/** A rule's usable backends as one weighted stream upstream; undefined when none can take a connection. */
function ruleUpstream(ctx: RenderCtx, g: GatewayCtx, ri: number): string | undefined {
  const rule = g.table.rules[ri];
  if (rule.invalid) return undefined;
  const members = rule.backends.filter((b) => b.valid && b.weight > 0 && b.endpoints.length > 0);
  if (members.length === 0) return undefined;
  if (rule.backends.some((b) => !b.valid && b.weight > 0)) ctx.gap(g, routeName(g, ri), 'the share of an unusable backend is carried by the usable ones (nginx\'s stream upstreams cannot refuse a share)');
  const name = `s_g${g.index}_r${ri}`;
  const spec: StreamUpstreamSpec = { name, members: members.map((b) => ({ backend: { namespace: b.namespace, name: b.name, ...(b.port !== undefined ? { port: b.port } : {}) }, weight: b.weight })) };
  ctx.streamUpstreams.set(name, spec);
  return name;
}

/** Where nothing listens: the connection is closed, as a refused one. */
const refuse = (ctx: RenderCtx) => `unix:${ctx.run('refused')}`;

/** Backend TLS of a terminated TLSRoute (the first usable backend's policy). */
function backendTLS(ctx: RenderCtx, g: GatewayCtx, ri: number): string[] {
  const b = g.table.rules[ri].backends.find((x) => x.valid && x.tls);
  if (!b?.tls) return [];
  const ca = ctx.material.backendCA(b.tls);
  const client = g.table.backendClientCertificate && ctx.material.keyPair(g.table.backendClientCertificate);
  return [
    '    proxy_ssl on;', '    proxy_ssl_server_name on;', `    proxy_ssl_name ${q(verifiedName(ctx, g, `${routeName(g, ri)} backend ${b.namespace}/${b.name}`, b.tls))};`, '    proxy_ssl_verify on;', '    proxy_ssl_verify_depth 5;',
    ...(ca ? [`    proxy_ssl_trusted_certificate ${ca};`] : []),
    ...(client ? [`    proxy_ssl_certificate ${client};`, `    proxy_ssl_certificate_key ${client};`] : []),
  ];
}

export interface TLSFront {
  stream: string[];
  /** the socket the HTTPS listeners' http server listens on, when the port has any */
  httpsSocket?: string;
}

/** A port with TLS listeners (and perhaps HTTPS ones): routed by SNI before any handshake. */
export function tlsFront(ctx: RenderCtx, g: GatewayCtx, port: number, listeners: readonly CompiledListener[]): TLSFront {
  const httpsSocket = listeners.some((l) => l.protocol === 'HTTPS') ? ctx.run(`g${g.index}-${port}-https`) : undefined;
  const servers: string[] = [];
  const made = new Set<string>();
  const targetFor = (name: string): string => {
    const l = selectListener(listeners, name);
    if (!l) return refuse(ctx);
    if (l.protocol === 'HTTPS') return `unix:${httpsSocket}`;
    const entry = (l.tlsRoutes ?? []).find((e) => hostnameMatches(e.hostname, name));
    if (!entry) return refuse(ctx);
    const upstream = ruleUpstream(ctx, g, entry.rule);
    if (!upstream) return refuse(ctx);
    if ((l.tls?.mode ?? 'Terminate') === 'Passthrough') return upstream;
    // terminated here: an internal server with the listener's certificates
    const li = listeners.indexOf(l);
    const sock = ctx.run(`g${g.index}-${port}-l${li}-r${entry.rule}`);
    if (!made.has(sock)) {
      made.add(sock);
      const pairs = (l.tls?.certificateRefs ?? []).map((r) => ctx.material.keyPair(r)).filter((p): p is string => !!p);
      if (pairs.length === 0) {
        ctx.gap(g, listenerName(l), 'no usable certificate: TLS is not terminated');
        return refuse(ctx);
      }
      servers.push([`# ${listenerName(l)} of ${g.gateway} terminates TLS for ${routeName(g, entry.rule)}`, 'server {', `    listen unix:${sock} ssl;`,
        ...pairs.flatMap((p) => [`    ssl_certificate ${p};`, `    ssl_certificate_key ${p};`]), ...backendTLS(ctx, g, entry.rule), `    proxy_pass ${upstream};`, '}'].join('\n'));
    }
    return `unix:${sock}`;
  };
  const names = new Set<string>();
  for (const l of listeners) if (l.hostname) names.add(l.hostname.toLowerCase());
  for (const l of listeners) for (const e of l.tlsRoutes ?? []) if (e.hostname) names.add(e.hostname.toLowerCase());
  const v = `$sy_sni_g${g.index}_${port}`;
  const map = [`map $ssl_preread_server_name ${v} {`, '    hostnames;'];
  // a wildcard stands for the names under it that no more specific pattern takes: one such name decides for all
  for (const n of [...names].sort()) map.push(`    ${q(n)} ${targetFor(n.startsWith('*.') ? `switchyard-any-name${n.slice(1)}` : n)};`);
  map.push(`    default ${targetFor('')};`, '}');
  const front = [`# port ${port} of ${g.gateway}: ${listeners.map(listenerName).join(', ')}, by SNI`, ...map, 'server {', `    listen ${ctx.listen(port)};`, '    ssl_preread on;', `    proxy_pass ${v};`, '}'];
  return { stream: [front.join('\n'), ...servers], ...(httpsSocket ? { httpsSocket } : {}) };
}

/** A TCP or UDP port: the first route of the first listener carries the traffic. */
export function l4Port(ctx: RenderCtx, g: GatewayCtx, port: number, l: CompiledListener): string {
  const udp = l.protocol === 'UDP';
  const entry = (udp ? l.udpRoutes : l.tcpRoutes)?.[0];
  const upstream = entry ? ruleUpstream(ctx, g, entry.rule) : undefined;
  const lines = [`# ${listenerName(l)} of ${g.gateway}${entry ? `: ${routeName(g, entry.rule)}` : ''}`, 'server {', `    listen ${ctx.listen(port)}${udp ? ' udp' : ''};`];
  if (!upstream) {
    if (udp) return ''; // datagrams nobody takes are dropped: nothing listens
    lines.push(`    proxy_pass ${refuse(ctx)};`);
  } else {
    lines.push(`    proxy_pass ${upstream};`);
    if (udp) lines.push('    proxy_responses 1;', '    proxy_timeout 10s;');
  }
  lines.push('}');
  return lines.join('\n');
}
