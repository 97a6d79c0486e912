// resolve() on compiled tables: decisions and their explanation, hostile input, weights, answers.
import { describe, expect, it } from 'vitest';
import { compileGateway, type CompiledTable } from '../../src/core/compile';
import type { BackendResolution, GatewayAttachment, World } from '../../src/core/model/world';
import { pickBackend, resolve } from '../../src/core/resolve';

const world: World = {
  gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [], endpointSlices: [],
  secrets: [], configMaps: [],
};
function resolver(route: any, ref: any): BackendResolution {
  const namespace = ref.namespace ?? route.metadata.namespace;
  const base = { group: '', kind: 'Service', namespace, name: ref.name, port: ref.port, weight: ref.weight ?? 1, ref, endpoints: [] as any[] };
  if (String(ref.name).startsWith('missing')) return { ...base, valid: false, reason: 'BackendNotFound', message: 'does not exist' };
  return { ...base, valid: true, endpoints: [{ address: '10.0.0.1', port: ref.port ?? 80 }] };
}
const gw = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra' }, spec: {} } as any;

let serial = 0;
function route(kind: string, name: string, spec: any, extra: { ns?: string; ts?: string } = {}): any {
  return { apiVersion: 'gateway.networking.k8s.io/v1', kind, metadata: { name, namespace: extra.ns ?? 'apps', creationTimestamp: extra.ts ?? new Date(Date.UTC(2026, 0, 1, 0, 0, serial++)).toISOString() }, spec };
}

function table(listeners: { listener: any; routes: any[]; valid?: boolean }[], rejected: GatewayAttachment['rejected'] = []): CompiledTable {
  const att: GatewayAttachment = {
    gateway: gw,
    rejected,
    listeners: listeners.map((l) => ({
      listener: l.listener,
      valid: l.valid ?? true,
      routes: l.routes.map((r) => ({ kind: r.kind, route: r, parentRefIndex: 0, hostnames: r.spec.hostnames ?? [] })),
    })),
  };
  return compileGateway(att, world, { resolveBackendRef: resolver as any });
}

const HTTP = { name: 'http', port: 80, protocol: 'HTTP' };

