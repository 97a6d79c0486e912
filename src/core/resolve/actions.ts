// What happens to a request once a rule has taken it: the rule's filters in order, the choice of a
// backend by weight, that backend's own filters, and the answer the client gets (forwarded, a
// redirect, a CORS preflight answered by the gateway, or 500 when the share falls on no usable backend).
import type { CompiledBackend, CompiledCORS, CompiledFilter, CompiledListener, CompiledRetry, CompiledRule, CompiledSessionPersistence, CompiledExternalAuth } from '../compile/types';
import { applyHeaderModifier, sortedHeaders, type HeaderMap, type HeaderModifier } from '../match/headers';
import { originAllowed } from '../match/cors';
import { replacePrefix } from '../match/path';
import type { NormalizedRequest } from './request';
import type { ResolveBackend, ResolveMirror, ResolveRedirect, ResolveResponse } from './types';
import { backendWords, percent, resolveBackend, type Visibility } from './words';
import { backendKeyOf, cookieValue, decodeSession, sessionAlive, type SessionValue } from '../session/cookie';

interface FlowState {
  headers: HeaderMap;
  host: string;
  path: string;
  hostRewritten: boolean;
  pathRewritten: boolean;
  redirect?: ResolveRedirect;
  responseModifiers: HeaderModifier[];
  cors?: CompiledCORS;
  mirrors: ResolveMirror[];
  mirrorTargets: CompiledBackend[];
}

export interface ActionInput {
  rule: CompiledRule;
  /** the prefix the entry matched, for ReplacePrefixMatch */
  matchedPrefix?: string;
  listener: CompiledListener;
  request: NormalizedRequest;
  visibility: Visibility;
  random?: number;
  /** seconds since the epoch, for session timeouts */
  nowSeconds?: number;
  /**
   * how a refusal reads: HTTP answers 500, gRPC answers status Unavailable (as a proxy with no healthy
   * upstream does: HTTP 200, grpc-status 14), TCP and TLS refuse the connection, UDP drops datagrams
   */
  refusal?: 'http' | 'grpc' | 'connection' | 'datagrams';
}

export type ActionResult = Pick<ResolveResponse,
  'forwarded' | 'statusCode' | 'redirect' | 'rewrite' | 'requestHeaders' | 'responseHeaders' | 'mirrors' |
  'timeouts' | 'backends' | 'chosenBackend' | 'rejectedShare' | 'grpcStatus' | 'session' | 'externalAuth'> & {
  /** The rule's ExternalAuth filter, for a proxy to ask the server before it carries the decision out. */
  externalAuthConfig?: CompiledExternalAuth;
  explanation: string[];
  /**
   * For a forwarded request: the headers the client gets once the backend answered with `backend`
   * (every response filter and CORS applied). A proxy calls it with the real answer; resolve called
   * it with the request's `backendResponseHeaders`.
   */
  respond?: (backend: HeaderMap) => HeaderMap;
  /** The session the request's cookie resumed (a proxy keeps its endpoint and refreshes it). */
  sessionValue?: SessionValue;
  /** For a forwarded request of a rule that keeps sessions: how (a proxy sets the cookie). */
  sessionPersistence?: CompiledSessionPersistence;
  /** For a forwarded request: the backend chosen, with its endpoints (a proxy's, not resolve's). */
  target?: CompiledBackend;
  /** The mirrors' backends with their endpoints, in the order of `mirrors`. */
  mirrorTargets?: CompiledBackend[];
  /** For a forwarded request: the rule's retry policy (a proxy's, not resolve's). */
  retry?: CompiledRetry;
};

function applyFilters(filters: readonly CompiledFilter[], s: FlowState, input: ActionInput, notes: string[]): void {
  for (const f of filters) {
    switch (f.type) {
      case 'RequestHeaderModifier':
        if (f.requestHeaderModifier) {
          s.headers = applyHeaderModifier(s.headers, f.requestHeaderModifier);
          const w = modifierWords(f.requestHeaderModifier);
          if (w) notes.push(`A RequestHeaderModifier ${w} on the way to the backend.`);
        }
        break;
      case 'ResponseHeaderModifier':
        if (f.responseHeaderModifier) {
          s.responseModifiers.push(f.responseHeaderModifier);
          const w = modifierWords(f.responseHeaderModifier);
          if (w) notes.push(`A ResponseHeaderModifier ${w} on the way back to the client.`);
        }
        break;
      case 'RequestRedirect':
        if (f.requestRedirect && !s.redirect) s.redirect = redirectOf(f.requestRedirect, s, input);
        break;
      case 'URLRewrite': {
        const r = f.urlRewrite;
        if (r?.hostname) {
          s.host = r.hostname;
          s.hostRewritten = true;
        }
        if (r?.path) {
          s.path = r.path.type === 'ReplaceFullPath' ? r.path.value : replacePrefix(s.path, input.matchedPrefix ?? '/', r.path.value);
          s.pathRewritten = true;
        }
        break;
      }
      case 'RequestMirror':
        if (f.requestMirror) {
          const b = f.requestMirror.backend;
          s.mirrors.push({ backend: resolveBackend(b, b.weight, input.visibility), percent: f.requestMirror.percent });
          s.mirrorTargets.push(b);
          notes.push(`A copy of ${percent(f.requestMirror.percent / 100)} of the requests is mirrored to ${backendWords(b, input.visibility)}${b.valid ? '' : ` (unusable: ${b.reason})`}; its answer is ignored.`);
        }
        break;
      case 'CORS':
        if (f.cors) s.cors = f.cors;
        break;
    }
  }
}

