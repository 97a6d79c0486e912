// ListenerSet through the real HTTP server, store and worker: validation of a write, the apply path
// with its conditions, routes attaching through a ListenerSet (status, snapshot, resolve), the
// changes that must reach the Gateway (a route naming the ListenerSet, the ListenerSet moving to
// another Gateway, a Namespace label the Gateway's allowedListeners selects), history, the events
// feed, a rebuild of the projections, and the GatewayClass's choice of status reasons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, reconciled, startTestServer, type TestServer } from '../support/server';
import { rebuildProjections } from '../../src/service/rebuild';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const GWG = 'gateway.networking.k8s.io';
const GW = `${GWG}/v1`;
const CONTROLLER = 'switchyard.dev/gateway-controller';
const LS_PATH = '/api/v1/namespaces/team-a/listenersets/shop';

async function ok(method: string, path: string, body?: unknown) {
  const r = await s.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

/** The snapshot's listener names once the API's delivery hub holds what the worker wrote (it is told by a notice). */
async function snapshotListeners(gateway: string, want: string[]): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const names = (await ok('GET', `/api/v1/namespaces/infra/gateways/${gateway}/snapshot`)).table.listeners.map((l: any) => l.name);
    if (JSON.stringify(names) === JSON.stringify(want) || Date.now() > deadline) return names;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cond = (conds: any[] | undefined, type: string) => (conds ?? []).find((c) => c.type === type);
const parentFor = (route: any, kind: string) => route.status?.parents?.find((p: any) => p.parentRef.kind === kind && p.controllerName === CONTROLLER);

function gateway(name: string, from: 'Same' | 'None' | 'Selector') {
  return {
    apiVersion: GW, kind: 'Gateway', metadata: { name, namespace: 'infra' },
    spec: {
      gatewayClassName: 'switchyard',
      allowedListeners: { namespaces: from === 'Selector' ? { from, selector: { matchLabels: { listeners: 'yes' } } } : { from } },
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: 'www.example.com' }],
    },
  };
}

function listenerSet(gatewayName: string) {
  return {
    apiVersion: GW, kind: 'ListenerSet', metadata: { name: 'shop', namespace: 'team-a' },
    spec: {
      parentRef: { name: gatewayName, namespace: 'infra' },
      listeners: [
        { name: 'shop', port: 80, protocol: 'HTTP', hostname: 'shop.example.com' },
        { name: 'www', port: 80, protocol: 'HTTP', hostname: 'www.example.com' },
      ],
    },
  };
}

const route = {
  apiVersion: GW, kind: 'HTTPRoute', metadata: { name: 'cart', namespace: 'team-a' },
  spec: {
    parentRefs: [{ group: GWG, kind: 'ListenerSet', name: 'shop' }],
    rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/cart' } }], backendRefs: [{ name: 'cart', port: 80 }] }],
  },
};