describe('resolve: which rule and why', () => {
  const web = route('HTTPRoute', 'web', {
    rules: [
      { backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ headers: [{ name: 'x-internal', value: 'yes' }] }], backendRefs: [{ name: 'web-internal', port: 80 }] },
      { matches: [{ path: { value: '/api' } }], backendRefs: [{ name: 'api-stable', port: 80, weight: 90 }, { name: 'api-canary', port: 80, weight: 10 }] },
    ],
  }, { ns: 'team-a' });
  const admin = route('HTTPRoute', 'admin', { rules: [{ matches: [{ path: { value: '/api/admin' }, headers: [{ name: 'x-internal', value: 'yes' }] }], backendRefs: [{ name: 'attacker', port: 80 }] }] }, { ns: 'team-b' });
  const t = table([{ listener: HTTP, routes: [web] }], [{ kind: 'HTTPRoute', route: admin, parentRefIndex: 0, reason: 'NotAllowedByListeners', message: 'namespace team-b is not admitted' }]);

  it('names the step and the figures: "path 4" beats "path 1"', () => {
    const res = resolve(t, { path: '/api/users' });
    expect(res).toMatchObject({ matched: true, forwarded: true, ruleIndex: 2, decidedBy: 'prefixLength' });
    expect(res.explanation.join('\n')).toContain('path 4 (/api) against path 1 (/)');
    expect(res.backends.map((b) => [b.name, b.weight, b.share])).toEqual([['api-stable', 90, 0.9], ['api-canary', 10, 0.1]]);
    expect(res.chosenBackend).toBeUndefined();
  });

  it('"path 1, header 1" beats "path 1" at the headers step', () => {
    const res = resolve(t, { path: '/', headers: { 'X-Internal': 'yes' } });
    expect(res).toMatchObject({ ruleIndex: 1, decidedBy: 'headers' });
    expect(res.explanation.join('\n')).toContain('matches with path 1, header 1');
    expect(res.candidates).toEqual([expect.objectContaining({ ruleIndex: 0, lostAt: 'headers' })]);
  });

  it('says that a better-matching route is not attached, and why', () => {
    const res = resolve(t, { path: '/api/admin/reset', headers: { 'x-internal': 'yes' } });
    expect(res.route).toEqual({ kind: 'HTTPRoute', namespace: 'team-a', name: 'web' });
    expect(res.unattached).toEqual([{ route: { kind: 'HTTPRoute', namespace: 'team-b', name: 'admin' }, ruleIndex: 0, reason: 'NotAllowedByListeners', message: 'namespace team-b is not admitted', better: true }]);
    expect(res.explanation.join('\n')).toMatch(/HTTPRoute team-b\/admin would match better \(path 10, header 1\) but is not attached.*NotAllowedByListeners/);
  });

  it('names routes in namespaces the caller may not read only as "a route in another namespace"', () => {
    const res = resolve(t, { path: '/api/admin/reset', headers: { 'x-internal': 'yes' } }, { canRead: (ns) => ns !== 'team-b' });
    expect(res.unattached?.[0].route).toEqual({ kind: 'HTTPRoute', redacted: true });
    const text = res.explanation.join('\n');
    expect(text).toContain('A route in another namespace would match better');
    expect(text).not.toContain('team-b');
    expect(text).not.toContain('admin');
    const hidden = resolve(t, { path: '/' }, { canRead: () => false });
    expect(hidden.route).toEqual({ kind: 'HTTPRoute', redacted: true });
    expect(hidden.backends[0].name).toBeUndefined();
    expect(JSON.stringify(hidden)).not.toContain('team-a');
  });

  it('takes unattached routes from the context when the table has none', () => {
    const bare = { ...t, unattached: [] };
    expect(resolve(bare, { path: '/api/admin', headers: { 'x-internal': 'yes' } }).unattached).toBeUndefined();
    const res = resolve(bare, { path: '/api/admin', headers: { 'x-internal': 'yes' } }, { unattached: t.unattached });
    expect(res.unattached?.[0].better).toBe(true);
  });

  it('picks one backend by weight given a random number, as a proxy would', () => {
    expect(resolve(t, { path: '/api' }, { random: 0.0 }).chosenBackend).toBe(0);
    expect(resolve(t, { path: '/api' }, { random: 0.899 }).chosenBackend).toBe(0);
    expect(resolve(t, { path: '/api' }, { random: 0.9 }).chosenBackend).toBe(1);
    const n = 20_000;
    let canary = 0;
    for (let i = 0; i < n; i++) if (resolve(t, { path: '/api' }, { random: Math.random() }).chosenBackend === 1) canary++;
    expect(Math.abs(canary / n - 0.1)).toBeLessThan(0.01);
  });

  it('does not change the table it reads', () => {
    const before = JSON.stringify(t);
    deepFreeze(t);
    resolve(t, { path: '/api/admin', headers: { 'x-internal': 'yes' }, backendResponseHeaders: { a: 'b' } }, { random: 0.5 });
    expect(JSON.stringify(t)).toBe(before);
  });
});

describe('resolve: hostile and malformed input', () => {
  const hostile = route('HTTPRoute', 'hostile', {
    rules: [
      { matches: [{ path: { type: 'RegularExpression', value: '(a+)+$' } }], backendRefs: [{ name: 'svc', port: 80 }] },
      { matches: [{ path: { value: '/h' }, headers: [{ type: 'RegularExpression', name: 'x', value: '(x+x+)+y' }] }], backendRefs: [{ name: 'svc', port: 80 }] },
      { matches: [{ path: { value: '/q' }, queryParams: [{ type: 'RegularExpression', name: 'q', value: '(.*a){20}' }] }], backendRefs: [{ name: 'svc', port: 80 }] },
    ],
  });
  const t = table([{ listener: HTTP, routes: [hostile] }]);

  // how long these take is measured by npm run bench:hostile
  it('(a+)+$ on a long input answers (linear-time matching, no backtracking)', () => {
    const res = resolve(t, { path: 'a'.repeat(100_000) + 'b' });
    expect(res.statusCode).toBe(404);
    const ok = resolve(t, { path: 'a'.repeat(100_000) });
    expect(ok.ruleIndex).toBe(0);
  });

  it('catastrophic header and query patterns answer', () => {
    expect(resolve(t, { path: '/h', headers: { x: 'x'.repeat(50_000) } }).statusCode).toBe(404);
    expect(resolve(t, { path: '/q', rawQuery: `q=${'a'.repeat(19)}${'b'.repeat(50_000)}` }).statusCode).toBe(404);
  });

  it('a table carrying a pattern RE2 rejects does not crash the matcher', () => {
    const bad = structuredClone(t);
    bad.listeners[0].httpRoutes![0].match.path.value = '(?=lookahead)';
    expect(() => resolve(bad, { path: '/x' })).not.toThrow();
    expect(resolve(bad, { path: 'lookahead' }).statusCode).toBe(404);
  });

  it('an empty or odd request still gets an answer', () => {
    expect(resolve(t, {} as any)).toMatchObject({
      matched: false, forwarded: false, statusCode: 404,
      explanation: [
        'Listener "http" (port 80, HTTP, any hostname) takes the request: it is the only one on port 80.',
        'No rule on listener "http" matches GET /: the gateway answers 404.',
      ],
    });
    expect(resolve(t, { protocol: 'SCTP' } as any).connectionRejected).toBe(true);
    expect(resolve(t, { port: 9, protocol: 'HTTP' }).connectionRejected).toBe(true);
    expect(resolve(t, { path: '/%zz?%%=1&&=', headers: { X: '1' } }).matched).toBe(false);
  });
});