function modifierWords(m: HeaderModifier): string {
  const parts: string[] = [];
  if (m.set.length) parts.push(`sets ${m.set.map((h) => h.name).join(', ')}`);
  if (m.add.length) parts.push(`adds ${m.add.map((h) => h.name).join(', ')}`);
  if (m.remove.length) parts.push(`removes ${m.remove.join(', ')}`);
  return parts.join(', ');
}

function redirectOf(r: NonNullable<CompiledFilter['requestRedirect']>, s: FlowState, input: ActionInput): ResolveRedirect {
  const listenerScheme = input.listener.protocol === 'HTTPS' ? 'https' : 'http';
  const scheme = r.scheme ?? listenerScheme;
  let port: number | undefined;
  if (r.port) port = r.port;
  else if (r.scheme) port = r.scheme === 'https' ? 443 : 80;
  else port = input.listener.port;
  if ((scheme === 'http' && port === 80) || (scheme === 'https' && port === 443)) port = undefined;
  let path = s.path;
  if (r.path) path = r.path.type === 'ReplaceFullPath' ? r.path.value : replacePrefix(s.path, input.matchedPrefix ?? '/', r.path.value);
  return {
    scheme,
    hostname: r.hostname ?? s.host,
    ...(port !== undefined ? { port } : {}),
    path,
    statusCode: r.statusCode,
  };
}

function locationOf(r: ResolveRedirect, rawQuery?: string): string {
  return `${r.scheme}://${r.hostname}${r.port !== undefined ? `:${r.port}` : ''}${r.path}${rawQuery ? `?${rawQuery}` : ''}`;
}

function corsHeaders(c: CompiledCORS, req: NormalizedRequest, preflight: boolean): HeaderMap {
  const origin = req.headers['origin'];
  const out: HeaderMap = {};
  if (origin === undefined || !originAllowed(c.allowOrigins, origin)) return out;
  const cred = c.allowCredentials;
  out['access-control-allow-origin'] = origin;
  out['vary'] = 'Origin';
  if (cred) out['access-control-allow-credentials'] = 'true';
  if (c.exposeHeaders.length) {
    if (!c.exposeHeaders.includes('*')) out['access-control-expose-headers'] = c.exposeHeaders.join(', ');
    else if (!cred) out['access-control-expose-headers'] = '*';
  }
  if (!preflight) return out;
  const reqMethod = req.headers['access-control-request-method'];
  if (c.allowMethods.includes('*')) {
    if (!cred) out['access-control-allow-methods'] = '*';
    else if (reqMethod) out['access-control-allow-methods'] = reqMethod;
  } else if (c.allowMethods.length) out['access-control-allow-methods'] = c.allowMethods.join(', ');
  const reqHeaders = req.headers['access-control-request-headers'];
  if (c.allowHeaders.includes('*')) {
    if (!cred) out['access-control-allow-headers'] = '*';
    else if (reqHeaders) out['access-control-allow-headers'] = reqHeaders;
  } else if (c.allowHeaders.length) out['access-control-allow-headers'] = c.allowHeaders.join(', ');
  out['access-control-max-age'] = String(c.maxAge);
  return out;
}

function finishResponseHeaders(base: HeaderMap, s: FlowState, extra: HeaderMap): HeaderMap {
  let h = base;
  for (const m of s.responseModifiers) h = applyHeaderModifier(h, m);
  return sortedHeaders({ ...h, ...extra });
}

function cloneState(s: FlowState): FlowState {
  return { ...s, headers: { ...s.headers }, responseModifiers: [...s.responseModifiers], mirrors: [...s.mirrors], mirrorTargets: [...s.mirrorTargets] };
}

