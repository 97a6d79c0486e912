import { describe, it, expect } from 'vitest';
import { mergeConditions, draft, gatewayClassStatus, SUPPORTED_FEATURES, ConditionType, GatewayReason, ListenerReason, RouteReason } from '../../src/core/status';
import { translate } from '../../src/core/translate';
import type { World } from '../../src/core/model/world';
import { readFileSync } from 'node:fs';
import { contractFile } from '../support/corpora';

const CONTROLLER = 'switchyard.dev/gateway-controller';
const T0 = '2026-11-29T09:00:00.000Z';
const T1 = '2026-11-29T17:00:00.000Z';

function world(partial: Partial<World>): World {
  return { gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [],
    endpointSlices: [], secrets: [], configMaps: [], ...partial } as World;
}

describe('mergeConditions', () => {
  const owned = ['Accepted', 'Programmed', 'OverlappingTLSConfig'];
  const prev = [
    { type: 'example.com/Foo', status: 'True', reason: 'Foo', message: 'theirs', lastTransitionTime: T0 },
    { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'old', lastTransitionTime: T0, observedGeneration: 1 },
    { type: 'Programmed', status: 'False', reason: 'Pending', message: 'old', lastTransitionTime: T0, observedGeneration: 1 },
    { type: 'OverlappingTLSConfig', status: 'True', reason: 'OverlappingHostnames', message: 'stale', lastTransitionTime: T0 },
  ] as any;
  const out = mergeConditions([
    draft('Accepted', true, 'Accepted', 'new message'), draft('Programmed', true, 'Programmed', 'now programmed'),
  ], prev, { generation: 2, now: T1, owned });

  it('keeps lastTransitionTime unless the status flips, and always sets observedGeneration', () => {
    const byType = Object.fromEntries(out.map((c) => [c.type, c]));
    expect(byType.Accepted).toMatchObject({ lastTransitionTime: T0, observedGeneration: 2, message: 'new message' });
    expect(byType.Programmed).toMatchObject({ lastTransitionTime: T1, observedGeneration: 2, status: 'True' });
  });
  it('keeps foreign conditions and drops owned ones no longer computed', () => {
    expect(out.map((c) => c.type)).toEqual(['example.com/Foo', 'Accepted', 'Programmed']);
    expect(out[0]).toEqual(prev[0]);
  });
});

describe('the catalogue', () => {
  it('spells types and reasons as the spec does', () => {
    expect(ConditionType.ResolvedRefs).toBe('ResolvedRefs');
    expect(GatewayReason.ListenersNotValid).toBe('ListenersNotValid');
    expect(ListenerReason.InvalidTLSConfig).toBe('InvalidTLSConfig');
    expect(RouteReason.NoMatchingListenerHostname).toBe('NoMatchingListenerHostname');
  });
});

describe('gatewayClassStatus', () => {
  const gc = (controllerName: string, extra: any = {}): any => ({
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'c', generation: 4 }, spec: { controllerName, ...extra },
  });
  it('writes only classes of our controller', () => {
    expect(gatewayClassStatus(gc('example.com/other'), { controllerName: CONTROLLER, now: T1 })).toBeUndefined();
  });
  it('accepts ours, with SupportedVersion and the sorted feature list of the contract', () => {
    const st = gatewayClassStatus(gc(CONTROLLER), { controllerName: CONTROLLER, now: T1 })!;
    expect(st.conditions!.map((c) => `${c.type}=${c.status}/${c.reason}/${c.observedGeneration}`))
      .toEqual(['Accepted=True/Accepted/4', 'SupportedVersion=True/SupportedVersion/4']);
    const names = st.supportedFeatures!.map((f) => f.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual([...SUPPORTED_FEATURES]);
  });
  it('claims at least every feature contract.md lists', () => {
    const contract = readFileSync(contractFile(), 'utf8');
    const m = contract.match(/supportedFeatures`[^:]*lists at least: ([^]*?)\.\n/);
    expect(m).not.toBeNull();
    const listed = m![1].split(',').map((s) => s.trim()).filter(Boolean).sort();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((f) => !SUPPORTED_FEATURES.includes(f))).toEqual([]);
  });
  it('rejects a parametersRef it cannot resolve', () => {
    const st = gatewayClassStatus(gc(CONTROLLER, { parametersRef: { group: '', kind: 'ConfigMap', name: 'p', namespace: 'x' } }), { controllerName: CONTROLLER, now: T1 })!;
    expect(st.conditions![0]).toMatchObject({ type: 'Accepted', status: 'False', reason: 'InvalidParameters' });
  });
});

describe('translate', () => {
  const gc: any = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'sw' }, spec: { controllerName: CONTROLLER } };
  const gw: any = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra', generation: 7 },
    spec: { gatewayClassName: 'sw', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] } };
  const route: any = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'infra', generation: 3 },
    spec: { parentRefs: [{ name: 'gw' }, { name: 'elsewhere' }], rules: [{}] } };

  it('returns statuses for the Gateway and only its entries of each route', () => {
    const t = translate(world({ gatewayClasses: [gc], gateways: [gw], routes: [route] }), { namespace: 'infra', name: 'gw' }, { controllerName: CONTROLLER, now: T1 })!;
    expect(t.gatewayStatus.conditions!.every((c) => c.observedGeneration === 7)).toBe(true);
    expect(t.gatewayStatus.listeners![0]).toMatchObject({ name: 'http', attachedRoutes: 1 });
    const [only, ...others] = t.routeParents;
    expect(others).toHaveLength(0);
    expect(only.parents).toHaveLength(1);
    expect(only.parents[0]).toMatchObject({ controllerName: CONTROLLER, parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw' } });
    expect(only.parents[0].conditions.every((c) => c.observedGeneration === 3)).toBe(true);
  });

  it('uses explicit previous statuses for lastTransitionTime', () => {
    const w = world({ gatewayClasses: [gc], gateways: [gw], routes: [route] });
    const first = translate(w, { namespace: 'infra', name: 'gw' }, { controllerName: CONTROLLER, now: T0 })!;
    const second = translate(w, { namespace: 'infra', name: 'gw' }, { controllerName: CONTROLLER, now: T1 }, first)!;
    expect(second.gatewayStatus.conditions!.map((c) => c.lastTransitionTime)).toEqual([T0, T0, T0]);
    expect([...second.routeParents][0].parents[0].conditions.map((c) => c.lastTransitionTime)).toEqual([T0, T0]);
  });
});
