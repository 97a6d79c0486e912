import { describe, it, expect } from 'vitest';
import { matchListenerHostname, hostnamesOverlap, compileLabelSelector, unsupportedRules } from '../../src/core/attach';
import { covers, intersectHostname as intersect } from '../../src/core/match/hostname';
import { translate, TranslationContext } from '../../src/core/translate';
import type { ObjectRef, TranslateOptions } from '../../src/core/model/world';

/** The attachment step's result, through the one entry point. */
const attachGateway = (w: World, ref: Pick<ObjectRef, 'namespace' | 'name'>, opts: TranslateOptions) => translate(w, ref, opts)?.attachment;
import type { World } from '../../src/core/model/world';

const CONTROLLER = 'switchyard.dev/gateway-controller';
const now = '2026-11-29T17:00:00.000Z';

function world(partial: Partial<World>): World {
  return { gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [],
    endpointSlices: [], secrets: [], configMaps: [], ...partial } as World;
}

describe('hostnames', () => {
  it('wildcards match one or more labels, never the bare suffix', () => {
    expect(covers('*.example.com', 'a.example.com')).toBe(true);
    expect(covers('*.example.com', 'a.b.example.com')).toBe(true);
    expect(covers('*.example.com', 'example.com')).toBe(false);
    expect(covers('*.example.com', 'aexample.com')).toBe(false);
    expect(covers('*.example.com', '*.a.example.com')).toBe(true);
    expect(covers('*.example.com', '*.example.com')).toBe(true);
    expect(covers('*.a.example.com', '*.example.com')).toBe(false);
    expect(covers('Foo.Example.com', 'foo.example.COM')).toBe(true);
  });

  it('intersects to the more specific name', () => {
    expect(intersect('*.example.com', 'foo.example.com')).toBe('foo.example.com');
    expect(intersect('very.specific.com', '*.specific.com')).toBe('very.specific.com');
    expect(intersect('*.com', '*.example.com')).toBe('*.example.com');
    expect(intersect('a.com', 'b.com')).toBeUndefined();
  });

  it('route hostnames against a listener hostname', () => {
    expect(matchListenerHostname(undefined, ['a.com', '*.b.com'])).toEqual({ ok: true, hostnames: ['a.com', '*.b.com'] });
    expect(matchListenerHostname('app.example.com', [])).toEqual({ ok: true, hostnames: ['app.example.com'] });
    expect(matchListenerHostname('*.wildcard.io', ['wildcard.io', 'foo.wildcard.io', 'non.matching.com']))
      .toEqual({ ok: true, hostnames: ['foo.wildcard.io'] });
    expect(matchListenerHostname('*.example.com', ['*.com', '*.example.com'])).toEqual({ ok: true, hostnames: ['*.example.com'] });
    expect(matchListenerHostname('very.specific.com', ['specific.but.wrong.com']).ok).toBe(false);
  });

  it('listener hostnames overlap when one covers the other or one is empty', () => {
    expect(hostnamesOverlap('*.example.com', 'foo.example.com')).toBe(true);
    expect(hostnamesOverlap(undefined, 'foo.example.com')).toBe(true);
    expect(hostnamesOverlap('foo.example.com', 'foo.example.org')).toBe(false);
  });
});

describe('label selectors', () => {
  const labels = { env: 'prod', team: 'a' };
  it('matchLabels and every operator', () => {
    expect(compileLabelSelector({}).matches(labels)).toBe(true);
    expect(compileLabelSelector({ matchLabels: { env: 'prod' } }).matches(labels)).toBe(true);
    expect(compileLabelSelector({ matchLabels: { env: 'dev' } }).matches(labels)).toBe(false);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'team', operator: 'In', values: ['a', 'b'] }] }).matches(labels)).toBe(true);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['a'] }] }).matches(labels)).toBe(false);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }).matches(labels)).toBe(true);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'env', operator: 'Exists' }] }).matches(labels)).toBe(true);
    expect(compileLabelSelector({ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }).matches(labels)).toBe(false);
  });
  it('an unusable selector selects nothing and says why', () => {
    expect(compileLabelSelector(undefined).error).toMatch(/no selector/);
    const bad = compileLabelSelector({ matchExpressions: [{ key: 'env', operator: 'In', values: [] }] });
    expect(bad.error).toMatch(/needs values/);
    expect(bad.matches(labels)).toBe(false);
  });
});

