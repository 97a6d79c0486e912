// A Service port's DestinationProfile (Destination.GetProfile) from the mesh table of the client's
// namespace: its routes in the table's order (first match wins), each with its timeout and, when
// its rule retries, is_retryable and the retried statuses as failure classes; dst_overrides from
// the weights of the backends that serve the port's catch-all traffic.
//
// What a profile cannot say, by name: a profile's request match knows paths (a regular
// expression) and methods only, so an entry that also matches headers or query parameters is left
// out of `routes` (its requests then take the next route that matches); and a profile splits the
// whole destination, not one route, so dst_overrides come from the rule every request reaches when
// no other matches (a match of any path with no other condition), or from the backends every rule
// shares, and are empty when neither exists. OutboundPolicies carries all of it per rule.
import type { MeshTable } from '../mesh/types';
import type { components } from '../../generated/api';
import type { DestinationTarget } from './destination-path';
import { authorityOf } from './destination-path';
import { duration, meshPortOf, serviceRef, statusRanges } from './mesh-target';

type S = components['schemas'];
type Rule = S['CompiledRule'];
type Backend = S['CompiledBackend'];

/** Linkerd's own default budget: a fifth more load from retries, at least 10 a second, over 10 s. */
export const RETRY_BUDGET = { retry_ratio: 0.2, min_retries_per_second: 10, ttl: duration(10_000) };

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function httpPathRegex(path: { type: string; value: string }): string {
  if (path.type === 'RegularExpression') return path.value;
  if (path.type === 'Exact') return `^${escapeRe(path.value)}$`;
  const prefix = path.value.replace(/\/+$/, '');
  return prefix === '' ? '^/.*$' : `^${escapeRe(prefix)}(/.*)?$`;
}

function grpcPathRegex(m: S['CompiledGRPCMatch']): string {
  const part = (v: string | undefined) => (v === undefined ? '[^/]+' : m.type === 'RegularExpression' ? `(${v})` : escapeRe(v));
  return `^/${part(m.service)}/${part(m.method)}$`;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'HEAD', 'TRACE']);
const method = (m: string) => (METHODS.has(m) ? { registered: m } : { unregistered: m });

function catchAll(m: S['CompiledHTTPMatch']): boolean {
  return m.path.type === 'PathPrefix' && m.path.value.replace(/\/+$/, '') === '' && !m.method && !m.headers?.length && !m.queryParams?.length && !m.invalid;
}

function sameBackends(a: readonly Backend[], b: readonly Backend[]): boolean {
  const key = (x: readonly Backend[]) => JSON.stringify(x.map((k) => [k.kind, k.namespace, k.name, k.port, k.weight]));
  return key(a) === key(b);
}

export interface ProfileOptions { clusterDomain: string }

export function destinationProfile(table: MeshTable | undefined, target: DestinationTarget, opts: ProfileOptions): Record<string, unknown> {
  const found = table && meshPortOf(table, target);
  // not a Service of the mesh: the empty profile (no name, no routes), as the seed says
  if (!table || !found) return { fully_qualified_name: '', opaque_protocol: false, routes: [], dst_overrides: [] };
  const { service, port } = found;
  const rules = table.rules;
  const route = (r: Rule) => table.routes[r.route];
  const routes: Record<string, unknown>[] = [];
  const used: Rule[] = [];
  let fallback: Rule | undefined;
  const add = (rule: Rule, condition: Record<string, unknown>) => {
    const r = route(rule);
    const out: Record<string, unknown> = {
      condition,
      response_classes: rule.retry ? statusRanges(rule.retry.codes).map((range) => ({ condition: { status: range }, is_failure: true })) : [],
      metrics_labels: { route: r.name, route_namespace: r.namespace, route_kind: r.kind, rule: String(rule.index) },
      is_retryable: Boolean(rule.retry),
    };
    if (rule.timeouts?.requestMs) out.timeout = duration(rule.timeouts.requestMs);
    routes.push(out);
    used.push(rule);
  };
  for (const e of port.httpRoutes ?? []) {
    const m = e.match;
    if (m.invalid || m.headers?.length || m.queryParams?.length) continue;
    const rule = rules[e.rule];
    if (!fallback && catchAll(m)) fallback = rule;
    const path = { path: { regex: httpPathRegex(m.path) } };
    add(rule, m.method ? { all: { matches: [path, { method: method(m.method) }] } } : path);
  }
  for (const e of port.grpcRoutes ?? []) {
    const m = e.match;
    if (m.invalid || m.headers?.length) continue;
    const rule = rules[e.rule];
    if (!fallback && m.service === undefined && m.method === undefined) fallback = rule;
    add(rule, { all: { matches: [{ path: { regex: grpcPathRegex(m) } }, { method: { registered: 'POST' } }] } });
  }
  const split = fallback ?? (used.length && used.every((r) => sameBackends(r.backends, used[0].backends)) ? used[0] : undefined);
  const profile: Record<string, unknown> = {
    fully_qualified_name: `${service.name}.${service.namespace}.svc.${opts.clusterDomain}`,
    opaque_protocol: false,
    routes,
    dst_overrides: (split?.backends ?? []).map((b) => ({
      authority: authorityOf(b.namespace, b.name, b.port ?? 0, opts.clusterDomain),
      weight: b.weight,
      backend_ref: serviceRef(b.namespace, b.name, b.port),
    })),
    parent_ref: serviceRef(service.namespace, service.name, port.port),
  };
  if (used.some((r) => r.retry)) profile.retry_budget = RETRY_BUDGET;
  return profile;
}