describe('resolve: answers the gateway gives itself', () => {
  const https = (name: string, hostname?: string) => ({ name, port: 443, protocol: 'HTTPS', ...(hostname ? { hostname } : {}), tls: { certificateRefs: [{ name: 'cert' }] } });
  const one = route('HTTPRoute', 'one', { hostnames: ['example.org'], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] });
  const two = route('HTTPRoute', 'two', { rules: [{ backendRefs: [{ name: 'two', port: 80 }] }] });
  const t = table([{ listener: https('https'), routes: [one] }, { listener: https('second', 'second.example.org'), routes: [two] }]);

  it('421 when the Host selects another HTTPS listener than the SNI did', () => {
    expect(resolve(t, { protocol: 'HTTPS', hostname: 'second.example.org', sni: 'example.org', path: '/' })).toMatchObject({ statusCode: 421, forwarded: false, listener: 'https' });
    expect(resolve(t, { protocol: 'HTTPS', hostname: 'second.example.org', path: '/' })).toMatchObject({ forwarded: true, listener: 'second' });
    expect(resolve(t, { protocol: 'https', hostname: 'example.org:443', path: '/' })).toMatchObject({ forwarded: true, route: { name: 'one' } });
  });

  it('redirects carry scheme, host, port (absent for the default) and path', () => {
    const r = route('HTTPRoute', 'r', { rules: [
      { matches: [{ path: { value: '/a' } }], filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'http' } }] },
      { matches: [{ path: { value: '/b' } }], filters: [{ type: 'RequestRedirect', requestRedirect: { port: 8443, path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/c' } } }] },
    ] });
    const tt = table([{ listener: https('https'), routes: [r] }]);
    expect(resolve(tt, { protocol: 'HTTPS', hostname: 'x.test', path: '/a/1' }).redirect).toEqual({ scheme: 'http', hostname: 'x.test', path: '/a/1', statusCode: 302 });
    const b = resolve(tt, { protocol: 'HTTPS', hostname: 'x.test', path: '/b/1', rawQuery: 'k=v' });
    expect(b.redirect).toEqual({ scheme: 'https', hostname: 'x.test', port: 8443, path: '/c/1', statusCode: 302 });
    expect(b.responseHeaders?.location).toBe('https://x.test:8443/c/1?k=v');
    expect(b.forwarded).toBe(false);
  });

  it('answers a CORS preflight itself and decorates simple requests', () => {
    const c = route('HTTPRoute', 'c', { rules: [{ filters: [{ type: 'CORS', cors: { allowOrigins: ['https://*.example.com'], allowMethods: ['GET', 'PUT'], allowCredentials: true } }], backendRefs: [{ name: 'svc', port: 80 }] }] });
    const tt = table([{ listener: HTTP, routes: [c] }]);
    const pre = resolve(tt, { method: 'OPTIONS', path: '/', headers: { origin: 'https://a.example.com', 'access-control-request-method': 'PUT' } });
    expect(pre).toMatchObject({ forwarded: false, statusCode: 200 });
    expect(pre.responseHeaders).toMatchObject({ 'access-control-allow-origin': 'https://a.example.com', 'access-control-allow-methods': 'GET, PUT', 'access-control-allow-credentials': 'true', 'access-control-max-age': '5' });
    const simple = resolve(tt, { method: 'GET', path: '/', headers: { origin: 'https://evil.test' } });
    expect(simple.forwarded).toBe(true);
    expect(simple.responseHeaders?.['access-control-allow-origin']).toBeUndefined();
  });

  it('rejects the share of invalid backends: 500 when the draw falls on one', () => {
    const w = route('HTTPRoute', 'w', { rules: [{ backendRefs: [{ name: 'ok', port: 80, weight: 1 }, { name: 'missing', port: 80, weight: 3 }] }] });
    const tt = table([{ listener: HTTP, routes: [w] }]);
    expect(resolve(tt, { path: '/' })).toMatchObject({ forwarded: true, rejectedShare: 0.75 });
    expect(resolve(tt, { path: '/' }, { random: 0.1 })).toMatchObject({ forwarded: true, chosenBackend: 0 });
    expect(resolve(tt, { path: '/' }, { random: 0.5 })).toMatchObject({ forwarded: false, statusCode: 500, chosenBackend: 1 });
  });
});

