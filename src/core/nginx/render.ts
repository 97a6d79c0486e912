// The compiled route tables of the Gateways an agent serves -> one complete nginx configuration.
// Pure: the same tables give the same files, byte for byte. The configuration is cut in parts whose
// file names carry a digest of their content: the routes (servers, locations, the njs table), which
// do not depend on endpoints, and the upstreams, which hold them; so an endpoint-only change writes
// the upstream files alone and keeps every other file (renderRoutes' result can be kept by the
// caller under routesKey and given back).
import type { CompiledFilter, CompiledTable } from '../compile/types';
import { RenderCtx, type GatewayCtx } from './context';
import { httpPort, httpsPort } from './http';
import { digest } from './names';
import type { NjsTable } from './njs-table';
import { njsModule, njsRule } from './njs-table';
import { l4Port, tlsFront } from './stream';
import type { NginxRender, NginxRenderInput, RenderedFile } from './types';
import { endpointsOf, renderHttpUpstreams, renderStreamUpstreams, type HttpUpstreamSpec, type StreamUpstreamSpec } from './upstreams';

export interface RoutesRender {
  files: RenderedFile[];
  /** file names, in include order */
  httpRoutes: string;
  streamRoutes?: string;
  table: string;
  streamJs: boolean;
  httpUpstreams: HttpUpstreamSpec[];
  streamUpstreams: StreamUpstreamSpec[];
  /** backends a cookie session may be pinned to an endpoint of (the upstreams file lists their endpoints for the dispatch) */
  pinned: string[];
  gaps: string[];
}

/** The tables as the routes see them: endpoints left out (a backend's validity stays). */
function withoutEndpoints(t: CompiledTable): CompiledTable {
  // an authorization server's endpoints are the agent's bridge's to know, not the configuration's
  const filters = (fs: readonly CompiledFilter[] | undefined) => fs?.map((f) => (f.externalAuth ? { ...f, externalAuth: { ...f.externalAuth, backend: { ...f.externalAuth.backend, endpoints: [] } } } : f));
  return { ...t, rules: t.rules.map((r) => ({ ...r, filters: filters(r.filters)!, backends: r.backends.map((b) => ({ ...b, endpoints: [], ...(b.filters ? { filters: filters(b.filters) } : {}) })) })) };
}

/** What the routes depend on: a changed key means the routes are rendered again. */
export function routesKey(input: NginxRenderInput): string {
  return digest(JSON.stringify({ ...input, gateways: input.gateways.map((g) => ({ ...g, table: withoutEndpoints(g.table) })) }), 32);
}

const named = (prefix: string, ext: string, content: string): RenderedFile => ({ name: `${prefix}-${digest(content, 16)}.${ext}`, content });

export function renderRoutes(input: NginxRenderInput): RoutesRender {
  const ctx = new RenderCtx(input);
  const njs: NjsTable = { ports: {}, rules: [], hdr: {} };
  const http: string[] = [];
  const stream: string[] = [];
  let streamJs = false;
  let ruleBase = 0;
  input.gateways.forEach((gw, index) => {
    const g: GatewayCtx = { index, gateway: gw.gateway, table: gw.table, ruleBase };
    ruleBase += gw.table.rules.length;
    gw.table.rules.forEach((_r, ri) => njs.rules.push(njsRule(ctx, g, ri)));
    const byPort = new Map<number, typeof gw.table.listeners>();
    for (const l of gw.table.listeners) if (l.valid) byPort.set(l.port, [...(byPort.get(l.port) ?? []), l]);
    for (const [port, ls] of [...byPort].sort((a, b) => a[0] - b[0])) {
      const plain = ls.filter((l) => l.protocol === 'HTTP');
      const https = ls.filter((l) => l.protocol === 'HTTPS');
      const tls = ls.filter((l) => l.protocol === 'TLS');
      if (plain.length) {
        const out = httpPort(ctx, g, port, plain, njs);
        http.push(...out.http);
        stream.push(...out.stream);
        streamJs ||= !!out.streamJs;
      }
      if (tls.length) {
        const front = tlsFront(ctx, g, port, [...https, ...tls]);
        stream.push(...front.stream);
        if (https.length) http.push(...httpsPort(ctx, g, port, https, tls, njs, front.httpsSocket).http);
      } else if (https.length) http.push(...httpsPort(ctx, g, port, https, [], njs).http);
      const tcp = ls.find((l) => l.protocol === 'TCP');
      if (tcp) stream.push(l4Port(ctx, g, port, tcp));
      const udp = ls.find((l) => l.protocol === 'UDP');
      if (udp) {
        const text = l4Port(ctx, g, port, udp);
        if (text) stream.push(text);
      }
    }
  });
  for (const [name, v] of [...ctx.headers].sort()) njs.hdr[name] = v;
  const vars = ['sy_uri', 'sy_host', 'sy_resp',
    ...(ctx.auth ? ['sy_hx'] : []), ...(ctx.pinned.size ? ['sy_peer', 'sy_pin', 'sy_sess'] : []),
    ...[...ctx.headers.values()].sort(), ...[...ctx.mirrorByKey.values()].map((m) => m.v).sort()];
  const httpText = [
    '# Rendered by `switchyard nginx` from the Gateways\' snapshots: servers, dispatch and locations.',
    ...vars.map((v) => `js_var $${v};`),
    '',
    ...http,
    '',
  ].join('\n');
  const table = named('table', 'js', njsModule(njs));
  const httpFile = named('http', 'conf', httpText);
  const streamFile = stream.length ? named('stream', 'conf', ['# Rendered by `switchyard nginx`: TLS by SNI, TCP and UDP ports.', ...stream, ''].join('\n')) : undefined;
  return {
    files: [table, httpFile, ...(streamFile ? [streamFile] : []), ...ctx.material.files.values()],
    httpRoutes: httpFile.name,
    ...(streamFile ? { streamRoutes: streamFile.name } : {}),
    table: table.name,
    streamJs,
    httpUpstreams: [...ctx.httpUpstreams.values()],
    streamUpstreams: [...ctx.streamUpstreams.values()],
    pinned: [...ctx.pinned].sort(),
    gaps: ctx.gaps,
  };
}

