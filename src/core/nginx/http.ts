// The http servers of a Gateway's HTTP and HTTPS ports. Every request goes to the njs dispatch
// (`location /`), which decides as resolve does and sends the request on to the named location of
// its rule and backend (locations.ts), all rendered in the port's server blocks. A cleartext port
// whose routes need HTTP/2 (gRPC, h2c backends) is fronted by a stream server that tells the two
// prefaces apart (nginx 1.22 takes HTTP/1.1 and HTTP/2 with prior knowledge on separate sockets).
import type { CompiledListener } from '../compile/types';
import { hasExternalAuth, listenerName, type GatewayCtx, type RenderCtx } from './context';
import { mirrorsOfRule, ruleLocation } from './locations';
import { q } from './names';
import { njsListener, type NjsTable } from './njs-table';

export interface PortOut {
  http: string[];
  stream: string[];
  /** the port's stream front runs the njs preread */
  streamJs?: boolean;
}

const portKey = (g: GatewayCtx, port: number) => `g${g.index}:${port}`;

/** The rules a port's listeners can reach, and their locations and mirrors. */
function ruleBlocks(ctx: RenderCtx, g: GatewayCtx, listeners: readonly CompiledListener[]): string[] {
  const rules = new Set<number>();
  for (const l of listeners) for (const e of [...(l.httpRoutes ?? []), ...(l.grpcRoutes ?? [])]) rules.add(e.rule);
  const out: string[] = [];
  const mirrorTexts = new Set<string>();
  for (const ri of [...rules].sort((a, b) => a - b)) {
    const rule = g.table.rules[ri];
    if (rule.invalid) continue;
    const mirrors = mirrorsOfRule(ctx, g, ri);
    for (const m of [...mirrors.rule, ...mirrors.backends.flat()]) mirrorTexts.add(m.text);
    rule.backends.forEach((b, bi) => {
      if (b.valid && b.weight > 0) out.push(ruleLocation(ctx, g, ri, bi, [...mirrors.rule, ...mirrors.backends[bi]]));
    });
  }
  const auth = [...rules].some((ri) => hasExternalAuth(g.table.rules[ri])) ? [authLocation(ctx)] : [];
  return [...auth, ...mirrorTexts, ...out];
}

/**
 * Where the dispatch asks about a rule's ExternalAuth filter: the agent's bridge (a unix socket it
 * serves), which asks the authorization server as the reference proxy does (HTTP, or Envoy ext_authz
 * gRPC, which njs cannot speak) and answers with the decision. The request travels as JSON in the
 * subrequest's body; the server's timeout is the bridge's to keep, nginx's read timeout only a bound.
 */
function authLocation(ctx: RenderCtx): string {
  return [
    '    location = /_switchyard/auth {',
    '        internal;',
    '        proxy_pass_request_headers off;',
    '        proxy_set_header Content-Type application/json;',
    '        proxy_set_header Connection "";',
    '        proxy_read_timeout 30s;',
    '        subrequest_output_buffer_size 1m;',
    `        proxy_pass http://unix:${ctx.run('auth')}:/check;`,
    '    }',
  ].join('\n');
}

/**
 * forwardBody: nginx reads the whole body before the dispatch runs, in memory up to
 * client_body_buffer_size and past it in a temporary file that it unlinks as soon as it is opened
 * (njs could then read none of it). On a port whose rules send bodies to authorization servers the
 * body goes to a file nginx keeps until the request is over (`clean`), of which the dispatch reads
 * the first maxSize bytes (and one more, to tell a longer body): what njs holds is bounded by maxSize,
 * whatever the body's length.
 */
function bodyInFile(ctx: RenderCtx, g: GatewayCtx, listeners: readonly CompiledListener[]): string[] {
  for (const l of listeners) {
    for (const e of [...(l.httpRoutes ?? []), ...(l.grpcRoutes ?? [])]) {
      const rule = g.table.rules[e.rule];
      if (hasExternalAuth(rule) && rule.filters.some((f) => (f.externalAuth?.forwardBodyMaxSize ?? 0) > 0)) {
        ctx.gap(g, listenerName(l), 'ExternalAuth forwardBody: nginx reads the whole body (into a temporary file) before the authorization server is asked, within client_body_timeout between reads (the reference proxy asks once maxSize bytes are in, and answers 408 when they are not in within the filter\'s 2 s)');
        return ['    client_body_in_file_only clean;'];
      }
    }
  }
  return [];
}

/** nginx answers 502 when it reaches no backend; the gateway's answer for that is 503 (a backend's own 502 passes). */
const UNAVAILABLE = ['    error_page 502 = @sy_unavailable;', '    location @sy_unavailable {', '        return 503 "no backend answered\\n";', '    }'];

