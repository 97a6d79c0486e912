import { describe, expect, it } from 'vitest';
import { compareGRPC, compareHTTP, compareSNI, compareStream, creationMillis, type HTTPRank } from '../../src/core/precedence';
import { ageAndName, byAgeThenName, compareNamespacedNames, httpFigures, namespacedName, stepFigure } from '../../src/core/precedence';
import { translate } from '../../src/core/translate';
import type { World } from '../../src/core/model/world';

const base: HTTPRank = {
  hostname: '', pathType: 'PathPrefix', pathValue: '/', method: false, headers: 0, query: 0,
  created: creationMillis('2026-01-01T00:00:00.000Z'), routeKey: 'ns/a', ruleIndex: 0, matchIndex: 0,
};
const r = (over: Partial<HTTPRank>): HTTPRank => ({ ...base, ...over });

describe('HTTP precedence ladder', () => {
  const cases: [string, Partial<HTTPRank>, Partial<HTTPRank>][] = [
    ['hostname', { hostname: 'a.example.com' }, { hostname: '*.example.com', pathType: 'Exact', pathValue: '/a/very/long/path' }],
    ['hostname', { hostname: '*.foo.example.com' }, { hostname: '*.example.com' }],
    ['hostname', { hostname: '*.example.com' }, { hostname: '' }],
    ['exactPath', { pathType: 'Exact', pathValue: '/v2' }, { pathType: 'PathPrefix', pathValue: '/v2/' }],
    ['exactPath', { pathType: 'RegularExpression', pathValue: '/x' }, { pathType: 'PathPrefix', pathValue: '/longer/prefix' }],
    ['prefixLength', { pathValue: '/api/admin' }, { pathValue: '/api', method: true, headers: 3 }],
    ['method', { method: true }, { headers: 5, query: 5 }],
    ['headers', { headers: 2 }, { headers: 1, query: 4 }],
    ['query', { query: 1 }, {}],
    ['creationTimestamp', { created: creationMillis('2026-01-01T00:00:00.001Z'), routeKey: 'ns/zzz' }, { created: creationMillis('2026-01-01T00:00:00.002Z'), routeKey: 'ns/aaa' }],
    ['name', { routeKey: 'alpha/zebra' }, { routeKey: 'beta/aardvark' }],
    ['ruleOrder', { ruleIndex: 0, matchIndex: 3 }, { ruleIndex: 1, matchIndex: 0 }],
    ['ruleOrder', { matchIndex: 0 }, { matchIndex: 1 }],
  ];
  for (const [step, winner, loser] of cases) {
    it(`${step}: ${JSON.stringify(winner)} before ${JSON.stringify(loser)}`, () => {
      expect(compareHTTP(r(winner), r(loser))).toEqual({ order: expect.any(Number), step });
      expect(compareHTTP(r(winner), r(loser)).order).toBeLessThan(0);
      expect(compareHTTP(r(loser), r(winner)).order).toBeGreaterThan(0);
    });
  }
  it('identical ranks compare equal', () => {
    expect(compareHTTP(base, { ...base })).toEqual({ order: 0, step: 'ruleOrder' });
  });
  it('an unknown creation time ranks after every known one', () => {
    expect(creationMillis(undefined)).toBe(Number.POSITIVE_INFINITY);
    expect(creationMillis('not a date')).toBe(Number.POSITIVE_INFINITY);
    expect(compareHTTP(r({ created: creationMillis('2030-01-01T00:00:00Z') }), r({ created: creationMillis(undefined) })).order).toBeLessThan(0);
  });
  it('figures read like the textbook demo', () => {
    expect(httpFigures(r({ pathValue: '/api', headers: 1 }))).toBe('path 4, header 1');
    expect(httpFigures(r({ hostname: 'shop.example', pathType: 'Exact', pathValue: '/x', method: true, query: 2 }))).toBe('host 12, exact path 2, method 1, query 2');
    expect(stepFigure('prefixLength', r({ pathValue: '/api' }))).toBe('path 4 (/api)');
  });
});

describe('GRPC, TLS and stream precedence', () => {
  const t = { created: 1, routeKey: 'ns/a', ruleIndex: 0, matchIndex: 0 };
  it('GRPC: hostname, then service characters, then method characters, then headers', () => {
    const g = (over: object) => ({ ...t, hostname: '', service: '', method: '', headers: 0, ...over });
    expect(compareGRPC(g({ hostname: 'a.b' }), g({ service: 'very.long.Service' })).step).toBe('hostname');
    expect(compareGRPC(g({ service: 'echo.Echo' }), g({ service: 'e.E', method: 'LongMethodName' })).step).toBe('service');
    expect(compareGRPC(g({ method: 'Say' }), g({ headers: 4 })).step).toBe('method');
    expect(compareGRPC(g({ headers: 1 }), g({})).step).toBe('headers');
    expect(compareGRPC(g({ routeKey: 'ns/b', created: 0 }), g({})).step).toBe('creationTimestamp');
  });
  it('TLS: exact SNI hostnames before wildcards, then age', () => {
    expect(compareSNI({ ...t, hostname: 'abc.example.com' }, { ...t, hostname: '*.example.com' }).step).toBe('hostname');
    expect(compareSNI({ ...t, hostname: 'x', created: 0 }, { ...t, hostname: 'x' }).step).toBe('creationTimestamp');
  });
  it('TCP/UDP: the oldest route, then the name, then the rule', () => {
    expect(compareStream({ ...t, created: 0 }, t).order).toBeLessThan(0);
    expect(compareStream({ ...t, routeKey: 'ns/0' }, t).step).toBe('name');
    expect(compareStream({ ...t, ruleIndex: 1 }, t).order).toBeGreaterThan(0);
  });
});

describe('the name tie-break is one rule', () => {
  // "a-b/a" < "a/z" as "{namespace}/{name}" strings ("-" sorts before "/"), while comparing the
  // namespace first would put namespace "a" before "a-b": the two orders disagree on this pair.
  const ts = '2026-01-01T00:00:00.000Z';
  const route = (namespace: string, name: string) => ({
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
    metadata: { name, namespace, creationTimestamp: ts, generation: 1 },
    spec: { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw', namespace: 'infra' }],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [] }] },
  });
  const world = {
    gatewayClasses: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'sy' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
    gateways: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra', generation: 1 },
      spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } }],
    routes: [route('a', 'z'), route('a-b', 'a')],
    referenceGrants: [], namespaces: [], services: [], endpointSlices: [], secrets: [], configMaps: [],
  } as unknown as World;

  it('orders "a-b/a" before "a/z" in the ladder, the attachment and the table alike', () => {
    expect(compareNamespacedNames(namespacedName('a-b', 'a'), namespacedName('a', 'z'))).toBeLessThan(0);
    expect(byAgeThenName(ageAndName({ creationTimestamp: ts, namespace: 'a-b', name: 'a' }), ageAndName({ creationTimestamp: ts, namespace: 'a', name: 'z' }))).toBeLessThan(0);
    const t = translate(world, { namespace: 'infra', name: 'gw' }, { controllerName: 'switchyard.dev/gateway-controller', now: ts })!;
    const attached = t.attachment.listeners[0].routes.map((r) => `${r.route.metadata.namespace}/${r.route.metadata.name}`);
    expect(attached).toEqual(['a-b/a', 'a/z']);
    const entries = t.table.listeners[0].httpRoutes!.map((e) => {
      const r = t.table.routes[t.table.rules[e.rule].route];
      return `${r.namespace}/${r.name}`;
    });
    expect(entries).toEqual(attached);
  });
});
