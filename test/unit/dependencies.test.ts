// The dependency model: every reference field of every kind in openapi/ is covered, each one makes
// the Gateway depend on what it names, and a change of the named object touches that key.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REFERENCE_FIELDS, affectedGateways, dep, depKey, gatewayDependencies, keySet, parseDepKey, routesDependencies, touchedBy, withPolicyDependencies, type Dependency } from '../../src/core/deps';
import { routeDependencies } from '../../src/core/deps/gateway-deps';
import { KINDS, isRouteKind } from '../../src/core/model/kinds';
import { worldOf } from '../../src/core/model/world';

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[]; oneOf?: Schema[]; anyOf?: Schema[]; additionalProperties?: Schema | boolean };
const spec = JSON.parse(readFileSync(join(process.cwd(), 'src/generated/openapi.json'), 'utf8')) as { components: { schemas: Record<string, Schema> } };
const schemas = spec.components.schemas;

/** Paths (Kind.spec.a[].b) of fields that name other objects, in the spec of every served version. */
function referenceFields(): Set<string> {
  const out = new Set<string>();
  const walk = (node: Schema | undefined, path: string, seen: Set<string>) => {
    if (!node) return;
    if (node.$ref) {
      const name = node.$ref.split('/').pop()!;
      if (!seen.has(name)) walk(schemas[name], path, new Set([...seen, name]));
      return;
    }
    for (const list of [node.allOf, node.oneOf, node.anyOf]) for (const x of list ?? []) walk(x, path, seen);
    if (node.items) walk(node.items, `${path}[]`, seen);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}{}`, seen);
    for (const [k, v] of Object.entries(node.properties ?? {})) {
      const p = `${path}.${k}`;
      if (/Refs?$|^from$|^to$|[sS]elector$/.test(k)) out.add(p);
      walk(v, p, seen);
    }
  };
  for (const info of KINDS) for (const schemaName of new Set(Object.values(info.versions))) {
    const root = isRouteKind(info.kind) ? 'Route' : info.kind;
    walk(schemas[schemaName]?.properties?.spec, `${root}.spec`, new Set([schemaName]));
  }
  return out;
}

const NS = 'infra';
const OTHER = 'other';
const gateway = (spec: Record<string, unknown>) => ({ kind: 'Gateway', metadata: { name: 'gw', namespace: NS }, spec: { gatewayClassName: 'sw', listeners: [], ...spec } }) as never;
const route = (spec: Record<string, unknown>) => ({ kind: 'HTTPRoute', metadata: { name: 'r', namespace: NS }, spec: { parentRefs: [{ name: 'gw' }], ...spec } });
const ref = (kind?: string) => ({ ...(kind ? { kind } : {}), name: 'target', namespace: OTHER });
const keysOf = (deps: Dependency[]) => new Set(deps.map(depKey));
const depsOfGateway = (spec: Record<string, unknown>) => keysOf(gatewayDependencies(gateway(spec), []));
const depsOfRoute = (spec: Record<string, unknown>) => keysOf(gatewayDependencies(gateway({}), [route(spec)]));
const listenerSet = (listeners: unknown[]) => ({ kind: 'ListenerSet', metadata: { name: 'ls', namespace: OTHER }, spec: { parentRef: { name: 'gw', namespace: NS }, listeners } });
const depsOfListenerSet = (listeners: unknown[]) => keysOf(gatewayDependencies(gateway({}), [], undefined, [listenerSet(listeners)]));
const backendKeys = [depKey(dep.service(OTHER, 'target')), depKey(dep.endpointSlices(OTHER, 'target')), depKey(dep.referenceGrants(OTHER))];
const selector = { from: 'Selector', selector: { matchLabels: { team: 'a' } } };
const policy = (target = 'target') => ({ kind: 'BackendTLSPolicy', metadata: { name: 'p', namespace: OTHER }, spec: {
  targetRefs: [{ group: '', kind: 'Service', name: target }],
  validation: { hostname: 'x.example', caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'ca' }, { group: '', kind: 'Secret', name: 'ca-secret' }] } } });

/** For each field: the dependencies a Gateway gets from it (empty when the field names nothing a result reads). */
const FIXTURES: Record<string, () => { got: Set<string>; want: string[] }> = {
  'Gateway.spec.listeners[].tls.certificateRefs': () => ({ got: depsOfGateway({ listeners: [{ name: 'l', port: 443, protocol: 'HTTPS', tls: { certificateRefs: [ref()] } }] }), want: [depKey(dep.secret(OTHER, 'target')), depKey(dep.referenceGrants(OTHER))] }),
  'Gateway.spec.listeners[].allowedRoutes.namespaces.from': () => ({ got: depsOfGateway({ listeners: [{ name: 'l', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: selector } }] }), want: [depKey(dep.namespaces())] }),
  'Gateway.spec.listeners[].allowedRoutes.namespaces.selector': () => FIXTURES['Gateway.spec.listeners[].allowedRoutes.namespaces.from'](),
  'Gateway.spec.allowedListeners.namespaces.from': () => ({ got: depsOfGateway({ allowedListeners: { namespaces: selector } }), want: [depKey(dep.namespaces())] }),
  'Gateway.spec.allowedListeners.namespaces.selector': () => FIXTURES['Gateway.spec.allowedListeners.namespaces.from'](),
  'Gateway.spec.tls.backend.clientCertificateRef': () => ({ got: depsOfGateway({ tls: { backend: { clientCertificateRef: ref() } } }), want: [depKey(dep.secret(OTHER, 'target')), depKey(dep.referenceGrants(OTHER))] }),
  'Gateway.spec.tls.frontend.default.validation.caCertificateRefs': () => ({ got: depsOfGateway({ tls: { frontend: { default: { validation: { caCertificateRefs: [ref('ConfigMap'), { ...ref('Secret'), name: 'bundle' }] } } } } }), want: [depKey(dep.configMap(OTHER, 'target')), depKey(dep.secret(OTHER, 'bundle')), depKey(dep.referenceGrants(OTHER))] }),
  'Gateway.spec.tls.frontend.perPort[].tls.validation.caCertificateRefs': () => ({ got: depsOfGateway({ tls: { frontend: { perPort: [{ port: 443, tls: { validation: { caCertificateRefs: [ref('ConfigMap')] } } }] } } }), want: [depKey(dep.configMap(OTHER, 'target')), depKey(dep.referenceGrants(OTHER))] }),
  'Gateway.spec.infrastructure.parametersRef': () => ({ got: new Set(), want: [] }),
  'GatewayClass.spec.parametersRef': () => ({ got: new Set(), want: [] }),
  'Route.spec.parentRefs': () => ({ got: new Set(touchedBy('HTTPRoute', null, route({}) as never)), want: [depKey(dep.gateway(NS, 'gw'))] }),
  'ListenerSet.spec.parentRef': () => ({ got: new Set(touchedBy('ListenerSet', null, listenerSet([]) as never)), want: [depKey(dep.gateway(NS, 'gw')), depKey(dep.listenerSet(OTHER, 'ls'))] }),
  'ListenerSet.spec.listeners[].tls.certificateRefs': () => ({ got: depsOfListenerSet([{ name: 'l', port: 443, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'own' }, { name: 'target', namespace: NS }] } }]),
    want: [depKey(dep.secret(OTHER, 'own')), depKey(dep.secret(NS, 'target')), depKey(dep.referenceGrants(NS)), depKey(dep.listenerSet(OTHER, 'ls'))] }),
  'ListenerSet.spec.listeners[].allowedRoutes.namespaces.from': () => ({ got: depsOfListenerSet([{ name: 'l', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: selector } }]), want: [depKey(dep.namespaces())] }),
  'ListenerSet.spec.listeners[].allowedRoutes.namespaces.selector': () => FIXTURES['ListenerSet.spec.listeners[].allowedRoutes.namespaces.from'](),
  'Route.spec.rules[].backendRefs': () => ({ got: depsOfRoute({ rules: [{ backendRefs: [{ ...ref(), port: 80 }] }] }), want: backendKeys }),
  'Route.spec.rules[].filters[].requestMirror.backendRef': () => ({ got: depsOfRoute({ rules: [{ filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { ...ref(), port: 80 } } }] }] }), want: backendKeys }),
  'Route.spec.rules[].filters[].externalAuth.backendRef': () => ({ got: depsOfRoute({ rules: [{ filters: [{ type: 'ExternalAuth', externalAuth: { protocol: 'HTTP', backendRef: { ...ref(), port: 80 } } }] }] }), want: backendKeys }),
  'Route.spec.rules[].filters[].extensionRef': () => ({ got: new Set(), want: [] }),
  'Route.spec.rules[].backendRefs[].filters[].requestMirror.backendRef': () => ({ got: depsOfRoute({ rules: [{ backendRefs: [{ name: 'local', port: 80, filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { ...ref(), port: 80 } } }] }] }] }), want: backendKeys }),
  'Route.spec.rules[].backendRefs[].filters[].externalAuth.backendRef': () => ({ got: depsOfRoute({ rules: [{ backendRefs: [{ name: 'local', port: 80, filters: [{ type: 'ExternalAuth', externalAuth: { protocol: 'HTTP', backendRef: { ...ref(), port: 80 } } }] }] }] }), want: backendKeys }),
  'Route.spec.rules[].backendRefs[].filters[].extensionRef': () => ({ got: new Set(), want: [] }),
  'ReferenceGrant.spec.from': () => ({ got: new Set(touchedBy('ReferenceGrant', null, { metadata: { name: 'g', namespace: OTHER } })), want: [depKey(dep.referenceGrants(OTHER))] }),
  'ReferenceGrant.spec.to': () => FIXTURES['ReferenceGrant.spec.from'](),
  'Service.spec.selector': () => ({ got: new Set(), want: [] }),
  'BackendTLSPolicy.spec.targetRefs': () => ({ got: new Set(touchedBy('BackendTLSPolicy', null, policy())), want: [depKey(dep.service(OTHER, 'target'))] }),
  'BackendTLSPolicy.spec.validation.caCertificateRefs': () => ({
    got: keysOf(withPolicyDependencies(gatewayDependencies(gateway({}), [route({ rules: [{ backendRefs: [{ ...ref(), port: 80 }] }] })]),
      (ns, svc) => (ns === OTHER && svc === 'target' ? [policy()] : []))),
    want: [depKey(dep.configMap(OTHER, 'ca')), depKey(dep.secret(OTHER, 'ca-secret'))],
  }),
};

describe('dependency model', () => {
  it('covers every reference field of every kind in openapi/', () => {
    const fields = [...referenceFields()].sort();
    expect(fields.length).toBeGreaterThan(15);
    expect(fields.filter((f) => !(f in REFERENCE_FIELDS)), 'reference fields with no entry in src/core/deps/references.ts').toEqual([]);
    expect(Object.keys(REFERENCE_FIELDS).filter((f) => !fields.includes(f)), 'entries naming no field of the schemas').toEqual([]);
  });

  for (const field of Object.keys(REFERENCE_FIELDS)) {
    it(`${field} makes the Gateway depend on what it names`, () => {
      const fixture = FIXTURES[field];
      expect(fixture, `no fixture for ${field}`).toBeDefined();
      const { got, want } = fixture();
      for (const k of want) expect([...got], `${field}: missing ${k}`).toContain(k);
    });
  }

  it('the object a reference names touches the key the Gateway recorded', () => {
    const named: [string, Record<string, unknown>, string][] = [
      ['Secret', { name: 'target', namespace: OTHER }, depKey(dep.secret(OTHER, 'target'))],
      ['ConfigMap', { name: 'target', namespace: OTHER }, depKey(dep.configMap(OTHER, 'target'))],
      ['Service', { name: 'target', namespace: OTHER }, depKey(dep.service(OTHER, 'target'))],
      ['EndpointSlice', { name: 'target-x1', namespace: OTHER, labels: { 'kubernetes.io/service-name': 'target' } }, depKey(dep.endpointSlices(OTHER, 'target'))],
      ['ReferenceGrant', { name: 'g', namespace: OTHER }, depKey(dep.referenceGrants(OTHER))],
      ['Namespace', { name: 'apps' }, depKey(dep.namespaces())],
      ['GatewayClass', { name: 'sw' }, depKey(dep.gatewayClass('sw'))],
      ['Gateway', { name: 'gw', namespace: NS }, depKey(dep.gateway(NS, 'gw'))],
    ];
    for (const [kind, metadata, key] of named) expect(touchedBy(kind, null, { metadata }), kind).toEqual([key]);
    // a slice moved to another Service touches both
    expect(touchedBy('EndpointSlice', { metadata: { name: 's', namespace: NS, labels: { 'kubernetes.io/service-name': 'a' } } },
      { metadata: { name: 's', namespace: NS, labels: { 'kubernetes.io/service-name': 'b' } } }))
      .toEqual([depKey(dep.endpointSlices(NS, 'a')), depKey(dep.endpointSlices(NS, 'b'))]);
    // a policy retargeted from one Service to another touches both
    expect(touchedBy('BackendTLSPolicy', policy('a'), policy('b'))).toEqual([depKey(dep.service(OTHER, 'a')), depKey(dep.service(OTHER, 'b'))]);
    // and a route moved to another Gateway
    expect(touchedBy('HTTPRoute', route({}), { ...route({}), spec: { parentRefs: [{ name: 'other-gw', namespace: OTHER }] } }))
      .toEqual([depKey(dep.gateway(NS, 'gw')), depKey(dep.gateway(OTHER, 'other-gw'))]);
    // a route naming a ListenerSet touches the key its Gateway recorded for it
    const viaSet = { ...route({}), spec: { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'ls', namespace: OTHER }] } };
    expect(touchedBy('HTTPRoute', null, viaSet)).toEqual([depKey(dep.listenerSet(OTHER, 'ls'))]);
    expect([...depsOfListenerSet([])]).toContain(depKey(dep.listenerSet(OTHER, 'ls')));
    // a ListenerSet moved to another Gateway touches both
    expect(touchedBy('ListenerSet', listenerSet([]), { ...listenerSet([]), spec: { parentRef: { name: 'gw2', namespace: NS }, listeners: [] } }))
      .toEqual([depKey(dep.gateway(NS, 'gw')), depKey(dep.gateway(NS, 'gw2')), depKey(dep.listenerSet(OTHER, 'ls'))]);
  });

  it('has a rule for every stored kind', () => {
    for (const info of KINDS) expect(() => touchedBy(info.kind, null, { metadata: { name: 'x', namespace: 'y' } }), info.kind).not.toThrow();
    expect(() => touchedBy('Unknown', null, { metadata: { name: 'x' } })).toThrow(/unexpected object kind: Unknown/);
  });

  it("a policy reached through one Service brings its other targets and their policies, which decide its conflicts", () => {
    const p = (name: string, targets: string[], ca: string) => ({ kind: 'BackendTLSPolicy', metadata: { name, namespace: OTHER }, spec: {
      targetRefs: targets.map((t) => ({ group: '', kind: 'Service', name: t })), validation: { hostname: 'x.example', caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: ca }] } } });
    const both = p('both', ['a', 'b'], 'ca-both');
    const onlyB = p('only-b', ['b'], 'ca-b');
    const got = keysOf(withPolicyDependencies(gatewayDependencies(gateway({}), [route({ rules: [{ backendRefs: [{ name: 'a', namespace: OTHER, port: 80 }] }] })]),
      (ns, svc) => (ns !== OTHER ? [] : svc === 'a' ? [both] : svc === 'b' ? [both, onlyB] : [])));
    for (const k of [dep.service(OTHER, 'b'), dep.configMap(OTHER, 'ca-both'), dep.configMap(OTHER, 'ca-b')]) expect([...got]).toContain(depKey(k));
  });

  it('every key reads back as the dependency it was built from', () => {
    const all: Dependency[] = [dep.gateway(NS, 'gw'), dep.gatewayClass('sw'), dep.service(NS, 'a'), dep.endpointSlices(NS, 'a'),
      dep.secret(NS, 'c'), dep.configMap(NS, 'ca'), dep.referenceGrants(NS), dep.namespaces(), dep.listenerSet(NS, 'ls')];
    for (const d of all) expect(parseDepKey(depKey(d))).toEqual(d);
    expect(parseDepKey('Nonsense/x/y')).toBeUndefined();
    expect(parseDepKey('Gateway//x')).toBeUndefined();
  });
});

describe('affectedGateways', () => {
  const gw = (name: string, listeners: unknown[], cls = 'sw', extra: Record<string, unknown> = {}) => ({ kind: 'Gateway', metadata: { name, namespace: NS }, spec: { gatewayClassName: cls, listeners, ...extra } });
  const w = worldOf(([
    gw('a', [{ name: 'h', protocol: 'HTTP', port: 80 }]),
    gw('b', [{ name: 'h', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { x: 'y' } } } } }]),
    gw('c', [{ name: 's', protocol: 'HTTPS', port: 443, tls: { certificateRefs: [{ name: 'cert' }] } }], 'other', { tls: { backend: { clientCertificateRef: { name: 'client' } } } }),
    { kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'apps' }, spec: { parentRefs: [{ name: 'a', namespace: NS }], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] } },
    { kind: 'BackendTLSPolicy', metadata: { name: 'p', namespace: 'apps' }, spec: { targetRefs: [{ group: '', kind: 'Service', name: 'svc' }],
      validation: { hostname: 'svc.example', caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'svc-ca' }] } } },
  ] as { kind: string }[]));
  const keys = (l: { namespace: string; name: string }[]) => l.map((g) => `${g.namespace}/${g.name}`);
  const obj = (kind: string, metadata: Record<string, unknown>) => ({ kind, metadata });
  it('a route: the Gateways of its old and new parentRefs', () => {
    const before = { kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'apps' }, spec: { parentRefs: [{ name: 'a', namespace: NS }] } };
    const after = { kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'apps' }, spec: { parentRefs: [{ name: 'b', namespace: NS }] } };
    expect(keys(affectedGateways(w, before, after))).toEqual(['infra/a', 'infra/b']);
  });
  it('Service, Secret, GatewayClass, Namespace', () => {
    expect(keys(affectedGateways(w, undefined, obj('Service', { name: 'svc', namespace: 'apps' })))).toEqual(['infra/a']);
    expect(keys(affectedGateways(w, obj('Secret', { name: 'cert', namespace: NS }), undefined))).toEqual(['infra/c']);
    expect(keys(affectedGateways(w, obj('Secret', { name: 'client', namespace: NS }), undefined))).toEqual(['infra/c']);
    expect(keys(affectedGateways(w, obj('Secret', { name: 'unrelated', namespace: NS }), undefined))).toEqual([]);
    expect(keys(affectedGateways(w, undefined, obj('GatewayClass', { name: 'sw' })))).toEqual(['infra/a', 'infra/b']);
    // the CA of a BackendTLSPolicy targeting a Service a's route reaches; the same name elsewhere reaches nobody
    expect(keys(affectedGateways(w, undefined, obj('ConfigMap', { name: 'svc-ca', namespace: 'apps' })))).toEqual(['infra/a']);
    expect(keys(affectedGateways(w, undefined, obj('ConfigMap', { name: 'svc-ca', namespace: NS })))).toEqual([]);
    expect(keys(affectedGateways(w, undefined, { kind: 'BackendTLSPolicy', metadata: { name: 'q', namespace: 'apps' },
      spec: { targetRefs: [{ group: '', kind: 'Service', name: 'svc' }] } } as never))).toEqual(['infra/a']);
    // any Namespace change recomputes the Gateways that select namespaces (a cheap over-inclusion)
    expect(keys(affectedGateways(w, obj('Namespace', { name: 'apps' }), obj('Namespace', { name: 'apps', labels: { z: '1' } })))).toEqual(['infra/b']);
  });
});

describe('the routes\' dependencies counted across calls', () => {
  const route = (i: number, svc: string, ns = 'app') => ({ metadata: { namespace: ns, name: `r${i}` }, spec: { rules: [{ backendRefs: [{ name: svc }, { name: 'shared' }] }, { backendRefs: [{ name: svc, namespace: 'other' }] }] } });
  const keysOf = (deps: Dependency[]) => keySet(deps);
  it('are the dependencies of the routes, whatever was replaced since the counts before', () => {
    let x = 5;
    const int = (n: number) => ((x = (x * 1103515245 + 12345) >>> 0) % n);
    const memo = new WeakMap<object, Dependency[]>();
    let routes = Array.from({ length: 40 }, (_, i) => route(i, `svc-${i % 7}`));
    let counted = routesDependencies(routes, memo);
    for (let step = 0; step < 200; step++) {
      const op = int(10);
      if (op === 0) routes = [...routes, route(100 + step, `svc-${int(12)}`)];
      else if (op === 1 && routes.length > 1) routes = routes.filter((_, j) => j !== int(routes.length));
      else {
        routes = routes.slice();
        for (let k = 1 + int(3); k > 0; k--) routes[int(routes.length)] = route(int(1000), `svc-${int(12)}`, int(4) === 0 ? 'team' : 'app');
      }
      counted = routesDependencies(routes, memo, counted);
      expect(keysOf(counted.unique), `step ${step}`).toEqual(keysOf(routes.flatMap((r) => routeDependencies(r))));
    }
  });
});