/** The whole configuration; `routes` when the caller kept the routes of the same routesKey. */
export function renderNginx(input: NginxRenderInput, routes: RoutesRender = renderRoutes(input)): NginxRender {
  const endpoints = endpointsOf(input.gateways.map((g) => g.table));
  const up = named('upstreams', 'conf', renderHttpUpstreams(routes.httpUpstreams, endpoints, routes.pinned));
  const sup = routes.streamUpstreams.length ? named('stream-upstreams', 'conf', renderStreamUpstreams(routes.streamUpstreams, endpoints)) : undefined;
  const files = [...routes.files, up, ...(sup ? [sup] : [])];
  const d = input.dir;
  const hasStream = !!routes.streamRoutes;
  const mod = (m: string) => `load_module ${input.modulesDir}/${m};`;
  const id = digest([...files.map((f) => f.name)].sort().join('\n') + JSON.stringify({ o: input.portOffset, h: input.host, w: input.workerProcesses, m: input.modulesDir, n: input.njsScript }), 16);
  const njsDir = input.njsScript.replace(/\/[^/]*$/, '');
  const main = [
    `# Rendered by \`switchyard nginx\` (configuration ${id}): written again on every change, do not edit.`,
    mod('ngx_http_js_module.so'),
    ...(hasStream ? [mod('ngx_stream_module.so')] : []),
    ...(routes.streamJs ? [mod('ngx_stream_js_module.so')] : []),
    `worker_processes ${input.workerProcesses};`,
    `pid ${d}/nginx.pid;`,
    `error_log ${d}/logs/error.log warn;`,
    'events {',
    '    worker_connections 8192;',
    '}',
    'http {',
    '    access_log off;',
    '    server_tokens off;',
    '    client_max_body_size 0;',
    '    keepalive_requests 100000;',
    `    client_body_temp_path ${d}/tmp/body;`,
    `    proxy_temp_path ${d}/tmp/proxy;`,
    `    fastcgi_temp_path ${d}/tmp/fastcgi;`,
    `    uwsgi_temp_path ${d}/tmp/uwsgi;`,
    `    scgi_temp_path ${d}/tmp/scgi;`,
    '    server_names_hash_bucket_size 256;',
    '    server_names_hash_max_size 65536;',
    '    map_hash_bucket_size 256;',
    '    variables_hash_max_size 65536;',
    '    variables_hash_bucket_size 256;',
    '    proxy_http_version 1.1;',
    '    ssl_protocols TLSv1.2 TLSv1.3;',
    '    ssl_session_cache shared:switchyard_ssl:10m;',
    `    js_path ${njsDir};`,
    '    js_import sy from switchyard.js;',
    `    js_import tbl from ${d}/${routes.table};`,
    '    # a WebSocket upgrade is passed on; otherwise the connection to the backend is kept alive',
    '    map $http_upgrade $sy_connection {',
    '        default upgrade;',
    '        "" "";',
    '    }',
    `    include ${d}/${up.name};`,
    `    include ${d}/${routes.httpRoutes};`,
    '    # the configuration this nginx runs, for the agent to see a reload done',
    '    server {',
    `        listen unix:${d}/run/status.sock;`,
    '        location = /switchyard/config {',
    `            return 200 "${id}";`,
    '        }',
    '    }',
    '}',
    ...(hasStream ? [
      'stream {',
      ...(routes.streamJs ? [`    js_path ${njsDir};`, '    js_import sy from switchyard.js;', '    js_var $sy_h2;'] : []),
      ...(sup ? [`    include ${d}/${sup.name};`] : []),
      `    include ${d}/${routes.streamRoutes};`,
      '}',
    ] : []),
    '',
  ].join('\n');
  return { main, files, gaps: routes.gaps, id };
}
