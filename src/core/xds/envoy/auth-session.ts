// ExternalAuth and cookie session persistence as Envoy HTTP filters. Envoy's ext_authz names its
// authorization server in the filter, not per route (ExtAuthzPerRoute's check_settings carries no
// server in the v3 protos we ship), so each distinct server configuration is an ext_authz filter
// instance of its own in the connection manager, disabled by default and enabled (an
// ExtAuthzPerRoute) on exactly the routes whose rule names it: a route never asks a server its rule
// does not name, and routes without the filter ask none. Cookie sessions are likewise one
// stateful_session filter, disabled by default, given each rule's cookie per route.
import type { CompiledExternalAuth, CompiledRule } from '../../compile';
import type { ClusterSet } from './clusters';
import { duration, type Msg } from './types';

export const EXT_AUTHZ = 'envoy.filters.http.ext_authz';
export const STATEFUL_SESSION = 'envoy.filters.http.stateful_session';
const T_EXT_AUTHZ = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz';
const T_EXT_AUTHZ_ROUTE = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute';
const T_SESSION = 'type.googleapis.com/envoy.extensions.filters.http.stateful_session.v3.StatefulSession';
const T_SESSION_ROUTE = 'type.googleapis.com/envoy.extensions.filters.http.stateful_session.v3.StatefulSessionPerRoute';
const T_COOKIE_STATE = 'type.googleapis.com/envoy.extensions.http.stateful_session.cookie.v3.CookieBasedSessionState';

type Note = (feature: string, effect: string) => void;

const names = (list: readonly string[]): Msg => ({ patterns: list.map((h) => ({ exact: h.toLowerCase(), ignore_case: true })) });

/** The ext_authz filter config for one server, meaning what the reference proxy does (src/proxy/external-auth.ts). */
function extAuthz(a: CompiledExternalAuth, cluster: string, note: Note): Msg {
  const timeout = duration(Math.max(1, a.timeoutMs));
  const out: Msg = {
    '@type': T_EXT_AUTHZ,
    transport_api_version: 'V3',
    // fail closed, answered 403 as the reference answers an unreachable or silent server
    failure_mode_allow: false,
    status_on_error: { code: 'Forbidden' },
  };
  if (a.protocol === 'GRPC') {
    out.grpc_service = { envoy_grpc: { cluster_name: cluster }, timeout };
  } else {
    const service: Msg = { server_uri: { uri: `http://${a.backend.name}.${a.backend.namespace}:${a.backend.port}`, cluster, timeout } };
    if (a.pathPrefix) service.path_prefix = a.pathPrefix.replace(/\/+$/, '');
    if (a.allowedResponseHeaders.length) service.authorization_response = { allowed_upstream_headers: names(a.allowedResponseHeaders) };
    else note('ExternalAuth HTTP without allowedResponseHeaders', 'Envoy sets on the request only the answer headers it is told by name: none are set (the reference sets all but the answer\'s own message headers)');
    out.http_service = service;
  }
  // empty: gRPC sends every header, HTTP Envoy's fixed set (Host, Method, Path, Content-Length, Authorization), as the reference does
  if (a.allowedHeaders.length) out.allowed_headers = names(a.allowedHeaders);
  if (a.forwardBodyMaxSize && a.forwardBodyMaxSize > 0) {
    // forwardBody: the body's first maxSize bytes; a longer body is sent truncated (the API's "must be
    // truncated"), not refused with 413; gRPC servers get it in attributes.request.http.body
    out.with_request_body = { max_request_bytes: a.forwardBodyMaxSize, allow_partial_message: true, pack_as_bytes: false };
    note('ExternalAuth forwardBody', `Envoy waits for the body as long as the stream's own timeouts allow (the reference answers 408 when it is not in within the filter's 2 s)${
      a.protocol === 'GRPC' ? ', and sends a body that is not UTF-8 in body as it came (the reference: in raw_body)' : ''}`);
  }
  return out;
}

/** The ext_authz filter instances routes enable, one per distinct server configuration. */
export class ExtAuthzSet {
  /** by filter name, its config */
  readonly filters = new Map<string, Msg>();

  constructor(private readonly clusters: ClusterSet) {}

  /** The filter name a rule's ExternalAuth enables (added if new); its server's cluster is sent. */
  of(a: CompiledExternalAuth, note: Note): string {
    const cluster = this.clusters.of(a.backend, { h2: a.protocol === 'GRPC' });
    const config = extAuthz(a, cluster, note);
    const key = JSON.stringify(config);
    const base = `${EXT_AUTHZ}/${cluster}`;
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base}/${n}`;
      const have = this.filters.get(name);
      if (!have) {
        this.filters.set(name, config);
        return name;
      }
      if (JSON.stringify(have) === key) return name;
    }
  }
}

/** The per-route config enabling an ext_authz instance that is disabled by default. */
export const extAuthzEnabled = (): Msg => ({ '@type': T_EXT_AUTHZ_ROUTE, check_settings: {} });

/** A rule's cookie session as the per-route stateful_session config (the filter is disabled by default elsewhere). */
export function sessionPerRoute(rule: CompiledRule, usableEntries: number, note: Note): Msg | undefined {
  const s = rule.sessionPersistence;
  if (!s) return undefined;
  const cookie: Msg = { name: s.cookieName, path: s.path };
  // Max-Age as the reference sets it (a day where a permanent cookie has no absolute timeout); none: a browser-session cookie
  if (s.lifetime === 'Permanent') cookie.ttl = duration((s.absoluteTimeoutSeconds ?? 86400) * 1000);
  if (s.idleTimeoutSeconds) note('sessionPersistence idleTimeout', 'Envoy\'s cookie session has no idle timeout: a session is kept while its endpoint is usable');
  if (s.absoluteTimeoutSeconds && s.lifetime !== 'Permanent') note('sessionPersistence absoluteTimeout on a Session cookie', 'Envoy bounds a session only by the cookie\'s Max-Age: a Session cookie\'s session is kept until the browser drops it');
  if (usableEntries > 1) note('sessionPersistence across several backends', 'Envoy picks the backend by weight first and keeps the session\'s endpoint only when that backend is picked again');
  return {
    '@type': T_SESSION_ROUTE,
    stateful_session: {
      session_state: { name: 'envoy.http.stateful_session.cookie', typed_config: { '@type': T_COOKIE_STATE, cookie } },
      // an endpoint that is gone starts a new session, as the reference does
      strict: false,
    },
  };
}

/**
 * The HTTP filters a route configuration's routes enable, to put before CORS (the reference asks
 * the authorization server before anything else of the rule, a preflight included): the ext_authz
 * instances, by name, then stateful_session; each disabled unless a route enables it.
 */
export function enabledFilters(auth: ExtAuthzSet, routeConfig: Msg): { first: Msg[]; beforeRouter: Msg[] } {
  const used = new Set<string>();
  for (const vh of (routeConfig.virtual_hosts as Msg[] | undefined) ?? []) {
    for (const r of (vh.routes as Msg[] | undefined) ?? []) for (const k of Object.keys((r.typed_per_filter_config as Msg | undefined) ?? {})) used.add(k);
  }
  const first = [...auth.filters].filter(([name]) => used.has(name)).sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, typed_config]) => ({ name, typed_config, disabled: true }));
  const beforeRouter = used.has(STATEFUL_SESSION) ? [{ name: STATEFUL_SESSION, typed_config: { '@type': T_SESSION }, disabled: true }] : [];
  return { first, beforeRouter };
}
