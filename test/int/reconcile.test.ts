// Attachment and status through the real HTTP server and the real worker (BullMQ on Redis when
// REDIS_URL is set, else in-process): the two-sided consent of the seed scenario, Gateway-only
// changes reaching routes, bursts, and status staying a projection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { needs, skippable } from '../support/database';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const GW = 'gateway.networking.k8s.io/v1';
const CONTROLLER = 'switchyard.dev/gateway-controller';

function gateway(from: 'Selector' | 'Same' | 'All', hostname?: string) {
  return {
    apiVersion: GW, kind: 'Gateway', metadata: { name: 'public', namespace: 'infra' },
    spec: {
      gatewayClassName: 'switchyard',
      listeners: [{
        name: 'http', port: 80, protocol: 'HTTP', ...(hostname ? { hostname } : {}),
        allowedRoutes: { namespaces: from === 'Selector' ? { from, selector: { matchLabels: { 'gateway-access': 'allowed' } } } : { from } },
      }],
    },
  };
}

function route(ns: string, name: string, path: string, hostnames?: string[]) {
  return {
    apiVersion: GW, kind: 'HTTPRoute', metadata: { name, namespace: ns },
    spec: {
      parentRefs: [{ name: 'public', namespace: 'infra' }],
      ...(hostnames ? { hostnames } : {}),
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'api', port: 8080 }] }],
    },
  };
}

const accepted = (obj: any) => obj.status?.parents?.find((p: any) => p.parentRef.name === 'public')?.conditions?.find((c: any) => c.type === 'Accepted');

async function get(path: string) {
  const r = await s.api('GET', path);
  expect(r.status).toBe(200);
  return r.body;
}

