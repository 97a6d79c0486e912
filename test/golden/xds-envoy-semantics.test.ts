// The Envoy translation means what the reference proxy does: for every request the golden cases
// (test/golden/cases and test/golden/xds-envoy) list, a model of how Envoy's listener, filter
// chain, virtual host and route matching (as Envoy's documentation states them) picks an answer
// from the resources, and resolve's decision for the same request - the one the reference proxy
// acts on - must agree: the same route entry, or the same answer (404, 421, 500, a redirect's
// Location, a refused connection), and the same weighted split with the same share answered 500.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { phasesOf, runCase } from './runner';
import { envoyResources, type EnvoyResources } from '../../src/core/xds/envoy';
import { decide } from '../../src/core/resolve';
import type { CompiledTable } from '../../src/core/compile';
import { UNUSABLE_CLUSTER } from '../../src/core/xds/names';
import { regexFullMatch } from '../../src/core/match/regex';

const here = dirname(fileURLToPath(import.meta.url));
const files = [
  ...readdirSync(join(here, 'cases')).filter((f) => f.endsWith('.in.yaml')).map((f) => join(here, 'cases', f)),
  ...readdirSync(join(here, 'xds-envoy')).filter((f) => f.endsWith('.in.yaml')).map((f) => join(here, 'xds-envoy', f)),
];

type M = Record<string, any>;
interface Req { port?: number; protocol?: string; hostname?: string; sni?: string; path?: string; method?: string; headers?: Record<string, string>; query?: Record<string, string>; rawQuery?: string; gateway?: string }

/** Envoy's order of host patterns: exact, then the longest "*." suffix, then "*" (or no names). */
function bestPattern<T>(items: T[], patternsOf: (t: T) => string[] | null, host: string): T | undefined {
  let best: T | undefined;
  let rank = -1;
  for (const it of items) {
    const ps = patternsOf(it);
    for (const p of ps ?? ['*']) {
      let r = -1;
      if (p === '*') r = 0;
      else if (p.startsWith('*.')) r = host.endsWith(p.slice(1)) && host.length > p.length - 1 ? p.length : -1;
      else if (p === host) r = 100_000;
      if (r > rank) { rank = r; best = it; }
    }
  }
  return best;
}

// RE2, as Envoy's safe_regex is (a JavaScript RegExp would backtrack for ever on some cases' patterns)
const full = (re: string, s: string) => regexFullMatch(re, s);
function stringMatch(m: M, v: string | undefined): boolean {
  if (v === undefined) return false;
  if (m.exact !== undefined) return v === m.exact;
  if (m.prefix !== undefined) return v.startsWith(m.prefix);
  if (m.safe_regex) return full(m.safe_regex.regex, v);
  throw new Error(`matcher ${JSON.stringify(m)}`);
}

function routeMatches(m: M, r: { path: string; method: string; headers: Record<string, string>; query: Record<string, string>; grpc: boolean }): boolean {
  if (m.grpc && !r.grpc) return false;
  if (m.path !== undefined && r.path !== m.path) return false;
  if (m.prefix !== undefined && !r.path.startsWith(m.prefix)) return false;
  if (m.path_separated_prefix !== undefined && !(r.path === m.path_separated_prefix || r.path.startsWith(`${m.path_separated_prefix}/`))) return false;
  if (m.safe_regex && !full(m.safe_regex.regex, r.path)) return false;
  for (const h of m.headers ?? []) if (!stringMatch(h.string_match, h.name === ':method' ? r.method : r.headers[h.name.toLowerCase()])) return false;
  for (const q of m.query_parameters ?? []) if (!stringMatch(q.string_match, r.query[q.name])) return false;
  return true;
}

type Outcome =
  | { kind: 'refused' }
  | { kind: 'status'; status: number }
  | { kind: 'redirect'; location: M }
  | { kind: 'route'; name: string; shares: Map<string, number>; auth?: M; sessionCookie?: string };

function shares(clusters: { name: string; weight: number }[]): Map<string, number> {
  const total = clusters.reduce((n, c) => n + c.weight, 0);
  const out = new Map<string, number>();
  for (const c of clusters) out.set(c.name, (out.get(c.name) ?? 0) + c.weight / total);
  return out;
}