describe('resolve: gRPC, TLS, TCP, UDP', () => {
  it('gRPC without a matching rule is Unimplemented', () => {
    const g = route('GRPCRoute', 'g', { rules: [{ matches: [{ method: { service: 'a.A', method: 'M' } }], backendRefs: [{ name: 'svc', port: 80 }] }] });
    const t = table([{ listener: HTTP, routes: [g] }]);
    expect(resolve(t, { protocol: 'GRPC', path: '/a.A/M' })).toMatchObject({ forwarded: true, route: { name: 'g' } });
    expect(resolve(t, { protocol: 'GRPC', path: '/a.A/N' })).toMatchObject({ forwarded: false, grpcStatus: 'Unimplemented' });
  });

  it('TCP: the oldest route carries the connection; UDP to an invalid backend is dropped', () => {
    const older = route('TCPRoute', 'z-older', { rules: [{ backendRefs: [{ name: 'db', port: 5432 }] }] }, { ts: '2026-01-01T00:00:00.000Z' });
    const newer = route('TCPRoute', 'a-newer', { rules: [{ backendRefs: [{ name: 'db2', port: 5432 }] }] }, { ts: '2026-01-01T00:00:01.000Z' });
    const udp = route('UDPRoute', 'dns', { rules: [{ backendRefs: [{ name: 'missing-dns', port: 53 }] }] });
    const t = table([
      { listener: { name: 'tcp', port: 5432, protocol: 'TCP' }, routes: [newer, older] },
      { listener: { name: 'udp', port: 53, protocol: 'UDP' }, routes: [udp] },
    ]);
    expect(resolve(t, { protocol: 'TCP', port: 5432 })).toMatchObject({ forwarded: true, route: { name: 'z-older' }, decidedBy: 'creationTimestamp' });
    const u = resolve(t, { protocol: 'UDP', port: 53 });
    expect(u).toMatchObject({ matched: true, forwarded: false, connectionRejected: true });
    expect(u.statusCode).toBeUndefined();
  });

  it('TLS passthrough by SNI; an unknown SNI is refused', () => {
    const tls = route('TLSRoute', 'tls', { hostnames: ['abc.example.com'], rules: [{ backendRefs: [{ name: 'tls', port: 443 }] }] });
    const t = table([{ listener: { name: 'tls', port: 443, protocol: 'TLS', tls: { mode: 'Passthrough' } }, routes: [tls] }]);
    expect(resolve(t, { protocol: 'TLS', sni: 'abc.example.com' })).toMatchObject({ forwarded: true, listener: 'tls' });
    expect(resolve(t, { protocol: 'TLS', sni: 'x.example.com' })).toMatchObject({ forwarded: false, connectionRejected: true });
  });
});

describe('pickBackend', () => {
  it('walks the cumulative weights in table order, skipping weight 0', () => {
    const b = (weight: number) => ({ weight }) as any;
    expect(pickBackend([b(0), b(1), b(1)], 0)).toBe(1);
    expect(pickBackend([b(0), b(1), b(1)], 0.5)).toBe(2);
    expect(pickBackend([b(0), b(1), b(0)], 0.9999999)).toBe(1);
    expect(pickBackend([b(0), b(0)], 0.5)).toBeUndefined();
  });
});

function deepFreeze(o: any): void {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
}