/** Picks a backend as a proxy would: r in [0,1) over the cumulative weights, in table order. */
/** How the proxy speaks to a usable backend, when not plain HTTP/1.1 (appProtocol, BackendTLSPolicy). */
function howReached(b: CompiledBackend, v: Visibility): string {
  const parts: string[] = [];
  if (b.appProtocol === 'kubernetes.io/h2c') parts.push('HTTP/2 cleartext');
  else if (b.appProtocol === 'kubernetes.io/ws') parts.push('WebSocket upgrades passed on');
  else if (b.appProtocol === 'kubernetes.io/wss') parts.push('WebSocket upgrades passed on over TLS');
  if (b.tls) parts.push(`over TLS with SNI ${b.tls.sni}${v.canRead(b.tls.policy.namespace) ? ` (BackendTLSPolicy ${b.tls.policy.namespace}/${b.tls.policy.name})` : ''}`);
  return parts.length ? `, ${parts.join(', ')}` : '';
}

export function pickBackend(backends: readonly CompiledBackend[], r: number): number | undefined {
  const total = backends.reduce((n, b) => n + Math.max(0, b.weight), 0);
  if (total <= 0) return undefined;
  let x = Math.min(Math.max(r, 0), 0.999999999999) * total;
  for (let i = 0; i < backends.length; i++) {
    const w = Math.max(0, backends[i].weight);
    if (x < w) return i;
    x -= w;
  }
  return backends.findLastIndex((b) => b.weight > 0);
}

/**
 * What the matched rule does with the request. A rule with an ExternalAuth filter first asks the
 * authorization server: what follows holds only when the server allows the request (resolve cannot
 * know its answer, so it names the server); an unusable server reference answers 500.
 */
export function runActions(input: ActionInput): ActionResult {
  const auth = input.rule.invalid ? undefined : input.rule.filters.find((f) => f.type === 'ExternalAuth')?.externalAuth;
  if (!auth) return runRuleActions(input);
  const v = input.visibility;
  const b = auth.backend;
  const externalAuth = { protocol: auth.protocol, backend: resolveBackend(b, b.weight, v), ...(auth.pathPrefix ? { pathPrefix: auth.pathPrefix } : {}),
    ...(auth.forwardBodyMaxSize ? { forwardBodyMaxSize: auth.forwardBodyMaxSize } : {}) };
  if (!b.valid) {
    const total = input.rule.backends.reduce((n, x) => n + Math.max(0, x.weight), 0);
    return {
      forwarded: false, statusCode: 500, responseHeaders: {}, externalAuth,
      backends: input.rule.backends.map((x) => resolveBackend(x, total, v)),
      explanation: [`The rule's ExternalAuth filter names ${backendWords(b, v)}, which is unusable (${b.reason}): the filter cannot be applied and is never skipped, so the gateway answers 500.`],
    };
  }
  const rest = runRuleActions(input);
  return {
    ...rest, externalAuth, externalAuthConfig: auth,
    explanation: [`The rule's ExternalAuth filter first asks ${backendWords(b, v)} (${auth.protocol === 'GRPC' ? 'Envoy ext_authz gRPC Check' : `HTTP, path prefix ${auth.pathPrefix ?? 'none'}`}) whether to let the request through: a denial's status, headers and body go to the client, an unreachable server or no answer in ${auth.timeoutMs} ms is answered 403, and only an allowed request gets what follows.`, ...rest.explanation],
  };
}

