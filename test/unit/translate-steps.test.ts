// translate() is its steps run in order; the steps are exported and compose to the same answer,
// and the memos live in the context passed in, nowhere else.
import { describe, expect, it } from 'vitest';
import { translate, TranslationContext, DEFAULT_CAPACITY } from '../../src/core/translate';
import { attachmentOf, attachRoutes, validateGateway } from '../../src/core/attach';
import { resolveReferences, viewOf } from '../../src/core/refs';
import { httpEntryMatch, orderGateway } from '../../src/core/precedence/order';
import { compileTable } from '../../src/core/compile';
import type { World } from '../../src/core/model/world';

const CONTROLLER = 'switchyard.dev/gateway-controller';
const opts = { controllerName: CONTROLLER, now: '2026-03-02T00:00:00.000Z' };
const ref = { namespace: 'infra', name: 'gw' };

function world(): World {
  const route = (name: string, path: string) => ({
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
    metadata: { name, namespace: 'infra', creationTimestamp: '2026-01-01T00:00:00.000Z', generation: 1 },
    spec: { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw' }],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ group: '', kind: 'Service', name: 'web', port: 80, weight: 1 }] }] },
  });
  return {
    gatewayClasses: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'sy' }, spec: { controllerName: CONTROLLER } }],
    gateways: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra', generation: 1 },
      spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } }],
    routes: [route('a', '/a'), route('b', '/b'), { ...route('c', '/c'), spec: { ...route('c', '/c').spec, parentRefs: [{ name: 'gw', sectionName: 'nope' }] } }],
    referenceGrants: [], namespaces: [],
    services: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'infra' }, spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] } }],
    endpointSlices: [{ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-1', namespace: 'infra', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4', ports: [{ name: 'http', protocol: 'TCP', port: 8080 }], endpoints: [{ addresses: ['10.0.0.1'] }] }],
    secrets: [], configMaps: [],
  } as unknown as World;
}

describe('translate', () => {
  it('is its steps in order', () => {
    const w = world();
    const ctx = new TranslationContext();
    const view = viewOf(w, ctx);
    const validated = validateGateway(view, ref, opts)!;
    expect(validated.listeners.map((l) => [l.name, l.valid])).toEqual([['http', true]]);
    const attached = attachRoutes(view, validated);
    expect(attached.outcomes.map((o) => [o.route.metadata.name, o.accepted, o.reason])).toEqual([
      ['a', true, 'Accepted'], ['b', true, 'Accepted'], ['c', false, 'NoMatchingParent'],
    ]);
    const refs = resolveReferences(view, validated.gateway, attached.routes);
    expect([...refs.routes.values()].map((r) => r.resolved)).toEqual([true, true, true]);
    const attachment = attachmentOf({ ...validated, ...attached });
    const ordered = orderGateway(ctx, attachment);
    expect(ordered[0].http!.map((e) => httpEntryMatch(e).path.value)).toEqual(['/a', '/b']);
    const table = compileTable(view, attachment, ordered, { includeUnattached: false, addresses: validated.verdict.addresses });

    const t = translate(w, ref, opts)!;
    expect(table).toEqual(t.table);
    expect(t.unattached.map((u) => [u.name, u.reason])).toEqual([['c', 'NoMatchingParent']]);
    expect([...t.routeParents].map((r) => r.name)).toEqual(['a', 'b', 'c']);
    expect(translate(w, { namespace: 'infra', name: 'missing' }, opts)).toBeUndefined();
  });

  it('keeps its memos in the context it is given', () => {
    const w = world();
    const ctx = new TranslationContext();
    const first = translate(w, ref, opts, undefined, ctx)!;
    const again = translate(w, ref, opts, undefined, ctx)!;
    const other = translate(w, ref, opts, undefined, new TranslationContext())!;
    // a compiled rule's part is made once per context: the same part again, another one elsewhere
    const rule = (t: typeof first) => t.compiledParts.rules.parts.get(t.compiledParts.rules.ids[0]);
    expect(rule(again)).toBe(rule(first));
    expect(rule(other)).not.toBe(rule(first));
    expect(rule(other)!.text).toBe(rule(first)!.text);
    expect(other.table).toEqual(first.table);
  });

  it('has one capacity setting', () => {
    expect(new TranslationContext().capacity).toBe(DEFAULT_CAPACITY);
    expect(new TranslationContext({ capacity: 4 }).capacity).toBe(4);
    expect(() => new TranslationContext({ capacity: 0 })).toThrow(RangeError);
  });
});