describe('ListenerSet', () => {
  beforeAll(async () => {
    await ok('PUT', '/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } });
    await ok('PUT', '/api/v1/namespaces/team-a', { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: { listeners: 'yes' } } });
    await ok('PUT', '/api/v1/namespaces/team-a/services/cart', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
    await ok('PUT', '/api/v1/namespaces/team-a/endpointslices/cart-1', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'cart' } },
      addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.7'], conditions: { ready: true } }], ports: [{ port: 80 }],
    });
  });

  it('is validated by the CRD rules, with the path of the field', async () => {
    const bad = listenerSet('open');
    (bad.spec.listeners[0] as any).tls = { certificateRefs: [{ name: 'c' }] };
    const r = await s.api('PUT', LS_PATH, bad);
    expect(r.status).toBe(422);
    expect(r.body.errors).toContainEqual(expect.objectContaining({ path: 'spec.listeners', message: expect.stringContaining("tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']") }));
    const noParent = await s.api('PUT', LS_PATH, { ...listenerSet('open'), spec: { listeners: listenerSet('open').spec.listeners } });
    expect(noParent.status).toBe(422);
    expect(noParent.body.errors).toContainEqual(expect.objectContaining({ path: 'spec.parentRef' }));
    expect((await s.api('GET', LS_PATH)).status).toBe(404);
  });

  it('applies with its Gateway and route, and the apply answers with its conditions', async () => {
    const res = await fetch(`${s.url}/api/v1/apply?wait=30`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [gateway('open', 'Selector'), listenerSet('open'), route] }),
    });
    const body: any = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    const ls = body.results.find((r: any) => r.kind === 'ListenerSet');
    expect(ls).toMatchObject({ namespace: 'team-a', name: 'shop', action: 'created' });
    expect(cond(ls.conditions, 'Accepted')).toMatchObject({ status: 'True', reason: 'ListenersNotValid' });
    expect(cond(ls.conditions, 'Programmed')).toMatchObject({ status: 'True', reason: 'Programmed' });
  });

  it('carries its listeners into the Gateway: status, snapshot and resolve', async () => {
    await reconciled(s);
    const ls = await ok('GET', LS_PATH);
    const byName = new Map<string, any>(ls.status.listeners.map((l: any) => [l.name, l]));
    expect(cond(byName.get('shop').conditions, 'Programmed')).toMatchObject({ status: 'True' });
    expect(byName.get('shop').attachedRoutes).toBe(1);
    // the Gateway's own listener came first and keeps its hostname
    expect(cond(byName.get('www').conditions, 'Conflicted')).toMatchObject({ status: 'True', reason: 'HostnameConflict' });
    const gw = await ok('GET', '/api/v1/namespaces/infra/gateways/open');
    expect(gw.status.attachedListenerSets).toBe(1);
    expect(gw.status.listeners.map((l: any) => l.name)).toEqual(['http']);
    const rt = await ok('GET', '/api/v1/namespaces/team-a/httproutes/cart');
    expect(rt.status.parents).toHaveLength(1);
    expect(parentFor(rt, 'ListenerSet').parentRef).toEqual({ group: GWG, kind: 'ListenerSet', name: 'shop' });
    expect(cond(parentFor(rt, 'ListenerSet').conditions, 'Accepted')).toMatchObject({ status: 'True', reason: 'Accepted' });

    const snap = await ok('GET', '/api/v1/namespaces/infra/gateways/open/snapshot');
    const shop = snap.table.listeners.find((l: any) => l.name === 'shop');
    expect(shop).toMatchObject({ listenerSet: { namespace: 'team-a', name: 'shop' }, port: 80, hostname: 'shop.example.com', valid: true });
    expect(snap.table.listeners.find((l: any) => l.name === 'www')).toMatchObject({ listenerSet: { namespace: 'team-a', name: 'shop' }, valid: false });
    const hit = await ok('POST', '/api/v1/namespaces/infra/gateways/open/resolve', { hostname: 'shop.example.com', path: '/cart/1' });
    expect(hit).toMatchObject({ forwarded: true, listener: 'shop', route: { kind: 'HTTPRoute', namespace: 'team-a', name: 'cart' } });
    const own = await ok('POST', '/api/v1/namespaces/infra/gateways/open/resolve', { hostname: 'www.example.com', path: '/cart/1' });
    expect(own).toMatchObject({ matched: false, statusCode: 404, listener: 'http' });
  });

  it('a change of the ListenerSet, of a route naming it or of a Namespace label reaches the Gateway', async () => {
    // a second route, written after the ListenerSet: it names the ListenerSet only
    await ok('PUT', '/api/v1/namespaces/team-a/httproutes/late', { ...route, metadata: { name: 'late', namespace: 'team-a' } });
    await reconciled(s);
    expect(cond(parentFor(await ok('GET', '/api/v1/namespaces/team-a/httproutes/late'), 'ListenerSet').conditions, 'Accepted'))
      .toMatchObject({ status: 'True' });
    expect((await ok('GET', LS_PATH)).status.listeners.find((l: any) => l.name === 'shop').attachedRoutes).toBe(2);

    // the Namespace loses the label the Gateway's allowedListeners selects
    await ok('PUT', '/api/v1/namespaces/team-a', { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: {} } });
    await reconciled(s);
    let ls = await ok('GET', LS_PATH);
    expect(cond(ls.status.conditions, 'Accepted')).toMatchObject({ status: 'False', reason: 'NotAllowed' });
    expect(cond(parentFor(await ok('GET', '/api/v1/namespaces/team-a/httproutes/cart'), 'ListenerSet').conditions, 'Accepted'))
      .toMatchObject({ status: 'False', reason: 'NotAllowedByListeners' });
    expect((await ok('GET', '/api/v1/namespaces/infra/gateways/open')).status.attachedListenerSets).toBe(0);
    expect(await snapshotListeners('open', ['http'])).toEqual(['http']);

    // moved to a Gateway that allows ListenerSets of its own namespace only: still not allowed, and
    // the first Gateway lets go of it
    await ok('PUT', '/api/v1/namespaces/infra/gateways/same', gateway('same', 'Same'));
    await ok('PUT', LS_PATH, listenerSet('same'));
    await reconciled(s);
    ls = await ok('GET', LS_PATH);
    expect(cond(ls.status.conditions, 'Accepted')).toMatchObject({ status: 'False', reason: 'NotAllowed', message: expect.stringContaining('"infra/same"') });
    expect((await ok('GET', '/api/v1/namespaces/infra/gateways/open')).status.attachedListenerSets).toBe(0);
    expect((await ok('GET', '/api/v1/namespaces/team-a/httproutes/cart')).status.parents).toHaveLength(1);

    // back, and the label again
    await ok('PUT', LS_PATH, listenerSet('open'));
    await ok('PUT', '/api/v1/namespaces/team-a', { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: { listeners: 'yes' } } });
    await reconciled(s);
    ls = await ok('GET', LS_PATH);
    expect(cond(ls.status.conditions, 'Accepted')).toMatchObject({ status: 'True' });
    expect(ls.status.conditions.every((c: any) => c.observedGeneration === ls.metadata.generation)).toBe(true);
    expect(await snapshotListeners('open', ['http', 'shop', 'www'])).toEqual(['http', 'shop', 'www']);
  });

  it('has a history and is in the events feed', async () => {
    const h = await ok('GET', `${LS_PATH}/history`);
    expect(h.items.map((v: any) => v.type)).toEqual(['Created', 'Updated', 'Updated']);
    const first = await ok('GET', `${LS_PATH}/history/1`);
    expect(first.spec.parentRef).toEqual({ group: GWG, kind: 'Gateway', name: 'open', namespace: 'infra' });
    const ev = await ok('GET', '/api/v1/events?kind=ListenerSet&namespace=team-a&limit=100');
    expect(ev.items.map((e: any) => `${e.type} ${e.name} ${e.version}`)).toEqual(['Created shop 1', 'Updated shop 2', 'Updated shop 3']);
  });

  it('survives a rebuild of the projections, and the worker writes its status again', async () => {
    const before = await ok('GET', LS_PATH);
    await rebuildProjections(s.running.ctx.db);
    await ok('PUT', '/api/v1/namespaces/infra/gateways/open', { ...gateway('open', 'Selector'), metadata: { name: 'open', namespace: 'infra', labels: { touched: 'yes' } } });
    await reconciled(s);
    const after = await ok('GET', LS_PATH);
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(cond(after.status.conditions, 'Accepted')).toMatchObject({ status: 'True' });
  });

  it('takes the status reasons its GatewayClass chooses (switchyard.dev/listener-set-status), and a value the annotation does not know is refused', async () => {
    const classPath = '/api/v1/gatewayclasses/switchyard';
    const gatewayClass = (value?: string) => ({ apiVersion: GW, kind: 'GatewayClass',
      metadata: value ? { annotations: { 'switchyard.dev/listener-set-status': value } } : {}, spec: { controllerName: CONTROLLER } });
    const www = async () => Object.fromEntries((await ok('GET', LS_PATH)).status.listeners.find((l: any) => l.name === 'www').conditions
      .map((c: any) => [c.type, `${c.status}/${c.reason}`]));
    const bad = await s.api('PUT', classPath, gatewayClass('latest'));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toContainEqual(expect.objectContaining({ path: 'metadata.annotations[switchyard.dev/listener-set-status]', reason: 'FieldValueNotSupported' }));

    // the class opts into Gateway API #4815's reading: the Gateway's recompute rewrites its ListenerSets
    await ok('PUT', classPath, gatewayClass('pr4815'));
    await reconciled(s);
    expect(await www()).toMatchObject({ Accepted: 'False/Conflicted', Programmed: 'False/Invalid', Conflicted: 'True/HostnameConflict' });
    expect(cond((await ok('GET', classPath)).status.conditions, 'Accepted')).toMatchObject({ status: 'True', message: expect.stringContaining('#4815') });

    // and back to the released tests' reasons
    await ok('PUT', classPath, gatewayClass());
    await reconciled(s);
    expect(await www()).toMatchObject({ Accepted: 'False/HostnameConflict', Programmed: 'False/HostnameConflict', Conflicted: 'True/HostnameConflict' });
    expect(cond((await ok('GET', classPath)).status.conditions, 'Accepted')?.message).not.toContain('#4815');
  });
});