describe('the seed scenario: both sides must consent', () => {
  beforeAll(async () => {
    const puts: [string, unknown][] = [
      ['/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } }],
      ['/api/v1/namespaces/infra', { apiVersion: 'v1', kind: 'Namespace' }],
      ['/api/v1/namespaces/team-a', { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: { 'gateway-access': 'allowed' } } }],
      ['/api/v1/namespaces/team-b', { apiVersion: 'v1', kind: 'Namespace' }],
      ['/api/v1/namespaces/infra/gateways/public', gateway('Selector')],
      ['/api/v1/namespaces/team-a/services/api', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 8080 }] } }],
      ['/api/v1/namespaces/team-b/services/api', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 8080 }] } }],
      ['/api/v1/namespaces/team-a/httproutes/web', route('team-a', 'web', '/api')],
      ['/api/v1/namespaces/team-b/httproutes/steal', route('team-b', 'steal', '/api/admin')],
    ];
    for (const [path, body] of puts) expect((await s.api('PUT', path, body)).status).toBeLessThan(300);
    await reconciled(s);
  });

  it('accepts the GatewayClass with our supported features', async () => {
    const gc = await get('/api/v1/gatewayclasses/switchyard');
    expect(gc.status.conditions.find((c: any) => c.type === 'Accepted')).toMatchObject({ status: 'True', observedGeneration: 1 });
    expect(gc.status.supportedFeatures.map((f: any) => f.name)).toContain('HTTPRoute');
  });

  it("attaches team-a's route and refuses team-b's with NotAllowedByListeners", async () => {
    const web = await get('/api/v1/namespaces/team-a/httproutes/web');
    expect(accepted(web)).toMatchObject({ status: 'True', reason: 'Accepted', observedGeneration: 1 });
    expect(web.status.parents[0].controllerName).toBe(CONTROLLER);
    const steal = await get('/api/v1/namespaces/team-b/httproutes/steal');
    expect(accepted(steal)).toMatchObject({ status: 'False', reason: 'NotAllowedByListeners' });
    const gw = await get('/api/v1/namespaces/infra/gateways/public');
    expect(gw.status.listeners[0].attachedRoutes).toBe(1);
    expect(gw.status.conditions.find((c: any) => c.type === 'Programmed')).toMatchObject({ status: 'True', observedGeneration: 1 });
  });

  it('status is a projection: no resourceVersion, generation or event of its own', async () => {
    const web = await get('/api/v1/namespaces/team-a/httproutes/web');
    expect(web.metadata).toMatchObject({ resourceVersion: '1', generation: 1 });
    const events = await s.api('GET', '/api/v1/events?kind=HTTPRoute&limit=100');
    expect(events.body.items.filter((e: any) => e.name === 'web')).toHaveLength(1);
    const list = await get('/api/v1/namespaces/team-a/httproutes');
    expect(accepted(list.items[0])).toMatchObject({ status: 'True' });
  });

  it("admitting team-b's namespace by a label attaches its route", async () => {
    const before = accepted(await get('/api/v1/namespaces/team-b/httproutes/steal'));
    await s.api('PATCH', '/api/v1/namespaces/team-b', { metadata: { labels: { 'gateway-access': 'allowed' } } });
    await reconciled(s);
    const after = accepted(await get('/api/v1/namespaces/team-b/httproutes/steal'));
    expect(after).toMatchObject({ status: 'True', reason: 'Accepted' });
    expect(after.lastTransitionTime).not.toBe(before.lastTransitionTime);
    expect((await get('/api/v1/namespaces/infra/gateways/public')).status.listeners[0].attachedRoutes).toBe(2);
    await s.api('PATCH', '/api/v1/namespaces/team-b', { metadata: { labels: { 'gateway-access': null } } });
    await reconciled(s);
    expect(accepted(await get('/api/v1/namespaces/team-b/httproutes/steal'))).toMatchObject({ status: 'False', reason: 'NotAllowedByListeners' });
  });

  it('a change to the Gateway alone refreshes the statuses of its routes', async () => {
    const webBefore = accepted(await get('/api/v1/namespaces/team-a/httproutes/web'));
    await s.api('PUT', '/api/v1/namespaces/infra/gateways/public', gateway('Same'));
    await reconciled(s);
    const web = await get('/api/v1/namespaces/team-a/httproutes/web');
    expect(accepted(web)).toMatchObject({ status: 'False', reason: 'NotAllowedByListeners', observedGeneration: 1 });
    const gw = await get('/api/v1/namespaces/infra/gateways/public');
    expect(gw.metadata.generation).toBe(2);
    const generations = (conditions: any[]) => conditions.map((c) => `${c.type}@${c.observedGeneration}`);
    expect(generations(gw.status.conditions)).toEqual(['Accepted@2', 'Programmed@2', 'ResolvedRefs@2']);
    expect(generations(gw.status.listeners[0].conditions)).toEqual(['Accepted@2', 'Programmed@2', 'ResolvedRefs@2', 'Conflicted@2']);
    expect(gw.status.listeners[0].attachedRoutes).toBe(0);
    await s.api('PUT', '/api/v1/namespaces/infra/gateways/public', gateway('Selector'));
    await reconciled(s);
    const back = accepted(await get('/api/v1/namespaces/team-a/httproutes/web'));
    expect(back).toMatchObject({ status: 'True' });
    // the condition flipped twice: each flip is a transition of its own
    const times = [webBefore, accepted(web), back].map((c) => Date.parse(c.lastTransitionTime));
    expect(times[1]).toBeGreaterThan(times[0]);
    expect(times[2]).toBeGreaterThan(times[1]);
  });

  it('keeps lastTransitionTime when a recompute does not flip a condition', async () => {
    const before = accepted(await get('/api/v1/namespaces/team-a/httproutes/web'));
    await s.api('PATCH', '/api/v1/namespaces/team-a/httproutes/web', { metadata: { labels: { touched: 'yes' } } });
    await s.api('PATCH', '/api/v1/namespaces/team-a/services/api', { metadata: { labels: { touched: 'yes' } } });
    await reconciled(s);
    const after = accepted(await get('/api/v1/namespaces/team-a/httproutes/web'));
    expect(after.lastTransitionTime).toBe(before.lastTransitionTime);
  });

  it('after a burst of writes the status reflects the last one', async () => {
    const hostFor = (i: number) => (i % 2 === 0 ? 'shop.example.com' : 'other.example.org');
    await s.api('PUT', '/api/v1/namespaces/infra/gateways/public', gateway('Selector', '*.example.com'));
    const writes = [];
    for (let i = 0; i < 40; i++) writes.push(s.api('PUT', '/api/v1/namespaces/team-a/httproutes/burst', route('team-a', 'burst', '/b', [hostFor(i)])));
    for (const w of writes) expect((await w).status).toBeLessThan(300);
    // the order in which the writes landed decides the final hostname
    const final = await get('/api/v1/namespaces/team-a/httproutes/burst');
    await reconciled(s);
    const now = await get('/api/v1/namespaces/team-a/httproutes/burst');
    const want = now.spec.hostnames[0] === 'shop.example.com' ? { status: 'True' } : { status: 'False', reason: 'NoMatchingListenerHostname' };
    expect(now.metadata.resourceVersion).toBe(final.metadata.resourceVersion);
    expect(accepted(now)).toMatchObject({ ...want, observedGeneration: now.metadata.generation });
  });

  it('deleting the Gateway removes its entries from route statuses', async () => {
    await s.api('PUT', '/api/v1/namespaces/infra/gateways/gone', { ...gateway('All'), metadata: { name: 'gone', namespace: 'infra' } });
    await s.api('PUT', '/api/v1/namespaces/team-a/httproutes/two', { ...route('team-a', 'two', '/two'), spec: { ...route('team-a', 'two', '/two').spec, parentRefs: [{ name: 'public', namespace: 'infra' }, { name: 'gone', namespace: 'infra' }] } });
    await reconciled(s);
    expect((await get('/api/v1/namespaces/team-a/httproutes/two')).status.parents).toHaveLength(2);
    await s.api('DELETE', '/api/v1/namespaces/infra/gateways/gone');
    await reconciled(s);
    const two = await get('/api/v1/namespaces/team-a/httproutes/two');
    expect(two.status.parents.map((p: any) => p.parentRef.name)).toEqual(['public']);
  });
});

