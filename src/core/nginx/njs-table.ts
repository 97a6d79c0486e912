// The table the njs dispatch walks (src/nginx-agent/njs/switchyard.js): per port of a Gateway its
// listeners with their entries in precedence order (as the compiled table has them), and every rule
// with its filters and backends reduced to what the dispatch needs (the named location of each
// backend, the variables of its mirrors and touched request headers).
import type { CompiledFilter, CompiledGRPCEntry, CompiledHTTPEntry, CompiledListener, CompiledValueMatch } from '../compile/types';
import { copiesOf, hasExternalAuth, type GatewayCtx, type RenderCtx } from './context';
import { upstreamName } from './names';
import { backendKey } from './upstreams';
import { locationName, mirrorsOfRule, touchedHeaders, type MirrorOut } from './locations';

export interface NjsListener {
  h: string;
  port: number;
  https: boolean;
  /** a TLS listener on an HTTPS port: a request whose SNI selects it is misdirected */
  tls?: boolean;
  http: unknown[];
  grpc: unknown[];
}

export interface NjsTable {
  ports: Record<string, { https: boolean; listeners: NjsListener[] }>;
  rules: unknown[];
  hdr: Record<string, string>;
}

const values = (ms: readonly CompiledValueMatch[] | undefined) => (ms ?? []).map((m) => ({ n: m.name, t: m.type, v: m.value }));

function httpEntry(g: GatewayCtx, e: CompiledHTTPEntry) {
  const m = e.match;
  return {
    h: e.hostname, r: g.ruleBase + e.rule,
    m: {
      p: { t: m.path.type, v: m.path.value },
      ...(m.method ? { method: m.method } : {}),
      ...(m.headers?.length ? { headers: values(m.headers) } : {}),
      ...(m.queryParams?.length ? { query: values(m.queryParams) } : {}),
      ...(m.invalid ? { invalid: true } : {}),
    },
  };
}

function grpcEntry(g: GatewayCtx, e: CompiledGRPCEntry) {
  const m = e.match;
  return {
    h: e.hostname, r: g.ruleBase + e.rule,
    m: {
      ...(m.type ? { type: m.type } : {}),
      ...(m.service !== undefined ? { service: m.service } : {}),
      ...(m.method !== undefined ? { method: m.method } : {}),
      ...(m.headers?.length ? { headers: values(m.headers) } : {}),
      ...(m.invalid ? { invalid: true } : {}),
    },
  };
}

export function njsListener(g: GatewayCtx, l: CompiledListener, https: boolean): NjsListener {
  // a listener with entries of both kinds: each carries its route's age (`a`), for the dispatch to
  // tell which kind takes a host's gRPC calls
  return {
    h: (l.hostname ?? '').toLowerCase(), port: l.port, https,
    ...(l.protocol === 'TLS' ? { tls: true } : {}),
    http: (l.httpRoutes ?? []).map((e) => httpEntry(g, e)),
    grpc: (l.grpcRoutes ?? []).map((e) => grpcEntry(g, e)),
  };
}

/**
 * An ExternalAuth filter as the dispatch sends it to the agent's bridge: everything but the server's
 * endpoints, which the bridge takes from the agent's tables (so an endpoint-only change renders no
 * route again).
 */
function authOf(f: CompiledFilter): unknown {
  const a = f.externalAuth!;
  return {
    type: f.type,
    auth: {
      ok: a.backend.valid, key: backendKey(a.backend), protocol: a.protocol, timeoutMs: a.timeoutMs,
      allowedHeaders: a.allowedHeaders, allowedResponseHeaders: a.allowedResponseHeaders, ...(a.pathPrefix ? { pathPrefix: a.pathPrefix } : {}),
      ...(a.forwardBodyMaxSize ? { forwardBodyMaxSize: a.forwardBodyMaxSize } : {}),
    },
  };
}

function filtersOf(filters: readonly CompiledFilter[] | undefined, mirrors: readonly MirrorOut[]): unknown[] {
  let m = 0;
  return (filters ?? []).map((f) => {
    if (f.type === 'ExternalAuth' && f.externalAuth) return authOf(f);
    if (f.type !== 'RequestMirror') return f;
    const out = mirrors[m++];
    return { type: f.type, mirror: { v: out.v, p: out.p } };
  });
}

export function njsRule(ctx: RenderCtx, g: GatewayCtx, ruleIndex: number): unknown {
  const rule = g.table.rules[ruleIndex];
  const mirrors = mirrorsOfRule(ctx, g, ruleIndex);
  const hdr = (filters: readonly CompiledFilter[] | undefined) => {
    const names = touchedHeaders(filters);
    for (const n of names) ctx.headerVar(n);
    return names;
  };
  const sp = rule.invalid ? undefined : rule.sessionPersistence;
  if (sp) for (const b of rule.backends) if (b.valid && b.weight > 0) ctx.pinned.add(backendKey(b));
  if (hasExternalAuth(rule)) ctx.auth = true;
  return {
    ...(rule.invalid ? { invalid: true } : {}),
    f: filtersOf(rule.filters, mirrors.rule),
    h: hdr(rule.filters),
    // cookie sessions: the cookie, and per backend its key (the cookie names it) and upstream (a new session's peer)
    ...(sp ? { sp: { n: sp.cookieName, p: sp.path, l: sp.lifetime, ...(sp.absoluteTimeoutSeconds !== undefined ? { a: sp.absoluteTimeoutSeconds } : {}), ...(sp.idleTimeoutSeconds !== undefined ? { i: sp.idleTimeoutSeconds } : {}) } } : {}),
    b: rule.backends.map((b, bi) => ({
      w: b.weight, ok: b.valid, loc: locationName(g, ruleIndex, bi),
      f: filtersOf(b.filters, mirrors.backends[bi]), h: hdr(b.filters),
      ...(sp ? { k: backendKey(b), up: upstreamName(b, copiesOf(rule)) } : {}),
    })),
  };
}

export function njsModule(t: NjsTable): string {
  return [
    '// Rendered by `switchyard nginx` from the Gateways\' snapshots: the routing table of the dispatch in switchyard.js.',
    "import sy from 'switchyard.js';",
    `var T = ${JSON.stringify(t, null, 1)};`,
    'function http(r) {',
    '    return sy.http(r, T);',
    '}',
    'export default { http: http };',
    '',
  ].join('\n');
}