function dispatch(key: string, clientValidation?: 'AllowValidOnly' | 'AllowInsecureFallback'): string[] {
  return [
    `    set $sy_port_key ${q(key)};`, '    location / {', '        js_content tbl.http;', '    }', ...UNAVAILABLE,
    // AllowInsecureFallback: a client certificate nginx finds invalid (495) is no reason to refuse the request
    // (nginx answers 495 before the server's own `set`: the named location sets the port's key itself)
    ...(clientValidation === 'AllowInsecureFallback' ? ['    error_page 495 = @sy_dispatch;', '    location @sy_dispatch {', `        set $sy_port_key ${q(key)};`, '        js_content tbl.http;', '    }'] : []),
    // AllowValidOnly: a client certificate nginx finds invalid (495), or none (496), gets no answer: the
    // connection is closed (444), as a refused handshake leaves the client without one
    ...(clientValidation === 'AllowValidOnly' ? ['    error_page 495 496 = @sy_refuse;', '    location @sy_refuse {', '        return 444;', '    }'] : []),
  ];
}

/** A header value nginx can take literally in a double-quoted string (no variable, quote, escape or control character). */
const LITERAL = /^[^$"\\\x00-\x1f\x7f]*$/;

/**
 * A port nginx routes with its own locations, no njs on the way: one listener, every entry of the
 * same hostname with an Exact or PathPrefix path and nothing else to match, every rule with one
 * usable backend taking all its weight and no filter but static request header sets and removals.
 * There Gateway API precedence (exact path, then the longest prefix, then the table's order) is
 * nginx's own: `location =` first, then the longest `^~` prefix; a path two entries share goes to the
 * first. Undefined when the port's routes need more.
 */
function nativePort(ctx: RenderCtx, g: GatewayCtx, port: number, listeners: readonly CompiledListener[]): PortOut | undefined {
  if (listeners.length !== 1) return undefined;
  const l = listeners[0];
  const entries = l.httpRoutes ?? [];
  if ((l.grpcRoutes ?? []).length || entries.length === 0) return undefined;
  const host = entries[0].hostname;
  const headersOf = new Map<number, [string, string][]>();
  for (const e of entries) {
    const m = e.match;
    if (e.hostname !== host || m.invalid || m.method || m.headers?.length || m.queryParams?.length) return undefined;
    if (m.path.type !== 'Exact' && m.path.type !== 'PathPrefix') return undefined;
    if (!m.path.value.startsWith('/') || !LITERAL.test(m.path.value) || /[\s{};]/.test(m.path.value)) return undefined;
    const rule = g.table.rules[e.rule];
    if (rule.invalid || rule.sessionPersistence) return undefined;
    const weighted = rule.backends.filter((b) => b.weight > 0);
    if (weighted.length !== 1 || !weighted[0].valid || weighted[0].filters?.length || weighted[0].appProtocol === 'kubernetes.io/h2c') return undefined;
    const headers: [string, string][] = [];
    for (const f of rule.filters) {
      const mod = f.requestHeaderModifier;
      if (f.type !== 'RequestHeaderModifier' || !mod || mod.add.length) return undefined;
      for (const h of mod.set) {
        if (!LITERAL.test(h.value)) return undefined;
        headers.push([h.name.toLowerCase(), h.value]);
      }
      for (const h of mod.remove) headers.push([h.toLowerCase(), '']);
    }
    // a later filter's word on a header is the last
    headersOf.set(e.rule, [...new Map(headers)].sort((a, b) => a[0].localeCompare(b[0])));
  }
  const locations = new Map<string, string>();
  for (const e of entries) {
    const rule = g.table.rules[e.rule];
    const bi = rule.backends.findIndex((b) => b.weight > 0);
    const v = e.match.path.value.replace(/\/+$/, '');
    const keys = e.match.path.type === 'Exact' ? [`location = ${e.match.path.value}`] : v === '' ? ['location /'] : [`location = ${v}`, `location ^~ ${v}/`];
    for (const open of keys) if (!locations.has(open)) locations.set(open, ruleLocation(ctx, g, e.rule, bi, [], { open, headers: headersOf.get(e.rule)! }));
  }
  if (!locations.has('location /')) locations.set('location /', '    location / {\n        return 404;\n    }');
  const head = [`# ${listenerName(l)} of ${g.gateway}: nginx's own locations (exact, then the longest prefix)`, 'server {'];
  const servers: string[] = [];
  if (host === '') servers.push([...head, `    listen ${ctx.listen(port)};`, '    server_name _;', '    merge_slashes off;', ...UNAVAILABLE, ...locations.values(), '}'].join('\n'));
  else {
    servers.push([...head, `    listen ${ctx.listen(port)};`, `    server_name ${q(host)};`, '    merge_slashes off;', ...UNAVAILABLE, ...locations.values(), '}'].join('\n'));
    servers.push([`# port ${port} of ${g.gateway}: a Host no route takes`, 'server {', `    listen ${ctx.listen(port)} default_server;`, '    server_name _;', '    return 404;', '}'].join('\n'));
  }
  ctx.gap(g, `${listenerName(l)}`, 'routed by nginx\'s own locations, which match the path as nginx normalizes it (percent-decoded, dot segments resolved)');
  return { http: servers, stream: [] };
}

export function httpPort(ctx: RenderCtx, g: GatewayCtx, port: number, listeners: readonly CompiledListener[], njs: NjsTable): PortOut {
  const native = nativePort(ctx, g, port, listeners);
  if (native) return native;
  const key = portKey(g, port);
  njs.ports[key] = { https: false, listeners: listeners.map((l) => njsListener(g, l, false)) };
  const needsH2 = listeners.some((l) => (l.grpcRoutes ?? []).length > 0 || (l.httpRoutes ?? []).some((e) => g.table.rules[e.rule].backends.some((b) => b.appProtocol === 'kubernetes.io/h2c')));
  const sock = ctx.run(`g${g.index}-${port}`);
  const listen = needsH2 ? [`    listen unix:${sock}-h1;`, `    listen unix:${sock}-h2 http2;`] : [`    listen ${ctx.listen(port)};`];
  const http = [`# ${listeners.map(listenerName).join(', ')} of ${g.gateway}`, 'server {', ...listen, '    server_name _;', ...bodyInFile(ctx, g, listeners), ...dispatch(key), ...ruleBlocks(ctx, g, listeners), '}'];
  if (!needsH2) return { http: [http.join('\n')], stream: [] };
  const v = `$sy_demux_g${g.index}_${port}`;
  const stream = [
    `# port ${port} of ${g.gateway}: HTTP/1.1 and HTTP/2 with prior knowledge told apart by their first bytes`,
    `map $sy_h2 ${v} {`, `    1 unix:${sock}-h2;`, `    default unix:${sock}-h1;`, '}',
    'server {', `    listen ${ctx.listen(port)};`, '    js_preread sy.demux;', `    proxy_pass ${v};`, '}',
  ];
  return { http: [http.join('\n')], stream: [stream.join('\n')], streamJs: true };
}

/**
 * An HTTPS port: a server per listener (its certificates by SNI, client validation), all routing
 * the same way through the dispatch, which answers 421 when Host and SNI select different
 * listeners. `viaSocket`: the port's stream front (TLS listeners share it) hands the connection over.
 */
export function httpsPort(ctx: RenderCtx, g: GatewayCtx, port: number, https: readonly CompiledListener[], tlsListeners: readonly CompiledListener[], njs: NjsTable, viaSocket?: string): PortOut {
  const key = portKey(g, port);
  njs.ports[key] = { https: true, listeners: [...https.map((l) => njsListener(g, l, true)), ...tlsListeners.map((l) => njsListener(g, l, true))] };
  const listen = viaSocket ? `unix:${viaSocket}` : ctx.listen(port);
  const blocks = ruleBlocks(ctx, g, https);
  const inFile = bodyInFile(ctx, g, https);
  const out: string[] = [];
  let hasDefault = false;
  for (const l of https) {
    const pairs = (l.tls?.certificateRefs ?? []).map((r) => ctx.material.keyPair(r)).filter((p): p is string => !!p);
    if (pairs.length === 0) {
      ctx.gap(g, listenerName(l), 'no usable certificate: the listener is not served');
      continue;
    }
    const isDefault = !l.hostname && !hasDefault;
    if (isDefault) hasDefault = true;
    const lines = [`# ${listenerName(l)} of ${g.gateway}`, 'server {', `    listen ${listen} ssl http2${isDefault ? ' default_server' : ''};`, `    server_name ${l.hostname ? q(l.hostname.toLowerCase()) : '""'};`];
    for (const p of pairs) lines.push(`    ssl_certificate ${p};`, `    ssl_certificate_key ${p};`);
    if (l.tls?.caBundle) {
      lines.push(`    ssl_client_certificate ${ctx.material.ca(l.tls.caBundle)};`, `    ssl_verify_client ${l.tls.clientValidationMode === 'AllowInsecureFallback' ? 'optional_no_ca' : 'on'};`, '    ssl_verify_depth 5;');
      if (l.tls.clientValidationMode !== 'AllowInsecureFallback') ctx.gap(g, listenerName(l), 'AllowValidOnly: nginx completes the handshake with an invalid client certificate, then closes the connection without an answer, rather than failing the handshake');
    }
    lines.push(...inFile, ...dispatch(key, l.tls?.clientValidationMode === 'AllowInsecureFallback' ? 'AllowInsecureFallback' : l.tls?.caBundle ? 'AllowValidOnly' : undefined), ...blocks, '}');
    out.push(lines.join('\n'));
  }
  if (!hasDefault) {
    // a server name no listener takes: the handshake fails, as resolve says
    out.push([`# port ${port} of ${g.gateway}: a server name no listener takes`, 'server {', `    listen ${listen} ssl http2 default_server;`, '    ssl_reject_handshake on;', '}'].join('\n'));
  }
  return { http: out, stream: [] };
}
