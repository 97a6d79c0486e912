// Why an object has no status (src/core/analyze/explain.ts), over plain objects.
import { describe, it, expect } from 'vitest';
import { explainNeeds, explainStatus } from '../../src/core/analyze';
import type { Gateway, GatewayClass, K8sObject } from '../../src/core/model/objects';

const CONTROLLER = 'switchyard.dev/gateway-controller';
const G = 'gateway.networking.k8s.io/v1';

const cls = (name: string, controllerName = CONTROLLER) => ({ apiVersion: G, kind: 'GatewayClass', metadata: { name }, spec: { controllerName } }) as GatewayClass;
const gw = (name: string, className: string, status?: object) =>
  ({ apiVersion: G, kind: 'Gateway', metadata: { name, namespace: 'shop' }, spec: { gatewayClassName: className, listeners: [] }, ...(status ? { status } : {}) }) as Gateway;
const route = (parentRefs: object[], status?: object) =>
  ({ apiVersion: G, kind: 'HTTPRoute', metadata: { name: 'web', namespace: 'shop' }, spec: { parentRefs }, ...(status ? { status } : {}) }) as K8sObject;

const listenerSet = (gateway: string) =>
  ({ apiVersion: G, kind: 'ListenerSet', metadata: { name: 'extra', namespace: 'team' }, spec: { parentRef: { name: gateway, namespace: 'infra' }, listeners: [] } }) as K8sObject;

const explain = (object: K8sObject, gateways: Gateway[] = [], gatewayClasses: GatewayClass[] = []) =>
  explainStatus({ object, gateways, gatewayClasses, controllerName: CONTROLLER }).entries.map((e) => [e.parentRefIndex ?? '-', e.reason]);

