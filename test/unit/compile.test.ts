// compileGateway on hand-built attachments: ordering, flattening, flags, determinism, purity.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileGateway, type CompiledTable } from '../../src/core/compile';
import type { BackendResolution, GatewayAttachment, World } from '../../src/core/model/world';
import { estimateProgramSize, regexProblem } from '../../src/core/match/regex';

const world: World = {
  gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [], endpointSlices: [],
  secrets: [], configMaps: [],
};

/** A resolver that knows Services by name: "missing*" are not found, "empty*" have no endpoints. */
function resolver(route: any, ref: any): BackendResolution {
  const namespace = ref.namespace ?? route.metadata.namespace;
  const base = { group: ref.group ?? '', kind: ref.kind ?? 'Service', namespace, name: ref.name, port: ref.port, weight: ref.weight ?? 1, ref, endpoints: [] as { address: string; port: number }[] };
  if (String(ref.name).startsWith('missing')) return { ...base, valid: false, reason: 'BackendNotFound', message: `Service "${namespace}/${ref.name}" does not exist` };
  if (String(ref.name).startsWith('empty')) return { ...base, valid: false, reason: 'NoEndpoints', message: 'no ready endpoints' };
  return { ...base, valid: true, endpoints: [{ address: '10.0.0.2', port: ref.port }, { address: '10.0.0.1', port: ref.port }, { address: '10.0.0.2', port: ref.port }] };
}

const gw = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra' }, spec: {} } as any;
const listener = (name: string, extra: object = {}): any => ({ name, port: 80, protocol: 'HTTP', ...extra });

function http(name: string, ts: string, rules: any[], hostnames?: string[], ns = 'apps'): any {
  return { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name, namespace: ns, creationTimestamp: ts }, spec: { parentRefs: [{ name: 'gw' }], ...(hostnames ? { hostnames } : {}), rules } };
}

const routes = [
  http('root', '2026-01-01T00:00:00.000Z', [{ backendRefs: [{ name: 'web', port: 80 }] }]),
  http('api', '2026-01-02T00:00:00.000Z', [
    { matches: [{ path: { type: 'PathPrefix', value: '/api' } }], backendRefs: [{ name: 'api', port: 8080, weight: 3 }, { name: 'missing-api', port: 8080, weight: 1 }] },
    { matches: [{ path: { type: 'Exact', value: '/api' } }, { path: { type: 'PathPrefix', value: '/api/admin' }, method: 'POST' }], backendRefs: [{ name: 'empty-admin', port: 80 }] },
  ]),
  http('shop', '2026-01-03T00:00:00.000Z', [{ backendRefs: [{ name: 'shop', port: 80 }] }], ['shop.example.com', '*.example.com']),
];

function attachment(order: number[] = [0, 1, 2]): GatewayAttachment {
  return {
    gateway: gw,
    listeners: [{ listener: listener('http'), valid: true, routes: order.map((i) => ({ kind: 'HTTPRoute' as const, route: routes[i], parentRefIndex: 0, hostnames: (routes[i].spec.hostnames ?? []) })) }],
    rejected: [],
  };
}

const compile = (a: GatewayAttachment): CompiledTable => compileGateway(a, world, { resolveBackendRef: resolver as any });

