// A rule's filters as Envoy's route fields, meaning what the reference proxy does with them
// (src/core/resolve/actions.ts): header modifiers both ways, the first redirect, URL rewrites
// (ReplacePrefixMatch by whole segments), mirrors with their percentage, CORS. What Envoy cannot
// express is noted rather than dropped.
import type { CompiledCORS, CompiledFilter, CompiledHeaderModifier, CompiledMirror, CompiledPathModifier, CompiledRedirect } from '../../compile';
import { quoteRe2, T, type Msg } from './types';

type Note = (feature: string, effect: string) => void;

export interface HeaderFields {
  request_headers_to_add?: Msg[];
  request_headers_to_remove?: string[];
  response_headers_to_add?: Msg[];
  response_headers_to_remove?: string[];
}

/** What a rule's (or a backend's) filters make. */
export interface FilterPieces {
  headers: HeaderFields;
  /** URLRewrite's hostname, or a RequestHeaderModifier's set of Host (Envoy refuses Host in headers_to_add) */
  hostRewrite?: string;
  pathRewrite?: Msg;
  redirect?: Msg;
  mirrors: CompiledMirror[];
  cors?: Msg;
}

const hv = (name: string, value: string, append: boolean): Msg => ({
  header: { key: name.toLowerCase(), value },
  append_action: append ? 'APPEND_IF_EXISTS_OR_ADD' : 'OVERWRITE_IF_EXISTS_OR_ADD',
});

function modifier(m: CompiledHeaderModifier, dir: 'request' | 'response', p: FilterPieces, note: Note): void {
  const add: Msg[] = [];
  const remove: string[] = [];
  for (const h of m.set) {
    if (dir === 'request' && h.name.toLowerCase() === 'host') p.hostRewrite = h.value;
    else add.push(hv(h.name, h.value, false));
  }
  for (const h of m.add) {
    if (dir === 'request' && h.name.toLowerCase() === 'host') note('RequestHeaderModifier add Host', 'Envoy cannot append to Host: not applied');
    else add.push(hv(h.name, h.value, true));
  }
  for (const n of m.remove) {
    if (dir === 'request' && n.toLowerCase() === 'host') note('RequestHeaderModifier remove Host', 'Envoy cannot remove Host: not applied');
    else remove.push(n.toLowerCase());
  }
  const h = p.headers;
  if (add.length) (dir === 'request' ? (h.request_headers_to_add ??= []) : (h.response_headers_to_add ??= [])).push(...add);
  if (remove.length) (dir === 'request' ? (h.request_headers_to_remove ??= []) : (h.response_headers_to_remove ??= [])).push(...remove);
}

const trimSlash = (p: string) => p.replace(/\/+$/, '');

/**
 * A path modifier as the rewrite fields of a route or redirect. ReplacePrefixMatch replaces the
 * matched prefix by whole segments; where the replacement is "/" (or the entry is not a prefix
 * match) Envoy's prefix_rewrite would leave "//", so a regex stands in for it.
 */
export function pathRewrite(m: CompiledPathModifier, matchedPrefix: string | undefined): Msg {
  if (m.type === 'ReplaceFullPath') return { regex_rewrite: { pattern: { regex: '^/.*$' }, substitution: m.value } };
  const prefix = trimSlash(matchedPrefix ?? '');
  const to = trimSlash(m.value);
  if (prefix !== '' && to !== '') return { prefix_rewrite: to };
  if (prefix === '') return { regex_rewrite: { pattern: { regex: '^/' }, substitution: `${to}/` } };
  return { regex_rewrite: { pattern: { regex: `^${quoteRe2(prefix)}/?` }, substitution: '/' } };
}

const REDIRECT_CODE: Record<number, string> = { 301: 'MOVED_PERMANENTLY', 302: 'FOUND', 303: 'SEE_OTHER', 307: 'TEMPORARY_REDIRECT', 308: 'PERMANENT_REDIRECT' };

/**
 * The Location as the reference builds it: the scheme's well-known port when the scheme is set
 * and no port, else the listener's; no port for http:80 and https:443. Envoy keeps the request's
 * port unless told one, and the connection manager strips it from Host, so a port is written
 * exactly where the reference writes one.
 */
