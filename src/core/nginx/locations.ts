// The named location of each rule and backend (where the njs dispatch sends a request it forwards)
// and the mirror locations. Everything the dispatch decided per request arrives in variables: the
// URI and Host the backend receives, the touched request headers, whether each mirror copies this
// request, the response headers to finish. What is the same for every request of the rule (the
// upstream, timeouts, retries, TLS to the backend) is written here.
import type { CompiledBackend, CompiledBackendTLS, CompiledFilter, CompiledRule } from '../compile/types';
import { copiesOf, hasExternalAuth, listenerName, routeName, type GatewayCtx, type RenderCtx } from './context';
import { q } from './names';

export const locationName = (g: GatewayCtx, rule: number, backend: number): string => `g${g.index}_r${rule}_b${backend}`;

/** nginx's proxy_next_upstream knows these statuses only. */
const RETRYABLE = new Set([403, 404, 429, 500, 502, 503, 504]);

export function touchedHeaders(filters: readonly CompiledFilter[] | undefined): string[] {
  const out = new Set<string>();
  for (const f of filters ?? []) {
    const m = f.requestHeaderModifier;
    if (!m) continue;
    for (const h of [...m.set, ...m.add]) out.add(h.name.toLowerCase());
    for (const h of m.remove) out.add(h.toLowerCase());
  }
  return [...out].sort();
}

export function changesResponse(filters: readonly CompiledFilter[] | undefined): boolean {
  return (filters ?? []).some((f) => f.type === 'ResponseHeaderModifier' || f.type === 'CORS');
}

export interface MirrorOut {
  /** the njs variable saying this request is copied */
  v: string;
  p: number;
  location: string;
}

/** A mirror per RequestMirror filter, its variable and location named once per Gateway, rule and filter. */
export function mirrorOf(ctx: RenderCtx, key: string, b: CompiledBackend, percent: number, grpc: boolean): MirrorOut & { text: string } {
  const known = ctx.mirrorByKey.get(key);
  if (known) return known;
  const n = ctx.mirrors++;
  const v = `sy_m${n}`;
  const location = `/_switchyard/mirror/${n}`;
  const lines = [`    location = ${location} {`, '        internal;'];
  if (!b.valid || grpc) lines.push('        return 204;');
  else {
    lines.push(`        if ($${v} != "1") {`, '            return 204;', '        }');
    lines.push('        proxy_set_header Host $sy_host;', `        proxy_pass ${b.tls ? 'https' : 'http'}://${ctx.httpUpstream(b)}$sy_uri;`);
  }
  lines.push('    }');
  const out = { v, p: percent, location, text: lines.join('\n') };
  ctx.mirrorByKey.set(key, out);
  return out;
}

/** The mirrors of a rule's filters, then of each backend's. */
export function mirrorsOfRule(ctx: RenderCtx, g: GatewayCtx, ruleIndex: number): { rule: (MirrorOut & { text: string })[]; backends: (MirrorOut & { text: string })[][] } {
  const rule = g.table.rules[ruleIndex];
  const grpc = g.table.routes[rule.route].kind === 'GRPCRoute';
  if (grpc && [...rule.filters, ...rule.backends.flatMap((b) => b.filters ?? [])].some((f) => f.requestMirror)) ctx.gap(g, routeName(g, ruleIndex), 'gRPC requests are not mirrored');
  const of = (filters: readonly CompiledFilter[] | undefined, tag: string) => (filters ?? []).flatMap((f, i) => (f.requestMirror ? [mirrorOf(ctx, `${g.index}/${ruleIndex}/${tag}/${i}`, f.requestMirror.backend, f.requestMirror.percent, grpc)] : []));
  return { rule: of(rule.filters, 'r'), backends: rule.backends.map((b, bi) => of(b.filters, `b${bi}`)) };
}

function ms(n: number): string {
  return `${n}ms`;
}

/**
 * `native`: the location nginx itself selects by path (a port whose routes nginx's own locations
 * express, see http.ts): the request goes on unchanged but for the filters' static header values,
 * written here instead of coming from the dispatch. `native.open` is the location's first line.
 */