describe('controllers sharing one store', () => {
  const twoProcesses = needs({ pg: true });
  it.skipIf(twoProcesses.skip)(skippable(twoProcesses, "keep each other's status.parents entries untouched"), async () => {
    const other = await startTestServer({ controllerName: 'example.com/other-controller' }, { databaseUrl: s.databaseUrl });
    try {
      const put = async (path: string, body: unknown) => expect((await s.api('PUT', path, body)).status).toBeLessThan(300);
      await put('/api/v1/gatewayclasses/theirs', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'example.com/other-controller' } });
      await put('/api/v1/namespaces/infra/gateways/theirs', { ...gateway('All'), metadata: { name: 'theirs', namespace: 'infra' }, spec: { ...gateway('All').spec, gatewayClassName: 'theirs' } });
      await put('/api/v1/namespaces/infra/gateways/ours', { ...gateway('All'), metadata: { name: 'ours', namespace: 'infra' } });
      const r = route('team-a', 'shared', '/shared');
      await put('/api/v1/namespaces/team-a/httproutes/shared', { ...r, spec: { ...r.spec, parentRefs: [{ name: 'ours', namespace: 'infra' }, { name: 'theirs', namespace: 'infra' }] } });
      await reconciled(s);
      await reconciled(other);
      const first = await get('/api/v1/namespaces/team-a/httproutes/shared');
      const byName = (o: any, n: string) => o.status.parents.find((p: any) => p.parentRef.name === n);
      expect(byName(first, 'ours').controllerName).toBe(CONTROLLER);
      expect(byName(first, 'theirs').controllerName).toBe('example.com/other-controller');
      const gcOurs = await get('/api/v1/gatewayclasses/theirs');
      expect(gcOurs.status.conditions.find((c: any) => c.type === 'Accepted').status).toBe('True');
      // our Gateway changes: only our entry is recomputed, theirs stays as it was
      await put('/api/v1/namespaces/infra/gateways/ours', { ...gateway('Same'), metadata: { name: 'ours', namespace: 'infra' } });
      await reconciled(s);
      const after = await get('/api/v1/namespaces/team-a/httproutes/shared');
      expect(byName(after, 'ours').conditions.find((c: any) => c.type === 'Accepted')).toMatchObject({ status: 'False', reason: 'NotAllowedByListeners' });
      expect(byName(after, 'theirs')).toEqual(byName(first, 'theirs'));
    } finally {
      await other.close();
    }
  });
});