describe('explainStatus', () => {
  it('a Gateway: its class missing, of another controller, ours and not yet reported, reported', () => {
    expect(explain(gw('a', 'nope') as K8sObject)).toEqual([['-', 'GatewayClassNotFound']]);
    expect(explain(gw('a', 'istio') as K8sObject, [], [cls('istio', 'istio.io/gateway-controller')])).toEqual([['-', 'GatewayClassOfAnotherController']]);
    expect(explain(gw('a', 'mine') as K8sObject, [], [cls('mine')])).toEqual([['-', 'Pending']]);
    const reported = gw('a', 'mine', { conditions: [{ type: 'Accepted', status: 'True' }] });
    expect(explain(reported as K8sObject, [], [cls('mine')])).toEqual([['-', 'Reported']]);
  });

  it('a route: no parentRefs at all', () => {
    const [entry] = explainStatus({ object: route([]), gateways: [], gatewayClasses: [], controllerName: CONTROLLER }).entries;
    expect(entry.reason).toBe('NoParentRefs');
    expect(entry.message).toMatch(/no parentRefs/);
  });

  it('a route: one entry per parentRef, each saying what stands in its way', () => {
    const object = route([
      { name: 'missing' },
      { name: 'theirs' },
      { name: 'classless' },
      { name: 'mine' },
      { name: 'mine', sectionName: 'web' },
      { group: 'example.com', kind: 'Mesh', name: 'm' },
    ], { parents: [{ controllerName: CONTROLLER, parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'mine', sectionName: 'web' }, conditions: [] }] });
    const gateways = [gw('theirs', 'istio'), gw('classless', 'gone'), gw('mine', 'ours')];
    const classes = [cls('istio', 'istio.io/gateway-controller'), cls('ours')];
    expect(explain(object, gateways, classes)).toEqual([
      [0, 'GatewayNotFound'], [1, 'GatewayClassOfAnotherController'], [2, 'GatewayClassNotFound'],
      [3, 'Pending'], [4, 'Reported'], [5, 'UnsupportedParentKind'],
    ]);
    const messages = explainStatus({ object, gateways, gatewayClasses: classes, controllerName: CONTROLLER }).entries.map((e) => e.message);
    expect(messages[0]).toBe('spec.parentRefs[0] names Gateway "shop/missing", which does not exist');
    expect(messages[1]).toMatch(/controller is "istio.io\/gateway-controller", not this one/);
  });

  it('a BackendTLSPolicy: no Gateway of ours reaches it, or reported by one', () => {
    const policy = (ancestors: object[]) => ({ apiVersion: G, kind: 'BackendTLSPolicy', metadata: { name: 'p', namespace: 'shop' },
      spec: { targetRefs: [{ group: '', kind: 'Service', name: 'svc' }] }, status: { ancestors } }) as K8sObject;
    expect(explain(policy([]))).toEqual([['-', 'NoAncestor']]);
    expect(explain(policy([{ controllerName: 'istio.io/gateway-controller', ancestorRef: { name: 'x' }, conditions: [] }]))).toEqual([['-', 'NoAncestor']]);
    expect(explain(policy([{ controllerName: CONTROLLER, ancestorRef: { name: 'gw' }, conditions: [] }]))).toEqual([['-', 'Reported']]);
    expect(explainNeeds(policy([]))).toEqual({ gateways: [], gatewayClasses: [], listenerSets: [] });
  });

  it('a GatewayClass of another controller', () => {
    expect(explain(cls('istio', 'istio.io/gateway-controller') as K8sObject)).toEqual([['-', 'GatewayClassOfAnotherController']]);
  });

  it('says what it needs read: the Gateways a route names, the class of a Gateway', () => {
    expect(explainNeeds(route([{ name: 'a' }, { name: 'b', namespace: 'infra' }, { kind: 'Service', group: '', name: 'svc' }]))).toEqual({
      gateways: [{ namespace: 'shop', name: 'a' }, { namespace: 'infra', name: 'b' }], gatewayClasses: [], listenerSets: [],
    });
    expect(explainNeeds(gw('a', 'mine') as K8sObject)).toEqual({ gateways: [], gatewayClasses: ['mine'], listenerSets: [] });
    expect(explainNeeds(route([{ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'ls' }])))
      .toEqual({ gateways: [], gatewayClasses: [], listenerSets: [{ namespace: 'shop', name: 'ls' }] });
    expect(explainNeeds(listenerSet('edge'))).toEqual({ gateways: [{ namespace: 'infra', name: 'edge' }], gatewayClasses: [], listenerSets: [] });
  });

  it('a ListenerSet, and a route through one: reported by the controller of the Gateway the ListenerSet names', () => {
    const edge = { ...gw('edge', 'ours'), metadata: { name: 'edge', namespace: 'infra' } } as Gateway;
    expect(explain(listenerSet('gone'), [edge], [cls('ours')])).toEqual([['-', 'GatewayNotFound']]);
    expect(explain(listenerSet('edge'), [edge], [cls('ours')])).toEqual([['-', 'Pending']]);
    expect(explain({ ...listenerSet('edge'), status: { conditions: [{ type: 'Accepted', status: 'False' }] } }, [edge], [cls('ours')])).toEqual([['-', 'Reported']]);
    const LS = { group: 'gateway.networking.k8s.io', kind: 'ListenerSet' };
    const object = route([{ ...LS, name: 'missing' }, { ...LS, name: 'ls' }, { ...LS, name: 'ls', sectionName: 'a' }],
      // an entry for a Gateway of the same name is not the ListenerSet's
      { parents: [{ controllerName: CONTROLLER, parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'ls' }, conditions: [] },
        { controllerName: CONTROLLER, parentRef: { ...LS, name: 'ls', sectionName: 'a' }, conditions: [] }] });
    const sets = [{ ...listenerSet('edge'), metadata: { name: 'ls', namespace: 'shop' } }] as never;
    const entries = explainStatus({ object, gateways: [edge], gatewayClasses: [cls('ours')], listenerSets: sets, controllerName: CONTROLLER }).entries;
    expect(entries.map((e) => [e.parentRefIndex, e.reason])).toEqual([[0, 'ListenerSetNotFound'], [1, 'Pending'], [2, 'Reported']]);
    expect(explainStatus({ object, gateways: [], gatewayClasses: [cls('ours')], listenerSets: sets, controllerName: CONTROLLER }).entries[1])
      .toMatchObject({ reason: 'GatewayNotFound', message: expect.stringContaining('Gateway "infra/edge"') });
  });
});