describe('compileGateway', () => {
  it('orders entries by precedence and flattens hostnames and matches', () => {
    const t = compile(attachment());
    const entries = t.listeners[0].httpRoutes!.map((e) => {
      const rule = t.rules[e.rule];
      return `${e.hostname || '*'} ${t.routes[rule.route].name}#${rule.index}.${e.matchIndex} ${e.match.path.type} ${e.match.path.value}`;
    });
    expect(entries).toEqual([
      'shop.example.com shop#0.0 PathPrefix /',
      '*.example.com shop#0.0 PathPrefix /',
      '* api#1.0 Exact /api',
      '* api#1.1 PathPrefix /api/admin',
      '* api#0.0 PathPrefix /api',
      '* root#0.0 PathPrefix /',
    ]);
  });

  it('keeps unusable backends with their weight and reason, sorts and dedupes endpoints', () => {
    const t = compile(attachment());
    const rule = t.rules.find((r) => t.routes[r.route].name === 'api' && r.index === 0)!;
    expect(rule.backends.map((b) => [b.name, b.weight, b.valid, b.reason ?? null])).toEqual([
      ['api', 3, true, null], ['missing-api', 1, false, 'BackendNotFound'],
    ]);
    expect(rule.backends[0].endpoints).toEqual([{ address: '10.0.0.1', port: 8080 }, { address: '10.0.0.2', port: 8080 }]);
    expect(rule.backends[1].endpoints).toEqual([]);
  });

  it('gives byte-identical JSON whatever order the routes come in', () => {
    const a = JSON.stringify(compile(attachment([0, 1, 2])));
    expect(JSON.stringify(compile(attachment([2, 0, 1])))).toBe(a);
    expect(JSON.stringify(compile(attachment([1, 2, 0])))).toBe(a);
  });

  it('shares one rule between listeners and carries listener flags', () => {
    const a = attachment();
    a.listeners.push({ listener: listener('other', { port: 8080, hostname: 'Shop.Example.com' }), valid: false, routes: [a.listeners[0].routes[2]] });
    const t = compile(a);
    expect(t.listeners[1]).toMatchObject({ name: 'other', port: 8080, hostname: 'shop.example.com', valid: false });
    const shopRules = t.rules.filter((r) => t.routes[r.route].name === 'shop');
    expect(shopRules).toHaveLength(1);
  });

  it('leaves out the rules whose regular expression RE2 refuses, and never runs them', () => {
    const bad = http('bad', '2026-01-04T00:00:00.000Z', [
      { matches: [{ path: { type: 'RegularExpression', value: '/(?<=x)y' } }], backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ path: { type: 'RegularExpression', value: '((a{1000}){1000}){1000}' } }], backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ headers: [{ type: 'RegularExpression', name: 'X', value: '(' }] }], backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ path: { type: 'RegularExpression', value: '/items/[0-9]+' } }], backendRefs: [{ name: 'web', port: 80 }] },
    ]);
    const t = compile({ gateway: gw, rejected: [], listeners: [{ listener: listener('http'), valid: true, routes: [{ kind: 'HTTPRoute', route: bad, parentRefIndex: 0, hostnames: [] }] }] });
    // the route reports them as dropped (PartiallyInvalid); the table keeps only the usable rule
    expect(t.listeners[0].httpRoutes!.map((e) => [t.rules[e.rule].index, e.match.path.value, e.match.invalid])).toEqual([[3, '/items/[0-9]+', undefined]]);
  });

  it('turns an unsupported filter into an invalid rule (500), and leaves dropped rules out', () => {
    const r = http('ext', '2026-01-04T00:00:00.000Z', [
      { filters: [{ type: 'ExtensionRef', extensionRef: { group: 'x.io', kind: 'Auth', name: 'a' } }], backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ path: { value: '/sticky' } }], sessionPersistence: { type: 'Header', header: { name: 'x-session' } }, backendRefs: [{ name: 'web', port: 80 }] },
    ]);
    const t = compile({ gateway: gw, rejected: [], listeners: [{ listener: listener('http'), valid: true, routes: [{ kind: 'HTTPRoute', route: r, parentRefIndex: 0, hostnames: [] }] }] });
    expect(t.rules).toHaveLength(1);
    expect(t.rules[0].invalid?.reason).toBe('UnsupportedValue');
  });

  it('compiles cookie session persistence: the cookie name (a per-rule default), path, lifetime and timeouts', () => {
    const r = http('sticky', '2026-01-04T00:00:00.000Z', [
      { matches: [{ path: { value: '/a' } }], sessionPersistence: { type: 'Cookie', cookie: {} }, backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ path: { value: '/b' } }], sessionPersistence: { type: 'Cookie', absoluteTimeout: '1h', cookie: { name: 'keep', path: '/b', lifetimeType: 'Permanent' } }, backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ path: { value: '/c' } }], backendRefs: [{ name: 'web', port: 80 }] },
    ]);
    const t = compile({ gateway: gw, rejected: [], listeners: [{ listener: listener('http'), valid: true, routes: [{ kind: 'HTTPRoute', route: r, parentRefIndex: 0, hostnames: [] }] }] });
    const [a, b, c] = t.rules.map((x) => x.sessionPersistence);
    expect(a).toEqual({ cookieName: expect.stringMatching(/^sy-session-[0-9a-f]{8}$/), path: '/', lifetime: 'Session' });
    expect(b).toEqual({ cookieName: 'keep', path: '/b', lifetime: 'Permanent', absoluteTimeoutSeconds: 3600 });
    expect(c).toBeUndefined();
    expect(t.rules.every((x) => !x.invalid)).toBe(true);
  });

  it('compiles retry (codes once each and ascending, attempts, backoff) and percentage mirrors', () => {
    const r = http('retry', '2026-01-04T00:00:00.000Z', [
      { matches: [{ path: { value: '/a' } }], retry: { codes: [503, 500, 503], attempts: 3, backoff: '1s500ms' }, backendRefs: [{ name: 'web', port: 80 }] },
      { matches: [{ path: { value: '/b' } }], retry: {}, backendRefs: [{ name: 'web', port: 80 }],
        filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { name: 'web', port: 80 }, fraction: { numerator: 1, denominator: 8 } } }] },
    ]);
    const t = compile({ gateway: gw, rejected: [], listeners: [{ listener: listener('http'), valid: true, routes: [{ kind: 'HTTPRoute', route: r, parentRefIndex: 0, hostnames: [] }] }] });
    expect(t.rules.map((x) => x.retry)).toEqual([{ codes: [500, 503], attempts: 3, backoffMs: 1500 }, { codes: [], attempts: 1 }]);
    expect(t.rules[1].filters[0].requestMirror?.percent).toBe(12.5);
    expect(t.rules.every((x) => !x.invalid)).toBe(true);
  });

  it('carries unattached routes with their matches unless asked not to', () => {
    const r = http('late', '2026-01-05T00:00:00.000Z', [{ matches: [{ path: { value: '/x' } }] }]);
    const a: GatewayAttachment = { ...attachment(), rejected: [{ kind: 'HTTPRoute', route: r, parentRefIndex: 0, reason: 'NotAllowedByListeners', message: 'no' }] };
    expect(compile(a).unattached).toEqual([expect.objectContaining({ name: 'late', reason: 'NotAllowedByListeners', httpMatches: [expect.objectContaining({ ruleIndex: 0 })] })]);
    expect(compileGateway(a, world, { resolveBackendRef: resolver as any, includeUnattached: false }).unattached).toEqual([]);
  });
});

