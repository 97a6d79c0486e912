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
    expect(explainNeeds(policy([]))).toEqual({ gateways: [], gatewayClasses: [] });
  });

  it('a GatewayClass of another controller', () => {
    expect(explain(cls('istio', 'istio.io/gateway-controller') as K8sObject)).toEqual([['-', 'GatewayClassOfAnotherController']]);
  });

  it('says what it needs read: the Gateways a route names, the class of a Gateway', () => {
    expect(explainNeeds(route([{ name: 'a' }, { name: 'b', namespace: 'infra' }, { kind: 'Service', group: '', name: 'svc' }]))).toEqual({
      gateways: [{ namespace: 'shop', name: 'a' }, { namespace: 'infra', name: 'b' }], gatewayClasses: [],
    });
    expect(explainNeeds(gw('a', 'mine') as K8sObject)).toEqual({ gateways: [], gatewayClasses: ['mine'] });
  });
});
