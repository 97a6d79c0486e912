// Upstream blocks: the only part of the configuration that holds endpoints. Routes name upstreams
// by Service port (names.ts), so an endpoint-only change renders this file alone.
import type { CompiledBackend, CompiledEndpoint, CompiledTable } from '../compile/types';

export interface BackendRef {
  namespace: string;
  name: string;
  port?: number;
}

/** An http upstream: one Service port's endpoints, each listed `copies` times (see names.ts). */
export interface HttpUpstreamSpec {
  name: string;
  backend: BackendRef;
  copies: number;
}

/** A stream upstream: a rule's usable backends, each endpoint weighted by its backend's share. */
export interface StreamUpstreamSpec {
  name: string;
  members: { backend: BackendRef; weight: number }[];
}

export const backendKey = (b: BackendRef): string => `${b.namespace}/${b.name}:${b.port ?? ''}`;

/** Every backend's endpoints in these tables, mirrors' included. */
export function endpointsOf(tables: readonly CompiledTable[]): Map<string, CompiledEndpoint[]> {
  const out = new Map<string, CompiledEndpoint[]>();
  const take = (b: CompiledBackend) => {
    if (b.valid && !out.has(backendKey(b))) out.set(backendKey(b), b.endpoints);
  };
  for (const t of tables) {
    for (const r of t.rules) {
      for (const b of r.backends) {
        take(b);
        for (const f of b.filters ?? []) if (f.requestMirror) take(f.requestMirror.backend);
      }
      for (const f of r.filters) if (f.requestMirror) take(f.requestMirror.backend);
    }
  }
  return out;
}

const endpoint = (e: CompiledEndpoint): string => (e.address.includes(':') ? `[${e.address}]:${e.port}` : `${e.address}:${e.port}`);

export function renderHttpUpstreams(specs: readonly HttpUpstreamSpec[], endpoints: Map<string, CompiledEndpoint[]>, pinned: readonly string[] = []): string {
  const out: string[] = [];
  if (pinned.length) {
    // the endpoints a cookie session may still be kept on: the dispatch sets $sy_pin to
    // "backend|address:port" from the cookie and sends the request there only when this says 1
    out.push('map $sy_pin $sy_pin_ok {', '    default "";');
    for (const key of pinned) for (const e of endpoints.get(key) ?? []) out.push(`    "${key}|${endpoint(e)}" 1;`);
    out.push('}');
  }
  for (const s of specs) {
    const eps = endpoints.get(backendKey(s.backend)) ?? [];
    out.push(`upstream ${s.name} {`);
    // a failed endpoint is not taken out of rotation for a while: the next request may find it back
    for (let c = 0; c < s.copies; c++) for (const e of eps) out.push(`    server ${endpoint(e)} max_fails=0;`);
    if (eps.length === 0) out.push('    server unix:/nonexistent/switchyard-no-endpoints.sock down;');
    // idle connections kept per worker: enough for a busy route's concurrency, so that requests do not
    // open a connection each (nginx closes what exceeds the cache)
    out.push('    keepalive 256;', '    keepalive_requests 100000;', '}');
  }
  return out.join('\n') + (out.length ? '\n' : '');
}

export function renderStreamUpstreams(specs: readonly StreamUpstreamSpec[], endpoints: Map<string, CompiledEndpoint[]>): string {
  const out: string[] = [];
  for (const s of specs) {
    const servers: string[] = [];
    for (const m of s.members) {
      const eps = endpoints.get(backendKey(m.backend)) ?? [];
      // the backend's share is spread evenly over its endpoints
      for (const e of eps) servers.push(`    server ${endpoint(e)} weight=${Math.max(1, Math.round((m.weight * 100) / eps.length))} max_fails=0;`);
    }
    if (servers.length === 0) servers.push('    server unix:/nonexistent/switchyard-no-endpoints.sock down;');
    out.push(`upstream ${s.name} {`, ...servers, '}');
  }
  return out.join('\n') + (out.length ? '\n' : '');
}