describe('a dependency that changes while its Gateway recomputes', () => {
  it('is noticed after the write, so the Gateway runs again', async () => {
    const { missedChanges } = await import('../../src/service/reconcile');
    const db = s.running.ctx.db;
    const [{ p }] = await db.sql.$queryRawUnsafe<{ p: number }[]>('SELECT max(position) AS p FROM events');
    const before = Number(p);
    // nothing that this Gateway depends on changed after `before`
    expect(await missedChanges(db, before, ['ReferenceGrant/certs', 'Service/team-a/api'])).toBe(false);
    const grant = { apiVersion: GW, kind: 'ReferenceGrant', spec: { from: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'infra' }], to: [{ group: '', kind: 'Secret' }] } };
    expect((await s.api('PUT', '/api/v1/namespaces/certs/referencegrants/let-infra', grant)).status).toBe(201);
    expect(await missedChanges(db, before, ['ReferenceGrant/certs'])).toBe(true);
    expect(await missedChanges(db, before, ['ReferenceGrant/other', 'Secret/certs/tls'])).toBe(false);
  });
});

describe("a Gateway's recomputes in one process", () => {
  const put = async (path: string, body: unknown) => expect((await s.api('PUT', path, body)).status).toBeLessThan(300);
  /** A class of its own for a Gateway `name` (a controller no other test runs) and a route team-a/`name` on it at `path`. */
  async function ownGateway(name: string, controllerName: string) {
    await put(`/api/v1/gatewayclasses/${name}`, { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName } });
    await put(`/api/v1/namespaces/infra/gateways/${name}`, { ...gateway('All'), metadata: { name, namespace: 'infra' }, spec: { ...gateway('All').spec, gatewayClassName: name } });
    const putRoute = (path: string) => {
      const r = route('team-a', name, path);
      return put(`/api/v1/namespaces/team-a/httproutes/${name}`, { ...r, spec: { ...r.spec, parentRefs: [{ name, namespace: 'infra' }] } });
    };
    await putRoute(`/${name}`);
    return putRoute;
  }

  it('run one at a time, so that a second run (a job handed out again) does not lose its write', async () => {
    const { Reconciler } = await import('../../src/service/reconcile');
    const controllerName = 'example.com/serial-controller';
    await ownGateway('serial', controllerName);
    const rec = new Reconciler(s.running.ctx.db, { controllerName });
    const both = await Promise.all([rec.recomputeGateway('infra', 'serial'), rec.recomputeGateway('infra', 'serial')]);
    expect(both.map((o) => o.written)).toEqual([true, true]);
    const routeNow = await get('/api/v1/namespaces/team-a/httproutes/serial');
    expect(routeNow.status.parents.find((p: any) => p.controllerName === controllerName).conditions.find((c: any) => c.type === 'Accepted').status).toBe('True');
  });

  it('runs nothing again from the log position its last write was made at, and keeps knowing what it wrote', async () => {
    const { Reconciler } = await import('../../src/service/reconcile');
    const controllerName = 'example.com/again-controller';
    const putRoute = await ownGateway('again', controllerName);
    const db = s.running.ctx.db;
    const statements: string[] = [];
    const counting: typeof db = { ...db, planned: (label, text, ...params) => (statements.push(label), db.planned(label, text, ...params)) };
    const rec = new Reconciler(counting, { controllerName });
    const first = await rec.recomputeGateway('infra', 'again');
    expect(first.written).toBe(true);
    // asked again at the position it read (a job handed out again while a long run held the loop)
    const again = await rec.recomputeGateway('infra', 'again', first.sourcePosition);
    expect([again.written, again.sourcePosition]).toEqual([false, first.sourcePosition]);
    // the run after a change starts from what this process wrote, not from the store's copy of it
    // (at 50,000 routes, reading every status entry back took 6 s)
    await putRoute('/again/v2');
    statements.length = 0;
    const next = await rec.recomputeGateway('infra', 'again');
    expect(next.written).toBe(true);
    expect(statements).not.toContain('switchyard_written_for');
    const snap = await s.api('GET', '/api/v1/namespaces/infra/gateways/again/snapshot');
    expect(snap.text).toContain('/again/v2');
  });
});