describe('attachment', () => {
  const gc = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'sw' }, spec: { controllerName: CONTROLLER } };
  const gw = {
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'public', namespace: 'infra', generation: 1 },
    spec: { gatewayClassName: 'sw', listeners: [
      { name: 'http', protocol: 'HTTP', port: 80, hostname: '*.example.com',
        allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { gw: 'public' } } } } },
    ] },
  };
  const route = (ns: string, name: string, extra: any = {}) => ({
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
    metadata: { name, namespace: ns, generation: 1, creationTimestamp: `2026-01-01T00:00:0${name.length % 10}.000Z` },
    spec: { parentRefs: [{ name: 'public', namespace: 'infra' }], rules: [{}], ...extra },
  });
  const ns = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });

  it('attaches admitted routes with their hostnames and lists the rejected with a reason', () => {
    const w = world({
      gatewayClasses: [gc] as any, gateways: [gw] as any, namespaces: [ns('team-a', { gw: 'public' }), ns('team-b')] as any,
      routes: [route('team-a', 'web', { hostnames: ['shop.example.com', 'shop.example.org'] }), route('team-b', 'steal')] as any,
    });
    const a = attachGateway(w, { namespace: 'infra', name: 'public' }, { controllerName: CONTROLLER, now })!;
    expect(a.listeners).toHaveLength(1);
    expect(a.listeners[0].valid).toBe(true);
    expect(a.listeners[0].routes.map((r) => [r.route.metadata.name, r.hostnames])).toEqual([['web', ['shop.example.com']]]);
    expect(a.rejected.map((r) => [r.route.metadata.namespace, r.reason])).toEqual([['team-b', 'NotAllowedByListeners']]);
  });

  it('returns undefined for a Gateway of another controller or a missing one', () => {
    const other = { ...gc, metadata: { name: 'other' }, spec: { controllerName: 'example.com/x' } };
    const theirs = { ...gw, metadata: { name: 'theirs', namespace: 'infra' }, spec: { ...gw.spec, gatewayClassName: 'other' } };
    const w = world({ gatewayClasses: [gc, other] as any, gateways: [gw, theirs] as any });
    expect(attachGateway(w, { namespace: 'infra', name: 'theirs' }, { controllerName: CONTROLLER, now })).toBeUndefined();
    expect(attachGateway(w, { namespace: 'infra', name: 'nope' }, { controllerName: CONTROLLER, now })).toBeUndefined();
  });

  it('a route attached through two parentRefs to one listener is listed once', () => {
    const r = route('team-a', 'twice');
    r.spec.parentRefs = [{ name: 'public', namespace: 'infra' }, { name: 'public', namespace: 'infra', sectionName: 'http' }] as any;
    const w = world({ gatewayClasses: [gc] as any, gateways: [gw] as any, namespaces: [ns('team-a', { gw: 'public' })] as any, routes: [r] as any });
    const a = attachGateway(w, { namespace: 'infra', name: 'public' }, { controllerName: CONTROLLER, now })!;
    expect(a.listeners[0].routes).toHaveLength(1);
    expect(a.listeners[0].routes[0].parentRefIndex).toBe(0);
  });
});

describe('unsupportedRules', () => {
  it('names the rules that use values this implementation does not support', () => {
    const r: any = { kind: 'HTTPRoute', metadata: { name: 'r' }, spec: { rules: [
      {}, { sessionPersistence: { type: 'Header', header: { name: 'x-s' } } }, { filters: [{ type: 'Bogus' }] }, { matches: [{ path: { type: 'Glob', value: '/x' } }] },
      { retry: { attempts: 1 } }, { filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { name: 'm', port: 80 }, percent: 5 } }] },
      { sessionPersistence: { type: 'Cookie', cookie: {} } },
    ] } };
    const u = unsupportedRules(new TranslationContext(), r);
    // retry, percentage mirrors and cookie sessions compile: only the others are dropped
    expect([...u.keys()]).toEqual([1, 2, 3]);
    expect(u.get(2)).toMatch(/Bogus/);
  });
});