/** What Envoy does with the request, read off the resources. */
function envoyAnswer(r: EnvoyResources, table: CompiledTable, req: Req, protocol: string): Outcome {
  const gw = table.gateway;
  const l = r.listener.get(`${gw.namespace}/${gw.name}/${req.port}${protocol === 'udp' ? '/udp' : ''}`) as M | undefined;
  if (!l) return { kind: 'refused' };
  if (protocol === 'udp') {
    const cluster = l.listener_filters[0].typed_config.matcher.on_no_match.action.typed_config.cluster;
    return cluster === UNUSABLE_CLUSTER ? { kind: 'refused' } : { kind: 'route', name: 'udp', shares: new Map([[cluster, 1]]) };
  }
  const host = (req.hostname ?? '').toLowerCase().replace(/:\d+$/, '');
  const tlsFamily = l.listener_filters?.some((f: M) => f.name === 'envoy.filters.listener.tls_inspector');
  let chain: M | undefined;
  if (tlsFamily) {
    // every chain of a TLS-family port asks for TLS: a plaintext connection matches none
    if (protocol === 'http' || (protocol === 'grpc' && !req.sni)) return { kind: 'refused' };
    const sni = (req.sni ?? host).toLowerCase();
    chain = bestPattern(l.filter_chains as M[], (c) => c.filter_chain_match.server_names ?? null, sni);
  } else chain = l.filter_chains[0];
  if (!chain) return { kind: 'refused' };
  const f = chain.filters[0].typed_config;
  if (f.cluster || f.weighted_clusters) {
    const cs = f.cluster ? [{ name: f.cluster, weight: 1 }] : f.weighted_clusters.clusters;
    if (cs.length === 1 && cs[0].name === UNUSABLE_CLUSTER) return { kind: 'refused' };
    return { kind: 'route', name: 'stream', shares: shares(cs) };
  }
  const rc = r.route.get(f.rds.route_config_name) as M;
  const vh = bestPattern(rc.virtual_hosts as M[], (v) => v.domains, host);
  if (!vh) return { kind: 'status', status: 404 };
  const lower = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const grpc = protocol === 'grpc';
  if (grpc) lower['content-type'] = 'application/grpc';
  const query: Record<string, string> = { ...(req.query ?? {}) };
  const [raw, inPath] = (req.path ?? '/').split('?');
  // an HTTP request's path is never empty: a client sends "/" (resolve reads "" so)
  const path = raw || '/';
  for (const part of (req.rawQuery ?? inPath ?? '').split('&').filter(Boolean)) {
    const [k, v = ''] = part.split('=');
    if (!(decodeURIComponent(k) in query)) query[decodeURIComponent(k)] = decodeURIComponent(v);
  }
  // a gRPC call is a POST (resolve reads a GRPC request without a method so)
  const route = (vh.routes as M[]).find((x) => routeMatches(x.match, { path, method: (req.method ?? (grpc ? 'POST' : 'GET')).toUpperCase(), headers: lower, query, grpc }));
  if (!route) return { kind: 'status', status: 404 };
  if (route.direct_response) return { kind: 'status', status: route.direct_response.status };
  if (route.redirect) return { kind: 'redirect', location: route.redirect };
  const a = route.route;
  const cs: { name: string; weight: number }[] = a.cluster ? [{ name: a.cluster, weight: 1 }] : a.weighted_clusters.clusters.map((c: M) => ({ name: c.name, weight: c.weight.value }));
  // the HTTP filters that act on the route: those not disabled by default, and those the route's per-filter config enables
  const perRoute = (route.typed_per_filter_config ?? {}) as M;
  const acting = (f.http_filters as M[]).filter((x) => !x.disabled || perRoute[x.name]);
  const authz = acting.filter((x) => x.typed_config['@type'].endsWith('.ExtAuthz'));
  expect(authz.length, `${route.name}: at most one authorization server asked`).toBeLessThanOrEqual(1);
  const session = acting.some((x) => x.name === 'envoy.filters.http.stateful_session') ? perRoute['envoy.filters.http.stateful_session'] : undefined;
  return {
    kind: 'route', name: route.name, shares: shares(cs),
    ...(authz[0] ? { auth: authz[0].typed_config } : {}),
    ...(session ? { sessionCookie: session.stateful_session.session_state.typed_config.cookie.name } : {}),
  };
}

const KNOWN = new Set(['http', 'https', 'grpc', 'tls', 'tcp', 'udp']);

