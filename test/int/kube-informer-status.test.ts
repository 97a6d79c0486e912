// Informers see statuses: a status the reconciler writes is a new resourceVersion on the Kubernetes
// paths, carried by a MODIFIED watch event, so an informer from @kubernetes/client-node (1.4 on
// Node 20, 2.x on Node 22, which it needs) has each Gateway's and route's status in its cache as the
// reconciler writes it, in order, across a restart of the API process. A raw watch never carries two
// events with one resourceVersion for one object, and a write with a resourceVersion read before a
// status change is a 409, as kube-apiserver answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeconfig } from '../../src/core/kube/kubeconfig';
import { ADMIN_TOKEN, reconciled, startTestServer, type TestServer } from '../support/server';
import { freshDatabaseUrl, needs, skippable } from '../support/database';
import { tempDir } from '../support/temp-dir';

const GW = 'gateway.networking.k8s.io';
const NS = 'team-s';
const CONTROLLER = 'switchyard.dev/gateway-controller';
const gateways = `/apis/${GW}/v1/namespaces/${NS}/gateways`;
const routes = `/apis/${GW}/v1/namespaces/${NS}/httproutes`;
const node22 = Number(process.versions.node.split('.')[0]) >= 22;

type Obj = { metadata: { name: string; resourceVersion: string; generation?: number }; status?: any };

// 'None': a selector no namespace matches, so the listener admits no route
const gateway = (from: 'Same' | 'None') => ({
  apiVersion: `${GW}/v1`, kind: 'Gateway', metadata: { name: 'edge' },
  spec: {
    gatewayClassName: 'sy',
    listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: from === 'Same' ? { from } : { from: 'Selector', selector: { matchLabels: { admitted: 'never' } } } } }],
  },
});
const route = (name: string, path: string) => ({
  apiVersion: `${GW}/v1`, kind: 'HTTPRoute', metadata: { name },
  spec: { parentRefs: [{ name: 'edge' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }] }] },
});

