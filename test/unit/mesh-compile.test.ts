// compileMesh: which routes govern a Service port for clients of one namespace (producer routes for
// everyone, consumer routes for their own namespace and before the producer's), per port, in
// precedence order, with the Service's own endpoints where no route applies.
import { describe, expect, it } from 'vitest';
import { compileMesh, meshParentOutcomes } from '../../src/core/mesh';
import { viewOf } from '../../src/core/refs/lookup';
import { worldOf } from '../support/compile-world';

const svc = (ns: string, name: string, extra: object = {}) => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, annotations: { 'test/endpoints': '2' } },
  spec: { clusterIP: `10.96.0.${name.length}`, ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'grpc', port: 7070 }], ...extra },
});
const route = (kind: string, ns: string, name: string, parentRefs: object[], rules: object[]) => ({
  apiVersion: 'gateway.networking.k8s.io/v1', kind, metadata: { name, namespace: ns }, spec: { parentRefs, rules },
});
const parent = (name: string, extra: object = {}) => ({ group: '', kind: 'Service', name, ...extra });

const objects = [
  svc('prod', 'echo'), svc('prod', 'echo-v2'), svc('prod', 'headless', { clusterIP: 'None' }),
  route('HTTPRoute', 'prod', 'split', [parent('echo')], [
    { backendRefs: [{ name: 'echo', port: 80, weight: 3 }, { name: 'echo-v2', port: 80, weight: 1 }] },
    { matches: [{ path: { type: 'PathPrefix', value: '/v2' } }], backendRefs: [{ name: 'echo-v2', port: 80 }], timeouts: { request: '2s' } },
  ]),
  // a consumer route in "shop": for shop's clients only, and instead of the producer's
  route('HTTPRoute', 'shop', 'mine', [parent('echo', { namespace: 'prod', port: 80 })], [
    { filters: [{ type: 'ResponseHeaderModifier', responseHeaderModifier: { set: [{ name: 'x-mine', value: '1' }] } }], backendRefs: [{ name: 'echo', namespace: 'prod', port: 80 }] },
  ]),
  route('GRPCRoute', 'prod', 'rpc', [parent('echo', { port: 7070 })], [{ backendRefs: [{ name: 'echo-v2', port: 7070 }] }]),
  route('HTTPRoute', 'prod', 'lost-to-grpc', [parent('echo', { port: 7070 })], [{ backendRefs: [{ name: 'echo', port: 7070 }] }]),
  route('HTTPRoute', 'prod', 'to-headless', [parent('headless')], [{ backendRefs: [{ name: 'echo', port: 80 }] }]),
  route('HTTPRoute', 'prod', 'to-nothing', [parent('missing')], [{ backendRefs: [{ name: 'echo', port: 80 }] }]),
];

describe('compileMesh', () => {
  const world = worldOf(objects);

  it('gives producer routes to every client, in precedence order, per port', () => {
    const t = compileMesh(world, 'other');
    const echo = t.services.find((s) => s.name === 'echo')!;
    expect(echo.clusterIPs).toEqual(['10.96.0.4']);
    const http = echo.ports.find((p) => p.port === 80)!;
    expect(http.routeKind).toBe('HTTPRoute');
    expect(http.consumer).toBe(false);
    // /v2 (rule 1) before / (rule 0): longest prefix first
    const rules = http.httpRoutes!.map((e) => t.rules[e.rule]);
    expect(rules.map((r) => [t.routes[r.route].name, r.index])).toEqual([['split', 1], ['split', 0]]);
    expect(rules[0].timeouts).toEqual({ requestMs: 2000 });
    expect(rules[1].backends.map((b) => [b.name, b.weight, b.valid, b.endpoints.length])).toEqual([['echo', 3, true, 2], ['echo-v2', 1, true, 2]]);
    expect(http.httpRoutes!.every((e) => e.hostname === '')).toBe(true);
  });

  it('gives a consumer namespace its own routes instead of the producer routes', () => {
    const t = compileMesh(world, 'shop');
    const http = t.services.find((s) => s.name === 'echo')!.ports.find((p) => p.port === 80)!;
    expect(http.consumer).toBe(true);
    expect(http.httpRoutes!.map((e) => t.routes[t.rules[e.rule].route].name)).toEqual(['mine']);
    // the consumer route names port 80 only: the gRPC port keeps the producer's GRPCRoute
    const grpc = t.services.find((s) => s.name === 'echo')!.ports.find((p) => p.port === 7070)!;
    expect(grpc.routeKind).toBe('GRPCRoute');
    expect(grpc.consumer).toBe(false);
  });

  it('lets a GRPCRoute win a port over an HTTPRoute (GEP-1294) and refuses the loser as Conflicted', () => {
    const t = compileMesh(world, 'prod');
    const grpc = t.services.find((s) => s.name === 'echo')!.ports.find((p) => p.port === 7070)!;
    expect(grpc.httpRoutes).toBeUndefined();
    expect(grpc.grpcRoutes!.map((e) => t.routes[t.rules[e.rule].route].name)).toEqual(['rpc']);
    const byName = new Map(meshParentOutcomes(viewOf(world)).map((o) => [o.route.metadata.name, o]));
    expect(byName.get('lost-to-grpc')).toMatchObject({ accepted: false, reason: 'Conflicted' });
    expect(byName.get('to-headless')).toMatchObject({ accepted: false, reason: 'NoMatchingParent' });
    expect(byName.get('to-nothing')).toMatchObject({ accepted: false, reason: 'NoMatchingParent' });
    expect(byName.get('mine')).toMatchObject({ accepted: true, consumer: true, ports: [80] });
  });

  it('sends a port no route governs to the Service\'s own endpoints', () => {
    const t = compileMesh(world, 'prod');
    const p = t.services.find((s) => s.name === 'echo-v2')!.ports.find((x) => x.port === 80)!;
    expect(p.routeKind).toBeUndefined();
    expect(p.backend).toMatchObject({ kind: 'Service', namespace: 'prod', name: 'echo-v2', port: 80, valid: true });
    expect(p.backend.endpoints.map((e) => e.port)).toEqual([8080, 8080]);
    expect(t.services.find((s) => s.name === 'headless')!.clusterIPs).toEqual([]);
  });

  it('is deterministic whatever the order of its inputs', () => {
    const a = JSON.stringify(compileMesh(worldOf(objects), 'shop'));
    const b = JSON.stringify(compileMesh(worldOf([...objects].reverse().map((o, i) => ({ ...o, metadata: { ...o.metadata, creationTimestamp: new Date(Date.parse('2026-03-01T10:00:00.000Z') + 1000 * (objects.length - 1 - i)).toISOString() } }))), 'shop'));
    expect(b).toBe(a);
  });
});
