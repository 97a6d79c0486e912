// Kubernetes Events through the real server, the real worker and the real kubectl (1.32 here): a
// route refused then accepted shows both in `kubectl get events`, `kubectl events` and the Events
// of `kubectl describe`; a flapping condition counts into one Event; a proxy that rejects a table
// or falls behind is a Warning on its Gateway; Events are read only, scoped by namespace, never
// in the event log, and gone after their retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { kubectlFor, kubectlMissing, type Kubectl } from '../support/kubectl';
import { recordEvents } from '../../src/adapters/store/kube-events';

const missing = kubectlMissing();
if (missing) console.log(`test/int/kube-events.test.ts: the kubectl parts skipped: ${missing}`);

const GW = 'gateway.networking.k8s.io/v1';
const CONTROLLER = 'switchyard.dev/gateway-controller';

function gateway(name: string, listeners: unknown[]) {
  return { apiVersion: GW, kind: 'Gateway', metadata: { name, namespace: 'infra' }, spec: { gatewayClassName: 'switchyard', listeners } };
}
const selective = { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { 'gateway-access': 'allowed' } } } } };

function route(ns: string, name: string, gw = 'public') {
  return {
    apiVersion: GW, kind: 'HTTPRoute', metadata: { name, namespace: ns },
    spec: { parentRefs: [{ name: gw, namespace: 'infra' }], rules: [{ backendRefs: [{ name: 'api', port: 8080 }] }] },
  };
}

const namespace = (name: string, allowed: boolean) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(allowed ? { labels: { 'gateway-access': 'allowed' } } : {}) } });

async function put(s: TestServer, path: string, body: unknown) {
  const r = await s.api('PUT', path, body);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
}

const kube = (s: TestServer, token?: string) => {
  const c = client(s.url, token);
  return (method: string, path: string, body?: unknown, headers?: Record<string, string>) => c(method, `/k8s${path}`, body, headers);
};

