// The console's reading of a Gateway's attachments (console/src/attachments.ts): which routes name the
// Gateway, how each parent's conditions read, what would fix a refusal, and the listener change that
// admits a namespace and takes it back.
import { describe, expect, it } from 'vitest';
import { admittedIn, attachmentsOf, withNamespace } from '../../console/src/attachments';
import type { K8sObject } from '../../console/src/api';

const gw: K8sObject = {
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'shop-gateway', namespace: 'shop', resourceVersion: '1' },
  spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: '*.shop.example' }, { name: 'other', port: 8080, protocol: 'HTTP' }] },
};

const route = (ns: string, name: string, parents: unknown[], parentRefs: unknown[] = [{ name: 'shop-gateway', namespace: 'shop' }]): K8sObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name, namespace: ns },
  spec: { parentRefs, hostnames: ['www.shop.example'], rules: [{ backendRefs: [{ name: 'api', namespace: 'backends', port: 8080 }] }] },
  status: { parents },
});
const parent = (conditions: unknown[]) => ({ parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'shop-gateway', namespace: 'shop' }, controllerName: 'c', conditions });
const cond = (type: string, status: string, reason: string, message = `${type} ${reason}`) => ({ type, status, reason, message });

describe('attachmentsOf', () => {
  it('lists the routes that name the Gateway, refused first, each with the reason and what would fix it', () => {
    const rows = attachmentsOf(gw, [
      route('shop', 'api', [parent([cond('Accepted', 'True', 'Accepted'), cond('ResolvedRefs', 'True', 'ResolvedRefs')])]),
      route('team-b', 'admin', [parent([cond('Accepted', 'False', 'NotAllowedByListeners', 'listener "http" does not admit routes from namespace "team-b"')])]),
      route('team-c', 'cross', [parent([cond('Accepted', 'True', 'Accepted'), cond('ResolvedRefs', 'False', 'RefNotPermitted', 'backendRefs[0] is not permitted')])]),
      route('team-d', 'elsewhere', [], [{ name: 'another-gateway', namespace: 'shop' }]),
      route('team-e', 'new', []),
      route('shop', 'local', [], [{ name: 'shop-gateway' }]),
    ]);
    expect(rows.map((r) => `${r.namespace}/${r.name} ${r.state}`)).toEqual(['team-b/admin refused', 'shop/local pending', 'team-e/new pending', 'shop/api attached', 'team-c/cross attached']);
    expect(rows[0]).toMatchObject({ reason: 'NotAllowedByListeners', admit: 'team-b' });
    expect(rows[0].fix).toMatch(/admit routes from namespace "team-b"/);
    expect(rows[0].fix).not.toMatch(/allowedRoutes\.kinds/);
    expect(rows[4].refs?.message).toMatch(/A ReferenceGrant is missing: in backends, one that lets HTTPRoutes from namespace "team-c" refer to Services/);
  });

  it('says a refusal by kind is about the kinds, and offers no namespace to admit', () => {
    const [row] = attachmentsOf(gw, [route('shop', 'api', [parent([cond('Accepted', 'False', 'NotAllowedByListeners', 'no listener admits the kind HTTPRoute')])])]);
    expect(row.fix).toMatch(/admit HTTPRoutes \(its allowedRoutes\.kinds\)/);
    expect(row.admit).toBeUndefined();
  });

  it('names the listeners a hostname could intersect', () => {
    const [row] = attachmentsOf(gw, [route('shop', 'api', [parent([cond('Accepted', 'False', 'NoMatchingListenerHostname')])])]);
    expect(row.fix).toMatch(/www\.shop\.example\) intersect none of the listeners' \(\*\.shop\.example, \*\)/);
  });
});

describe('withNamespace', () => {
  it('admits a namespace by name and takes it back to the listener as it was', () => {
    const admitted = withNamespace(gw, 'http', 'team-b', true) as { name: string; allowedRoutes?: { namespaces: unknown } }[];
    expect(admitted[0].allowedRoutes).toEqual({ namespaces: { from: 'Selector', selector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['shop', 'team-b'] }] } } });
    expect(admitted[1]).toBe(gw.spec.listeners[1]);
    const after = { ...gw, spec: { ...gw.spec, listeners: admitted } };
    expect(admittedIn(after, admitted[0] as never).words).toBe('namespaces shop, team-b');
    const refused = withNamespace(after, 'http', 'team-b', false) as { allowedRoutes?: { namespaces: unknown } }[];
    expect(refused[0].allowedRoutes).toEqual({ namespaces: { from: 'Same' } });
    expect(admittedIn(gw, gw.spec.listeners[0]).words).toBe('namespace shop only');
  });
});