describe('regular expressions', () => {
  it('estimates the program size of counted repetitions', () => {
    expect(estimateProgramSize('abc')).toBe(3);
    expect(estimateProgramSize('(a{1000}){1000}')).toBeGreaterThan(500_000);
    expect(regexProblem('a{1000}'.repeat(60))).toMatch(/instructions/);
    expect(regexProblem('((a{100}){100}){100}')).toBe('pattern expands to about 2030300 instructions (limit 50000)');
    expect(regexProblem('/items/[0-9]+')).toBeUndefined();
    expect(regexProblem('x'.repeat(5000))).toMatch(/longer/);
  });
});

describe('the pure core', () => {
  it('imports nothing with I/O from compile, resolve, match, precedence', () => {
    const root = join(__dirname, '../../src/core');
    const forbidden = /from '(node:|fs|net|http|https|child_process|express|@prisma|prisma|bullmq|ioredis|pg)/;
    for (const dir of ['compile', 'resolve', 'match', 'precedence']) {
      for (const f of readdirSync(join(root, dir))) {
        const text = readFileSync(join(root, dir, f), 'utf8');
        expect(text, `${dir}/${f}`).not.toMatch(forbidden);
        expect(text, `${dir}/${f} must not build a RegExp from data`).not.toMatch(/new RegExp\(/);
      }
    }
  });
});