describe('Kubernetes Events of status transitions', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ rateLimitPerSecond: 0 });
    await put(s, '/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } });
    await put(s, '/api/v1/namespaces/infra', namespace('infra', false));
    await put(s, '/api/v1/namespaces/team', namespace('team', false));
    await put(s, '/api/v1/namespaces/infra/gateways/public', gateway('public', [selective]));
    await put(s, '/api/v1/namespaces/team/services/api', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 8080 }] } });
    await put(s, '/api/v1/namespaces/team/httproutes/web', route('team', 'web'));
    await reconciled(s);
    // the namespace allowed: the route is accepted
    await put(s, '/api/v1/namespaces/team', namespace('team', true));
    await reconciled(s);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('records the refusal and the acceptance, each once, as core v1 and events.k8s.io/v1 Events', async () => {
    const k = kube(s);
    const core = await k('GET', '/api/v1/namespaces/team/events');
    expect(core.status).toBe(200);
    expect(core.body).toMatchObject({ apiVersion: 'v1', kind: 'EventList' });
    const ofRoute = core.body.items.filter((e: any) => e.involvedObject.name === 'web');
    expect(ofRoute.map((e: any) => [e.type, e.reason])).toEqual(expect.arrayContaining([['Warning', 'NotAllowedByListeners'], ['Normal', 'Accepted']]));
    expect(ofRoute).toHaveLength(2);
    const refused = ofRoute.find((e: any) => e.reason === 'NotAllowedByListeners');
    const routeUid = (await s.api('GET', '/api/v1/namespaces/team/httproutes/web')).body.metadata.uid;
    expect(refused).toMatchObject({
      involvedObject: { kind: 'HTTPRoute', namespace: 'team', name: 'web', apiVersion: GW, uid: routeUid },
      source: { component: CONTROLLER }, reportingComponent: CONTROLLER, count: 1,
    });
    expect(refused.message).toContain('Not accepted by Gateway infra/public');
    expect(refused.metadata.name).toMatch(/^web\.[0-9a-f]+$/);

    const v1 = await k('GET', '/apis/events.k8s.io/v1/namespaces/team/events');
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'EventList' });
    const accepted = v1.body.items.find((e: any) => e.reason === 'Accepted' && e.regarding.name === 'web');
    expect(accepted).toMatchObject({ type: 'Normal', reportingController: CONTROLLER, action: 'Attach', regarding: { kind: 'HTTPRoute', uid: routeUid } });
    expect(accepted.note).toContain('Accepted by Gateway infra/public');
    expect(accepted.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // one at its own path, in either version
    const one = await k('GET', `/apis/events.k8s.io/v1/namespaces/team/events/${accepted.metadata.name}`);
    expect(one.status).toBe(200);
    expect(one.body.metadata.uid).toBe(accepted.metadata.uid);
    const missingOne = await k('GET', '/api/v1/namespaces/team/events/nope');
    expect(missingOne.status).toBe(404);
    expect(missingOne.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('records the Gateway programmed, and nothing for a recompute that changes no condition', async () => {
    const k = kube(s);
    const gw = (await k('GET', '/api/v1/namespaces/infra/events?fieldSelector=involvedObject.kind%3DGateway')).body.items;
    expect(gw.map((e: any) => [e.type, e.reason, e.involvedObject.name])).toEqual([['Normal', 'Programmed', 'public']]);
    const before = (await k('GET', '/api/v1/events')).body.items.length;
    // a second route in an allowed namespace changes the Gateway's attached-route count alone
    await put(s, '/api/v1/namespaces/team/httproutes/other', route('team', 'other'));
    await reconciled(s);
    const after = (await k('GET', '/api/v1/events')).body.items;
    expect(after.length).toBe(before + 1);
    expect(after.filter((e: any) => e.involvedObject.name === 'other').map((e: any) => e.reason)).toEqual(['Accepted']);
  });

  it('a listener conflict is a Warning on its Gateway, naming the listener', async () => {
    await put(s, '/api/v1/namespaces/infra/gateways/clash', gateway('clash', [
      { name: 'a', port: 8080, protocol: 'HTTP', hostname: 'x.example' },
      { name: 'b', port: 8080, protocol: 'TCP' },
    ]));
    await reconciled(s);
    const items = (await kube(s)('GET', '/apis/events.k8s.io/v1/namespaces/infra/events?fieldSelector=regarding.name%3Dclash,type%3DWarning')).body.items;
    const conflicts = items.filter((e: any) => e.reason === 'ProtocolConflict');
    expect(conflicts.length).toBeGreaterThan(0);
    expect(conflicts[0].regarding.fieldPath).toMatch(/^spec\.listeners\{[ab]\}$/);
    expect(conflicts[0].note).toMatch(/^Listener "[ab]" is conflicted/);
  });

  it('a flapping condition counts into one Event per transition, with series and count', async () => {
    for (const allowed of [false, true, false, true]) {
      await put(s, '/api/v1/namespaces/team', namespace('team', allowed));
      await reconciled(s);
    }
    const core = (await kube(s)('GET', '/api/v1/namespaces/team/events?fieldSelector=involvedObject.name%3Dweb')).body.items;
    expect(core).toHaveLength(2);
    for (const e of core) {
      expect(e.count).toBe(3);
      expect(e.series).toMatchObject({ count: 3 });
      expect(Date.parse(e.lastTimestamp)).toBeGreaterThanOrEqual(Date.parse(e.firstTimestamp));
    }
    const v1 = (await kube(s)('GET', '/apis/events.k8s.io/v1/namespaces/team/events?fieldSelector=regarding.name%3Dweb')).body.items;
    expect(v1.map((e: any) => e.deprecatedCount)).toEqual([3, 3]);
    // the selector narrows the query, not its pages: the first page of one holds one of web's
    // (the namespace's first Event by name is other's), the next the other one
    const page = (await kube(s)('GET', '/api/v1/namespaces/team/events?fieldSelector=involvedObject.name%3Dweb&limit=1')).body;
    expect(page.items.map((e: any) => e.involvedObject.name)).toEqual(['web']);
    const next = (await kube(s)('GET', `/api/v1/namespaces/team/events?fieldSelector=involvedObject.name%3Dweb&limit=1&continue=${page.metadata.continue}`)).body;
    expect(next.items.map((e: any) => e.involvedObject.name)).toEqual(['web']);
    expect(next.items[0].metadata.name).not.toBe(page.items[0].metadata.name);
    expect(next.metadata.continue).toBeUndefined();
  });

  it('a repeat after the retention starts a new count; an Event of an object that is gone is not recorded', async () => {
    const db = s.running.ctx.db;
    const draft = { regarding: { apiVersion: GW, kind: 'Gateway', namespace: 'infra', name: 'public' }, type: 'Normal' as const, reason: 'Checked', action: 'Check', note: 'checked' };
    const rec = { controller: CONTROLLER, instance: 'test', retentionSeconds: 3600 };
    const row = async () => (await db.prisma.$queryRawUnsafe<{ count: number; first_time: Date }[]>(`SELECT count, first_time FROM kube_events WHERE reason = 'Checked'`))[0];
    expect(await recordEvents(db.sql, [draft, draft], rec)).toBe(1);
    expect(await recordEvents(db.sql, [draft], rec)).toBe(1);
    expect((await row()).count).toBe(2);
    await db.prisma.$executeRawUnsafe(`UPDATE kube_events SET last_time = last_time - interval '2 hours', first_time = first_time - interval '3 hours' WHERE reason = 'Checked'`);
    await recordEvents(db.sql, [draft], rec);
    const again = await row();
    expect(again.count).toBe(1);
    expect(Date.now() - new Date(again.first_time).getTime()).toBeLessThan(60_000);
    expect(await recordEvents(db.sql, [{ ...draft, regarding: { ...draft.regarding, name: 'gone' } }], rec)).toBe(0);
    await db.prisma.$executeRawUnsafe(`DELETE FROM kube_events WHERE reason = 'Checked'`);
  });

  it('Events are not objects of the event log', async () => {
    const feed = await s.api('GET', '/api/v1/events?limit=1000');
    expect(feed.status).toBe(200);
    const items = feed.body.items ?? feed.body;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((e: any) => e.kind !== 'Event' && e.object?.kind !== 'Event')).toBe(true);
    const [{ n }] = await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM events WHERE kind = 'Event'`);
    expect(n).toBe(0);
  });

  it('writes are 405 MethodNotAllowed; a token reads the Events of its namespaces only', async () => {
    const k = kube(s);
    const post = await k('POST', '/api/v1/namespaces/team/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'x' } });
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    const dev = kube(s, await mintToken(s, { name: 'dev-team', role: 'developer', namespaces: ['team'] }));
    expect((await dev('GET', '/api/v1/namespaces/team/events')).status).toBe(200);
    const other = await dev('GET', '/api/v1/namespaces/infra/events');
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    const all = (await dev('GET', '/api/v1/events')).body.items;
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((e: any) => e.metadata.namespace === 'team')).toBe(true);
    const proxy = kube(s, await mintToken(s, { name: 'proxy-public', role: 'proxy', gateways: ['infra/public'] }));
    expect((await proxy('GET', '/api/v1/events')).status).toBe(403);
  });

  it('a proxy that rejects a table, falls behind, and catches up: Warnings then Normal on its Gateway', async () => {
    const snap = await s.api('GET', '/api/v1/namespaces/infra/gateways/public/snapshot');
    expect(snap.status).toBe(200);
    const version = Number(snap.body.version);
    const report = (body: unknown) => s.api('PUT', '/api/v1/namespaces/infra/gateways/public/proxies/p1', body);
    expect((await report({ version, hash: null })).status).toBe(200);
    expect((await report({ version, hash: null, error: `version ${version + 1} not applied: bad cluster` })).status).toBe(200);
    // the same error again is no new transition
    expect((await report({ version, hash: null, error: `version ${version + 1} not applied: bad cluster` })).status).toBe(200);
    const events = async () => (await kube(s)('GET', '/apis/events.k8s.io/v1/namespaces/infra/events?fieldSelector=regarding.name%3Dpublic')).body.items;
    const rejected = (await events()).filter((e: any) => e.reason === 'ProxyRejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ type: 'Warning', deprecatedCount: 1 });
    expect(rejected[0].note).toContain('Proxy "p1" rejected the route table: version');
    expect((await report({ version, hash: null })).status).toBe(200);
    expect((await events()).filter((e: any) => e.reason === 'ProxySynced')).toHaveLength(1);

    // a new table: a proxy still on the old one right after it is not stale yet (it is being sent it)
    await put(s, '/api/v1/namespaces/team/httproutes/newer', route('team', 'newer'));
    await reconciled(s);
    const current = Number((await s.api('GET', '/api/v1/namespaces/infra/gateways/public/snapshot')).body.version);
    expect(current).toBeGreaterThan(version);
    expect((await report({ version, hash: null })).status).toBe(200);
    expect((await events()).filter((e: any) => e.reason === 'ProxyStale')).toEqual([]);
    // still on it once the table is older than a healthy proxy takes to catch up (the table's time
    // set back rather than the test waiting it out)
    await s.running.ctx.db.prisma.$executeRawUnsafe(`UPDATE snapshots SET updated_at = updated_at - interval '1 minute' WHERE gateway = 'Gateway/infra/public'`);
    expect((await report({ version, hash: null })).status).toBe(200);
    expect((await report({ version, hash: null })).status).toBe(200);
    const stale = (await events()).filter((e: any) => e.reason === 'ProxyStale');
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({ type: 'Warning', deprecatedCount: 1, note: `Proxy "p1" serves version ${version} of the route table; the current one is ${current}` });
    expect((await report({ version: current, hash: null })).status).toBe(200);
    expect((await events()).filter((e: any) => e.reason === 'ProxySynced').map((e: any) => e.note)).toContain(`Proxy "p1" serves the current route table (version ${current})`);
  });
});

describe.skipIf(missing !== null)('Kubernetes Events through kubectl', () => {
  let s: TestServer;
  let k: Kubectl;
  beforeAll(async () => {
    s = await startTestServer({ rateLimitPerSecond: 0 });
    k = kubectlFor(s, 'test-admin-token-0123456789', 'admin');
    await put(s, '/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } });
    await put(s, '/api/v1/namespaces/infra', namespace('infra', false));
    await put(s, '/api/v1/namespaces/team', namespace('team', false));
    await put(s, '/api/v1/namespaces/infra/gateways/public', gateway('public', [selective]));
    await put(s, '/api/v1/namespaces/team/httproutes/web', route('team', 'web'));
    await reconciled(s);
    await put(s, '/api/v1/namespaces/team', namespace('team', true));
    await reconciled(s);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('kubectl get events shows both, with the upstream columns', async () => {
    const r = await k.run(['get', 'events', '-n', 'team']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(r.stdout).toMatch(/Warning\s+NotAllowedByListeners\s+httproute\/web\s+Not accepted by Gateway infra\/public/);
    expect(r.stdout).toMatch(/Normal\s+Accepted\s+httproute\/web\s+Accepted by Gateway infra\/public/);
    const all = await k.run(['get', 'events', '-A']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.split('\n')[0].split(/\s{2,}/)[0]).toBe('NAMESPACE');
    expect(all.stdout).toMatch(/infra\s+\S+\s+Normal\s+Programmed\s+gateway\/public/);
    const wide = await k.run(['get', 'events', '-n', 'team', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toContain('COUNT');
  }, 60_000);

  it('kubectl explain reads the Event schemas of both versions', async () => {
    const core = await k.run(['explain', 'events.involvedObject']);
    expect(core.code, core.stderr).toBe(0);
    expect(core.stdout).toContain('KIND:       Event');
    expect(core.stdout).toContain('fieldPath');
    const v1 = await k.run(['explain', 'events.series', '--api-version=events.k8s.io/v1']);
    expect(v1.code, v1.stderr).toBe(0);
    expect(v1.stdout).toContain('lastObservedTime');
  }, 60_000);

  it('kubectl events lists them, and --for narrows to one object', async () => {
    const r = await k.run(['events', '-n', 'team']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Warning\s+NotAllowedByListeners\s+HTTPRoute\/web/);
    expect(r.stdout).toMatch(/Normal\s+Accepted\s+HTTPRoute\/web/);
    const gw = await k.run(['events', '-n', 'infra', '--for', 'gateway/public']);
    expect(gw.code, gw.stderr).toBe(0);
    expect(gw.stdout).toMatch(/Normal\s+Programmed\s+Gateway\/public/);
  }, 60_000);

  it('kubectl describe shows them in its Events section', async () => {
    const r = await k.run(['describe', 'httproute', 'web', '-n', 'team']);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout.slice(r.stdout.lastIndexOf('Events:'));
    expect(events).toMatch(/Warning\s+NotAllowedByListeners\s+\S+\s+switchyard\.dev\/gateway-controller\s+Not accepted by Gateway infra\/public/);
    expect(events).toMatch(/Normal\s+Accepted\s+\S+\s+switchyard\.dev\/gateway-controller\s+Accepted by Gateway infra\/public/);
  }, 60_000);

  it('a repeat counts into its Event: kubectl describe and get events show (xN over ...)', async () => {
    for (const allowed of [false, true]) {
      await put(s, '/api/v1/namespaces/team', namespace('team', allowed));
      await reconciled(s);
    }
    const d = await k.run(['describe', 'httproute', 'web', '-n', 'team']);
    expect(d.code, d.stderr).toBe(0);
    const events = d.stdout.slice(d.stdout.lastIndexOf('Events:'));
    expect(events).toMatch(/Warning\s+NotAllowedByListeners\s+\S+ \(x2 over \S+\)\s+switchyard/);
    expect(events).toMatch(/Normal\s+Accepted\s+\S+ \(x2 over \S+\)\s+switchyard/);
    const wide = await k.run(['get', 'events', '-n', 'team', '-o', 'wide', '--field-selector', 'type=Warning']);
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout.trim().split('\n')).toHaveLength(2);
    expect(wide.stdout).toMatch(/NotAllowedByListeners\s+httproute\/web\s+switchyard\.dev\/gateway-controller, \S+\s+Not accepted .*\s2\s+web\.[0-9a-f]+\s*$/m);
  }, 60_000);

  it('kubectl events -w and get events -w show a new Event as it is recorded', async () => {
    const watch = k.spawn(['events', '-n', 'team', '-w']);
    const get = k.spawn(['get', 'events', '-n', 'team', '-w']);
    let out = '';
    let got = '';
    watch.stdout!.on('data', (d) => (out += d));
    get.stdout!.on('data', (d) => (got += d));
    try {
      for (let i = 0; i < 50 && !(out.includes('NotAllowedByListeners') && got.includes('NotAllowedByListeners')); i++) await new Promise((r) => setTimeout(r, 100));
      await put(s, '/api/v1/namespaces/team/httproutes/late', route('team', 'late'));
      await reconciled(s);
      for (let i = 0; i < 100 && !(/HTTPRoute\/late/.test(out) && /httproute\/late/.test(got)); i++) await new Promise((r) => setTimeout(r, 100));
    } finally {
      watch.kill();
      get.kill();
    }
    expect(out).toMatch(/Normal\s+Accepted\s+HTTPRoute\/late/);
    expect(got).toMatch(/Normal\s+Accepted\s+httproute\/late/);
  }, 60_000);
});

describe('Kubernetes Events retention', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ rateLimitPerSecond: 0, kubeEventsRetentionSeconds: 2 });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('an Event last seen longer ago than KUBE_EVENTS_RETENTION_SECONDS is gone', async () => {
    await put(s, '/api/v1/gatewayclasses/switchyard', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } });
    await put(s, '/api/v1/namespaces/infra/gateways/public', gateway('public', [selective]));
    await reconciled(s);
    const k = kube(s);
    expect((await k('GET', '/api/v1/namespaces/infra/events')).body.items.map((e: any) => e.reason)).toEqual(['Programmed']);
    const rows = async () => Number((await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM kube_events'))[0].n);
    expect(await rows()).toBe(1);
    // the sweep runs every second at this retention: the row itself is deleted
    for (let i = 0; i < 100 && (await rows()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await rows()).toBe(0);
    expect((await k('GET', '/api/v1/namespaces/infra/events')).body.items).toEqual([]);
  }, 30_000);
});