describe('Envoy answers as the reference proxy does', () => {
  let compared = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const { options, phases } = phasesOf(text);
    const requests = [...((options.requests ?? []) as Req[]), ...phases.flatMap((p) => (p.step.requests ?? []) as Req[])];
    if (requests.length === 0) continue;
    const name = file.slice(here.length + 1);
    it(name, async () => {
      const run = await runCase(text);
      for (const tables of run.compiled) {
        for (const [gwKey, table] of tables) {
          const r = envoyResources(table);
          for (const req0 of requests) {
            if (req0.gateway && req0.gateway !== gwKey) continue;
            const d = decide(table, req0 as never, { random: 0.5 });
            const port = req0.port ?? table.listeners.filter((l) => l.valid).map((l) => l.port).sort((a, b) => a - b)[0];
            const onPort = table.listeners.filter((l) => l.port === port && l.valid);
            let protocol = (req0.protocol ?? '').toLowerCase();
            if (!protocol) protocol = onPort.some((l) => l.protocol === 'UDP') ? 'udp' : onPort.some((l) => l.protocol === 'TCP') ? 'tcp' : onPort.some((l) => l.protocol === 'TLS') && !onPort.some((l) => l.protocol === 'HTTPS') ? 'tls' : onPort.some((l) => l.protocol === 'HTTPS') ? 'https' : 'http';
            if (!KNOWN.has(protocol)) continue;
            const req = { ...req0, port };
            const e = envoyAnswer(r, table, req, protocol);
            const what = `${gwKey} ${JSON.stringify(req0)}: resolve ${JSON.stringify({ s: d.statusCode, f: d.forwarded, rej: d.connectionRejected, route: d.route, rule: d.ruleIndex, m: d.matchIndex })}, envoy ${JSON.stringify(e, (_k, v) => (v instanceof Map ? [...v] : v))}`;
            compared++;
            if (d.connectionRejected) {
              expect(e.kind === 'refused' || (e.kind === 'status' && protocol !== 'tls' && protocol !== 'tcp'), what).toBe(true);
              continue;
            }
            if (protocol === 'tls' || protocol === 'tcp' || protocol === 'udp' || (e.kind === 'route' && e.name === 'stream')) {
              if (!d.forwarded && !d.matched) expect(e.kind, what).toBe('refused');
              else if (d.forwarded || (d.rejectedShare ?? 0) > 0) expect(e.kind, what).toBe('route');
              continue;
            }
            if (d.redirect) {
              expect(e.kind, what).toBe('redirect');
              continue;
            }
            if (d.route && d.ruleIndex !== null && e.kind === 'route') {
              expect(e.name, what).toBe(`${d.route.kind}/${d.route.namespace}/${d.route.name}/rule/${d.ruleIndex}/match/${d.matchIndex ?? 0}`);
              // the split: each usable backend's share, the rest on the unusable cluster
              const total = d.backends.reduce((n, b) => n + Math.max(0, b.weight), 0);
              const usable = d.backends.filter((b) => b.valid && b.weight > 0);
              let sum = 0;
              for (const [c, share] of e.shares) if (c !== UNUSABLE_CLUSTER) sum += share;
              expect(sum, what).toBeCloseTo(usable.reduce((n, b) => n + b.weight, 0) / total, 6);
              expect(e.shares.get(UNUSABLE_CLUSTER) ?? 0, what).toBeCloseTo(d.rejectedShare ?? 0, 6);
              // the same authorization server asked first (its cluster reads its endpoints), the same session cookie
              const auth = e.auth;
              if (d.externalAuth) {
                const server = auth?.grpc_service?.envoy_grpc.cluster_name ?? auth?.http_service?.server_uri.cluster;
                const b = d.externalAuth.backend;
                expect(server && (r.cluster.get(server) as M | undefined)?.eds_cluster_config.service_name, what).toBe(`${b.namespace}/${b.name}:${b.port}`);
                expect(auth?.grpc_service ? 'GRPC' : 'HTTP', what).toBe(d.externalAuth.protocol);
                expect(auth?.http_service?.path_prefix ?? '', what).toBe((d.externalAuth.pathPrefix ?? '').replace(/\/+$/, ''));
              } else expect(auth, what).toBeUndefined();
              expect(e.sessionCookie, what).toBe(d.session?.cookieName);
              continue;
            }
            // the gateway answers itself
            const status = d.grpcStatus === 'Unimplemented' ? 404 : d.grpcStatus === 'Unavailable' ? 503 : d.statusCode;
            if (status === 200 || status === 204) continue; // a CORS preflight: the CORS filter answers it before routing
            expect(e, what).toMatchObject({ kind: 'status', status });
          }
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  }
});