function runRuleActions(input: ActionInput): ActionResult {
  const { rule, request: req, visibility: v } = input;
  const notes: string[] = [];
  const refused = input.refusal === 'connection' ? 'the connection is refused' : input.refusal === 'datagrams' ? 'the datagrams are dropped'
    : input.refusal === 'grpc' ? 'the gateway answers gRPC status Unavailable' : 'the gateway answers 500';
  const refusedShare = input.refusal === 'connection' ? 'are refused' : input.refusal === 'datagrams' ? 'are dropped'
    : input.refusal === 'grpc' ? 'are answered gRPC status Unavailable' : 'are answered 500';
  const s: FlowState = {
    headers: { ...req.headers },
    host: req.host,
    path: req.path,
    hostRewritten: false,
    pathRewritten: false,
    responseModifiers: [],
    mirrors: [],
    mirrorTargets: [],
  };
  const total = rule.backends.reduce((n, b) => n + Math.max(0, b.weight), 0);
  const backends: ResolveBackend[] = rule.backends.map((b) => resolveBackend(b, total, v));
  const base = (): ActionResult => ({ forwarded: false, backends, explanation: notes });
  const timeouts = rule.timeouts ? { timeouts: rule.timeouts } : {};

  if (rule.invalid) {
    notes.push(`The rule cannot be programmed (${rule.invalid.reason}: ${rule.invalid.message}); ${refused}.`);
    return { ...base(), statusCode: 500, responseHeaders: {} };
  }

  applyFilters(rule.filters, s, input, notes);
  const mirrors = s.mirrors.length ? { mirrors: s.mirrors } : {};

  const answerRedirect = (st: FlowState): ActionResult => {
    const r = st.redirect!;
    notes.push(`A RequestRedirect filter answers ${r.statusCode} with Location ${locationOf(r, req.rawQuery)}; the request is not forwarded.`);
    return {
      ...base(), ...mirrors, statusCode: r.statusCode, redirect: r,
      responseHeaders: finishResponseHeaders({}, st, { location: locationOf(r, req.rawQuery) }),
    };
  };
  if (s.redirect) return answerRedirect(s);

  const origin = req.headers['origin'];
  if (s.cors && origin !== undefined && req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    const h = corsHeaders(s.cors, req, true);
    notes.push(h['access-control-allow-origin']
      ? `A CORS preflight from ${origin}: the gateway answers it itself (200) and allows the origin.`
      : `A CORS preflight from ${origin}, an origin the CORS filter does not allow: the gateway answers 200 without CORS headers, so the browser will not send the request.`);
    return { ...base(), ...mirrors, statusCode: 200, responseHeaders: finishResponseHeaders({}, s, h) };
  }
  const corsExtra = s.cors ? corsHeaders(s.cors, req, false) : {};
  if (s.cors && origin !== undefined) {
    notes.push(corsExtra['access-control-allow-origin']
      ? `The CORS filter allows origin ${origin} and adds Access-Control-Allow-Origin to the answer.`
      : `The CORS filter does not allow origin ${origin}: the answer carries no CORS headers.`);
  }

  // backends
  const noBackend = input.refusal === 'grpc' ? { statusCode: 200, grpcStatus: 'Unavailable' as const } : { statusCode: 500 };
  const fail = (why: string): ActionResult => {
    notes.push(why);
    return { ...base(), ...mirrors, ...noBackend, responseHeaders: finishResponseHeaders({}, s, corsExtra), ...timeouts };
  };
  if (rule.backends.length === 0) return fail(`The rule has no backendRefs: ${refused}.`);
  if (total === 0) return fail(`Every backend of the rule has weight 0: no backend, ${refused}.`);
  const validWeight = rule.backends.reduce((n, b) => n + (b.valid ? Math.max(0, b.weight) : 0), 0);
  const describe = rule.backends.map((b) => `${backendWords(b, v)} weight ${b.weight}${b.valid ? ` (${b.endpoints.length} endpoint${b.endpoints.length === 1 ? '' : 's'}${howReached(b, v)})` : ` unusable: ${b.reason}${b.message && v.canRead(b.namespace) ? ` - ${b.message}` : ''}`}`);
  notes.push(`Backends: ${describe.join('; ')}.`);
  if (rule.retry) {
    const r = rule.retry;
    notes.push(`A failed attempt (${r.codes.length ? `status ${r.codes.join(', ')} or ` : ''}a connection error) is retried up to ${r.attempts} time${r.attempts === 1 ? '' : 's'}${r.backoffMs !== undefined ? `, ${r.backoffMs} ms apart` : ''}.`);
  }
  if (validWeight === 0) return fail(`No backend of the rule is usable: ${refused}.`);
  const rejectedShare = 1 - validWeight / total;

  let chosen: number | undefined;
  const kept = rule.sessionPersistence ? resumedSession(rule, req.headers, input.nowSeconds) : undefined;
  if (rule.sessionPersistence) {
    const sp = rule.sessionPersistence;
    notes.push(kept
      ? `The request's session cookie ${sp.cookieName} names ${backendWords(rule.backends[kept.index], v)}: the session is resumed there (weights apply to new sessions only).`
      : `The rule keeps sessions in cookie ${sp.cookieName} (${sp.lifetime === 'Permanent' ? `permanent, Max-Age ${sp.absoluteTimeoutSeconds ?? 86400} s` : 'a session cookie'}${sp.absoluteTimeoutSeconds !== undefined ? `, sessions end after ${sp.absoluteTimeoutSeconds} s` : ''}${sp.idleTimeoutSeconds !== undefined ? ` or ${sp.idleTimeoutSeconds} s unused` : ''}); the request presents no usable one, so a new session begins on a backend chosen by weight and the answer sets the cookie.`);
  }
  if (kept) chosen = kept.index;
  else if (input.random !== undefined) chosen = pickBackend(rule.backends, input.random);
  else {
    const weighted = rule.backends.map((b, i) => [b, i] as const).filter(([b]) => b.weight > 0);
    if (weighted.length === 1) chosen = weighted[0][1];
  }
  if (chosen !== undefined && !rule.backends[chosen].valid) {
    return { ...fail(`This request falls on the share of ${backendWords(rule.backends[chosen], v)}, which is unusable (${rule.backends[chosen].reason}): ${refused}.`), chosenBackend: chosen, ...(rejectedShare > 0 ? { rejectedShare } : {}) };
  }
  if (rejectedShare > 0) notes.push(`${percent(rejectedShare)} of the ${input.refusal === 'http' || input.refusal === 'grpc' || !input.refusal ? 'requests' : input.refusal === 'datagrams' ? 'datagrams' : 'connections'} fall on unusable backends and ${refusedShare}; the rest are forwarded.`);

  // per-backend filters
  for (let i = 0; i < rule.backends.length; i++) {
    const b = rule.backends[i];
    if (!b.filters?.length) continue;
    const bs = cloneState(s);
    applyFilters(b.filters, bs, input, []);
    backends[i].requestHeaders = sortedHeaders(bs.headers);
    backends[i].responseHeaders = finishResponseHeaders({ ...req.backendResponseHeaders }, bs, corsExtra);
    if (bs.redirect) backends[i].redirect = bs.redirect;
    const rw = rewriteOf(bs);
    if (rw) backends[i].rewrite = rw;
  }
  let final = s;
  if (chosen !== undefined && rule.backends[chosen].filters?.length) {
    final = cloneState(s);
    applyFilters(rule.backends[chosen].filters!, final, input, notes);
    if (final.redirect) return { ...answerRedirect(final), chosenBackend: chosen };
  }
  const rewrite = rewriteOf(final);
  if (rewrite) notes.push(`The backend receives ${[rewrite.hostname ? `Host ${rewrite.hostname}` : '', rewrite.path ? `path ${rewrite.path}` : ''].filter(Boolean).join(' and ')} (URLRewrite).`);
  if (chosen === undefined) notes.push('Which backend serves a request is decided per request by weight.');
  return {
    forwarded: true,
    respond: (backend) => finishResponseHeaders(backend, final, corsExtra),
    ...(chosen !== undefined ? { target: rule.backends[chosen] } : {}),
    ...(final.mirrorTargets.length ? { mirrorTargets: final.mirrorTargets } : {}),
    ...(rule.retry ? { retry: rule.retry } : {}),
    ...(rule.sessionPersistence ? { session: { cookieName: rule.sessionPersistence.cookieName, lifetime: rule.sessionPersistence.lifetime, resumed: !!kept } } : {}),
    ...(kept ? { sessionValue: kept.value } : {}),
    ...(rule.sessionPersistence ? { sessionPersistence: rule.sessionPersistence } : {}),
    backends,
    ...(chosen !== undefined ? { chosenBackend: chosen } : {}),
    ...(rejectedShare > 0 ? { rejectedShare } : {}),
    ...(rewrite ? { rewrite } : {}),
    requestHeaders: sortedHeaders(final.headers),
    responseHeaders: finishResponseHeaders({ ...req.backendResponseHeaders }, final, corsExtra),
    ...(final.mirrors.length ? { mirrors: final.mirrors } : {}),
    ...timeouts,
    explanation: notes,
  };
}

/**
 * The backend the request's session cookie keeps it on: one still in the rule, usable and weighted,
 * the session within its timeouts (when the caller has a clock).
 */
function resumedSession(rule: CompiledRule, headers: HeaderMap, nowSeconds: number | undefined): { index: number; value: SessionValue } | undefined {
  const sp = rule.sessionPersistence!;
  const value = decodeSession(cookieValue(headers.cookie, sp.cookieName));
  if (!value || (nowSeconds !== undefined && !sessionAlive(sp, value, nowSeconds))) return undefined;
  const index = rule.backends.findIndex((b) => b.valid && b.weight > 0 && backendKeyOf(b) === value.backend);
  return index < 0 ? undefined : { index, value };
}


function rewriteOf(s: FlowState): { hostname?: string; path?: string } | undefined {
  if (!s.hostRewritten && !s.pathRewritten) return undefined;
  return { ...(s.hostRewritten ? { hostname: s.host } : {}), ...(s.pathRewritten ? { path: s.path } : {}) };
}