function redirect(r: CompiledRedirect, listener: { protocol: string; port: number }, matchedPrefix: string | undefined, note: Note): Msg {
  const scheme = r.scheme ?? (listener.protocol === 'HTTPS' ? 'https' : 'http');
  let port: number | undefined = r.port ?? (r.scheme ? (r.scheme === 'https' ? 443 : 80) : listener.port);
  if ((scheme === 'http' && port === 80) || (scheme === 'https' && port === 443)) port = undefined;
  const out: Msg = {};
  if (r.scheme) out.scheme_redirect = r.scheme;
  if (r.hostname) out.host_redirect = r.hostname;
  if (port !== undefined) out.port_redirect = port;
  if (r.path) {
    const rw = pathRewrite(r.path, matchedPrefix);
    if (r.path.type === 'ReplaceFullPath') out.path_redirect = r.path.value;
    else Object.assign(out, rw);
  }
  const code = REDIRECT_CODE[r.statusCode];
  if (code) out.response_code = code;
  else note('RequestRedirect statusCode', `Envoy redirects with 301, 302, 303, 307 or 308 only: ${r.statusCode} is answered 301`);
  return out;
}

/** RE2 for an origin pattern with "*" in its host: greedy to the left, the scheme's port optional when implied. */
function originMatcher(pattern: string): Msg {
  if (pattern === '*') return { safe_regex: { regex: '.*' } };
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/:]+)(?::(\d+))?\/?$/.exec(pattern.trim());
  if (!m || !m[2].includes('*')) return { exact: pattern.replace(/\/$/, '') };
  const scheme = m[1].toLowerCase();
  const [before, after] = [m[2].slice(0, m[2].indexOf('*')), m[2].slice(m[2].indexOf('*') + 1)];
  const implied = scheme === 'http' ? '80' : scheme === 'https' ? '443' : '';
  const port = m[3] ? (m[3] === implied ? `(:${m[3]})?` : `:${m[3]}`) : implied ? `(:${implied})?` : '';
  return { safe_regex: { regex: `${quoteRe2(scheme)}://${quoteRe2(before.toLowerCase())}.+${quoteRe2(after.toLowerCase())}${port}` } };
}

function cors(c: CompiledCORS, note: Note): Msg {
  const out: Msg = {
    '@type': T.corsPolicy,
    allow_origin_string_match: c.allowOrigins.map(originMatcher),
    max_age: String(c.maxAge),
    allow_credentials: { value: c.allowCredentials },
    // the reference answers every preflight itself (200, without CORS headers for an origin it refuses)
    forward_not_matching_preflights: { value: false },
  };
  if (c.allowMethods.length) out.allow_methods = c.allowMethods.join(', ');
  if (c.allowHeaders.length) out.allow_headers = c.allowHeaders.join(', ');
  if (c.exposeHeaders.length) out.expose_headers = c.exposeHeaders.join(', ');
  if (c.allowCredentials && (c.allowMethods.includes('*') || c.allowHeaders.includes('*') || c.exposeHeaders.includes('*')))
    note('CORS "*" with allowCredentials', 'Envoy answers "*" as written; the reference echoes the requested methods and headers and leaves out expose "*"');
  return out;
}

export function filterPieces(
  filters: readonly CompiledFilter[], ctx: { listener: { protocol: string; port: number }; matchedPrefix?: string }, note: Note,
): FilterPieces {
  const p: FilterPieces = { headers: {}, mirrors: [] };
  for (const f of filters) {
    switch (f.type) {
      case 'RequestHeaderModifier':
        if (f.requestHeaderModifier) modifier(f.requestHeaderModifier, 'request', p, note);
        break;
      case 'ResponseHeaderModifier':
        if (f.responseHeaderModifier) modifier(f.responseHeaderModifier, 'response', p, note);
        break;
      case 'RequestRedirect':
        if (f.requestRedirect && !p.redirect) p.redirect = redirect(f.requestRedirect, ctx.listener, ctx.matchedPrefix, note);
        break;
      case 'URLRewrite':
        if (f.urlRewrite?.hostname) p.hostRewrite = f.urlRewrite.hostname;
        if (f.urlRewrite?.path) p.pathRewrite = pathRewrite(f.urlRewrite.path, ctx.matchedPrefix);
        break;
      case 'RequestMirror':
        if (f.requestMirror) p.mirrors.push(f.requestMirror);
        break;
      case 'CORS':
        if (f.cors) p.cors = cors(f.cors, note);
        break;
    }
  }
  return p;
}