const cond = (conditions: any[] | undefined, type: string) => conditions?.find((c) => c.type === type);
/** what an operator reads off a status: the Gateway's Programmed, a route's Accepted by its parent */
const summary = (kind: 'Gateway' | 'HTTPRoute', o: Obj): string => kind === 'Gateway'
  ? `Programmed=${cond(o.status?.conditions, 'Programmed')?.status ?? '-'}`
  : `Accepted=${cond(o.status?.parents?.[0]?.conditions, 'Accepted')?.status ?? '-'}/${cond(o.status?.parents?.[0]?.conditions, 'Accepted')?.reason ?? '-'}`;

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const restartable = needs({ pg: true });
describe.skipIf(restartable.skip)(skippable(restartable, 'informers and watches see statuses'), () => {
  let s: TestServer;
  let db: { url?: string; drop: () => Promise<void> };
  let dataDir: string;
  const start = (port = 0) => startTestServer({ port, dataDir, rateLimitPerSecond: 0 }, { databaseUrl: db.url });

  beforeAll(async () => {
    dataDir = tempDir('sy-informer-status-');
    db = await freshDatabaseUrl();
    s = await start();
    expect((await s.api('PUT', '/api/v1/gatewayclasses/sy', { apiVersion: `${GW}/v1`, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await db?.drop();
  });

  it(`an informer (client-node ${node22 ? '2.x' : '1.4'}) has each status in its cache as the reconciler writes it, in order, across a restart`, async () => {
    // the two majors share the informer and custom-objects API this test uses
    const k8s = (node22 ? await import('kubernetes-client-node-2') : await import('@kubernetes/client-node')) as typeof import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromString(kubeconfig(`https://127.0.0.1:${s.running.port}/k8s`, 'admin', ADMIN_TOKEN, readFileSync(join(dataDir, 'kube-tls.crt'), 'utf8')));
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    // what each informer delivered, per object: resourceVersion and the status summary, in order
    const seen: Record<string, { rv: number; summary: string }[]> = {};
    const informers = (['Gateway', 'HTTPRoute'] as const).map((kind) => {
      const plural = kind === 'Gateway' ? 'gateways' : 'httproutes';
      const informer = k8s.makeInformer<Obj & { kind?: string }>(kc, kind === 'Gateway' ? gateways : routes,
        () => api.listNamespacedCustomObject({ group: GW, version: 'v1', namespace: NS, plural }) as never);
      const record = (o: Obj) => (seen[`${kind}/${o.metadata.name}`] ??= []).push({ rv: Number(o.metadata.resourceVersion), summary: summary(kind, o) });
      informer.on('add', record);
      informer.on('update', record);
      // an informer stops at an error (the API away); it is started again, and resumes where it was
      informer.on('error', () => { setTimeout(() => void informer.start().catch(() => undefined), 500); });
      return { kind, informer };
    });
    const cached = (kind: 'Gateway' | 'HTTPRoute', name: string) => {
      const i = informers.find((x) => x.kind === kind)!.informer;
      const o = i.get(name, NS);
      return o ? summary(kind, o as Obj) : undefined;
    };
    for (const { informer } of informers) await informer.start();
    try {
      await s.api('POST', gateways, gateway('Same'));
      await s.api('POST', routes, route('web', '/'));
      await reconciled(s);
      await until(() => cached('Gateway', 'edge') === 'Programmed=True' && cached('HTTPRoute', 'web') === 'Accepted=True/Accepted', 'the first statuses in the cache');

      const port = s.running.port;
      // the whole test server: its queue's keys go with it (the database, given by URL, stays)
      await s.close();
      s = await start(port);
      // the listener stops admitting routes: the route's status changes, its spec does not
      expect((await s.api('PUT', `${gateways}/edge`, gateway('None'))).status).toBe(200);
      await reconciled(s);
      await until(() => cached('HTTPRoute', 'web') === 'Accepted=False/NotAllowedByListeners', 'the refusal after the restart');
      await s.api('PUT', `${gateways}/edge`, gateway('Same'));
      await reconciled(s);
      await until(() => cached('HTTPRoute', 'web') === 'Accepted=True/Accepted', 'the route accepted again');
    } finally {
      for (const { informer } of informers) await informer.stop();
    }
    // in order: each object's resourceVersions only grow, and the route went accepted, refused, accepted
    for (const [key, list] of Object.entries(seen)) {
      for (let i = 1; i < list.length; i++) expect(list[i].rv, `${key} #${i}`).toBeGreaterThan(list[i - 1].rv);
    }
    const routeStates = seen['HTTPRoute/web'].map((e) => e.summary).filter((x, i, a) => i === 0 || a[i - 1] !== x);
    expect(routeStates.slice(routeStates.indexOf('Accepted=True/Accepted'))).toEqual(['Accepted=True/Accepted', 'Accepted=False/NotAllowedByListeners', 'Accepted=True/Accepted']);
  }, 120_000);

  it('a status change is a new resourceVersion on GET and list, and a write with the one read before it is a 409', async () => {
    expect((await s.api('POST', routes, route('pre', '/pre'))).status).toBe(201);
    await reconciled(s);
    const before = (await s.api('GET', `${routes}/pre`)).body as Obj;
    expect(summary('HTTPRoute', before)).toBe('Accepted=True/Accepted');
    await s.api('PUT', `${gateways}/edge`, gateway('None'));
    await reconciled(s);
    const after = (await s.api('GET', `${routes}/pre`)).body as Obj;
    expect(summary('HTTPRoute', after)).toBe('Accepted=False/NotAllowedByListeners');
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    expect(after.metadata.generation).toBe(before.metadata.generation);
    const listed = (await s.api('GET', routes)).body;
    expect(listed.items.find((o: Obj) => o.metadata.name === 'pre').metadata.resourceVersion).toBe(after.metadata.resourceVersion);
    expect(Number(listed.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(after.metadata.resourceVersion));

    // a write that carries the resourceVersion read before the status change: 409, nothing written
    const stale = await s.api('PUT', `${routes}/pre`, { ...route('pre', '/changed'), metadata: { name: 'pre', resourceVersion: before.metadata.resourceVersion } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    const fresh = await s.api('PUT', `${routes}/pre`, { ...route('pre', '/changed'), metadata: { name: 'pre', resourceVersion: after.metadata.resourceVersion } });
    expect(fresh.status).toBe(200);
    // our own paths keep the stream version: a status change is no change there
    const own = await s.api('GET', `/api/v1/namespaces/${NS}/httproutes/pre`);
    expect(own.body.metadata.resourceVersion).toBe('2');
    await s.api('PUT', `${gateways}/edge`, gateway('Same'));
    await reconciled(s);
  });

  it('a raw watch never carries two events with one resourceVersion for one object, and carries every status in order', async () => {
    const list = (await s.api('GET', routes)).body;
    const ac = new AbortController();
    const res = await fetch(`${s.url}${routes}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: ac.signal });
    const events: { type: string; object: Obj }[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) events.push(JSON.parse(line));
          }
        }
      } catch { /* aborted */ }
    })();
    for (let i = 0; i < 3; i++) {
      await s.api('PUT', `${gateways}/edge`, gateway(i % 2 === 0 ? 'None' : 'Same'));
      expect((await s.api('POST', routes, route(`w${i}`, `/w${i}`))).status).toBe(201);
      await reconciled(s);
    }
    await until(() => events.some((e) => e.object.metadata.name === 'w2' && summary('HTTPRoute', e.object) === 'Accepted=False/NotAllowedByListeners'), 'the last status on the watch');
    ac.abort();
    await reading;
    const byObject = new Map<string, number[]>();
    for (const e of events) (byObject.get(e.object.metadata.name) ?? byObject.set(e.object.metadata.name, []).get(e.object.metadata.name)!).push(Number(e.object.metadata.resourceVersion));
    for (const [name, rvs] of byObject) {
      expect(new Set(rvs).size, `${name}: ${rvs.join(', ')}`).toBe(rvs.length);
      expect([...rvs].sort((a, b) => a - b), name).toEqual(rvs);
    }
    // the route that was there all along followed the listener: refused, accepted, refused
    const web = events.filter((e) => e.object.metadata.name === 'web').map((e) => summary('HTTPRoute', e.object)).filter((x, i, a) => i === 0 || a[i - 1] !== x);
    expect(web).toEqual(['Accepted=False/NotAllowedByListeners', 'Accepted=True/Accepted', 'Accepted=False/NotAllowedByListeners']);
  }, 90_000);
});