export function ruleLocation(ctx: RenderCtx, g: GatewayCtx, ruleIndex: number, backendIndex: number, mirrors: readonly MirrorOut[], native?: { open: string; headers: [string, string][] }): string {
  const rule: CompiledRule = g.table.rules[ruleIndex];
  const b = rule.backends[backendIndex];
  const where = `${routeName(g, ruleIndex)} backend ${b.namespace}/${b.name}`;
  const grpcRule = g.table.routes[rule.route].kind === 'GRPCRoute';
  const h2c = b.appProtocol === 'kubernetes.io/h2c';
  // nginx speaks HTTP/2 to a backend only through its gRPC module
  const grpc = grpcRule || h2c;
  const p = grpc ? 'grpc' : 'proxy';
  const lines: string[] = [native ? `    ${native.open} {` : `    location @${locationName(g, ruleIndex, backendIndex)} {`];
  const set = (name: string, value: string) => lines.push(`        ${p}_set_header ${name} ${value};`);
  const sessions = !native && !rule.invalid && !!rule.sessionPersistence;
  // ExternalAuth: the headers an allowance adds have names only the authorization server knows, and
  // nginx names every header it sets in the configuration. The dispatch writes the request's whole
  // header block instead ($sy_hx: each header on a line of its own, after the Host line), client
  // headers and the allowance's, an allowance's header replacing the client's of that name.
  const authHeaders = !native && !grpc && hasExternalAuth(rule);
  if (authHeaders) lines.push('        proxy_pass_request_headers off;');
  set('Host', native ? '$http_host' : authHeaders ? '"$sy_host$sy_hx"' : '$sy_host');
  if (!native && grpc && hasExternalAuth(rule)) ctx.gap(g, where, 'headers an authorization server adds to an allowed request are not sent to an h2c backend (nginx\'s gRPC module)');
  if (!grpc) {
    set('Upgrade', '$http_upgrade');
    set('Connection', '$sy_connection');
  }
  if (native) for (const [name, value] of native.headers) set(headerName(name), `"${value}"`);
  else for (const h of [...new Set([...touchedHeaders(rule.filters), ...touchedHeaders(b.filters)])].sort()) set(headerName(h), `$${ctx.headerVar(h)}`);
  for (const m of mirrors) lines.push(`        mirror ${m.location};`);
  const t = rule.timeouts;
  // the header filter finishes the answer: the rule's response header changes, the session cookie
  if (sessions || changesResponse(rule.filters) || changesResponse(b.filters)) lines.push('        js_header_filter sy.respond;');
  const limit = [t?.backendRequestMs, t?.requestMs].filter((x): x is number => x !== undefined && x > 0);
  if (limit.length) {
    const m = Math.min(...limit);
    lines.push(`        ${p}_connect_timeout ${ms(m)};`, `        ${p}_send_timeout ${ms(m)};`, `        ${p}_read_timeout ${ms(m)};`);
    if (t?.requestMs && t.backendRequestMs && t.requestMs > t.backendRequestMs) ctx.gap(g, routeName(g, ruleIndex), 'nginx has no whole-request timeout: the backend request timeout bounds each read instead');
  }
  const copies = copiesOf(rule);
  if (rule.retry) {
    const codes = rule.retry.codes.filter((c) => RETRYABLE.has(c));
    const lost = rule.retry.codes.filter((c) => !RETRYABLE.has(c));
    if (lost.length) ctx.gap(g, routeName(g, ruleIndex), `nginx retries only on ${[...RETRYABLE].join(', ')}: ${lost.join(', ')} not retried`);
    if (rule.retry.backoffMs) ctx.gap(g, routeName(g, ruleIndex), 'nginx retries at once: no backoff between attempts');
    lines.push(`        ${p}_next_upstream error timeout ${codes.map((c) => `http_${c}`).join(' ')} non_idempotent;`.replace('  ', ' '), `        ${p}_next_upstream_tries ${copies};`);
    // no retry starts once the request's time is up (what the last attempt answered goes to the client)
    if (t?.requestMs) {
      lines.push(`        ${p}_next_upstream_timeout ${ms(t.requestMs)};`);
      ctx.gap(g, routeName(g, ruleIndex), 'retries stop when the request timeout is up, but the last attempt\'s answer is passed on where the request timeout calls for 504');
    }
  }
  const upstream = ctx.httpUpstream(b, copies);
  if (b.tls) {
    const ca = ctx.material.backendCA(b.tls);
    lines.push(`        ${p}_ssl_server_name on;`, `        ${p}_ssl_name ${q(verifiedName(ctx, g, where, b.tls))};`, `        ${p}_ssl_verify on;`, `        ${p}_ssl_verify_depth 5;`);
    if (ca) lines.push(`        ${p}_ssl_trusted_certificate ${ca};`);
    const client = g.table.backendClientCertificate && ctx.material.keyPair(g.table.backendClientCertificate);
    if (client) lines.push(`        ${p}_ssl_certificate ${client};`, `        ${p}_ssl_certificate_key ${client};`);
  }
  // a rule that keeps sessions: the dispatch names the peer, the upstream (a new session) or the session's endpoint
  const peer = sessions ? '$sy_peer' : upstream;
  if (grpc) lines.push(`        grpc_pass ${b.tls ? 'grpcs' : 'grpc'}://${peer};`);
  else lines.push(`        proxy_pass ${b.tls ? 'https' : 'http'}://${peer}${native ? '' : '$sy_uri'};`);
  if (h2c && !grpcRule && [...rule.filters, ...(b.filters ?? [])].some((f) => f.urlRewrite?.path)) ctx.gap(g, where, 'a path rewrite is not applied on the way to an h2c backend (nginx\'s gRPC module sends the URI as received)');
  lines.push('    }');
  return lines.join('\n');
}

/**
 * The name nginx checks a backend's certificate against, which is also the SNI it sends (nginx has
 * one name for both): the policy's hostname, unless the policy's subjectAltNames leave it out. Then
 * the first Hostname SAN, so that a certificate the policy refuses is refused (the SNI differs); a
 * policy of URI SANs only cannot be checked by nginx, which checks the hostname.
 */
export function verifiedName(ctx: RenderCtx, g: GatewayCtx, where: string, tls: CompiledBackendTLS): string {
  const sans = tls.subjectAltNames;
  if (sans.length === 0 || sans.some((s) => s.type === 'Hostname' && s.value.toLowerCase() === tls.sni.toLowerCase())) return tls.sni;
  const hostnames = sans.filter((s) => s.type === 'Hostname').map((s) => s.value);
  if (hostnames.length === 0) {
    ctx.gap(g, where, `nginx cannot check URI subjectAltNames: the backend certificate is checked against the SNI (${tls.sni})`);
    return tls.sni;
  }
  ctx.gap(g, where, `nginx sends the name it checks the certificate against: SNI ${hostnames[0]} (the policy's first Hostname subjectAltName) instead of ${tls.sni}${hostnames.length > 1 ? ', and only that subjectAltName is accepted' : ''}${sans.some((s) => s.type !== 'Hostname') ? '; URI subjectAltNames are not checked' : ''}`);
  return hostnames[0];
}

/** Canonical spelling of a header name for the request line nginx sends (names compare case-insensitively). */
function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase());
}

export { listenerName };
