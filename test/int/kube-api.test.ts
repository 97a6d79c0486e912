// The Kubernetes paths over HTTP, as kube-apiserver answers them: discovery, Status errors with
// causes, resourceVersion preconditions, lists (limit/continue, selectors, a resourceVersion that
// starts a watch), watch (resume, 410, no leak across namespaces), dryRun, fieldValidation, the
// status subresource, Table, SelfSubjectAccessReview, and the kubeconfig the server writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ADMIN_TOKEN, client, mintToken, reconciled, startTestServer, type Client, type TestServer } from '../support/server';
import { tempDir } from '../support/temp-dir';

let s: TestServer;
let dev: Client;
const GW = 'gateway.networking.k8s.io';
const routes = (ns: string) => `/apis/${GW}/v1/namespaces/${ns}/httproutes`;
const route = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${GW}/v1`, kind: 'HTTPRoute', metadata: { name, labels: { app: name } },
  spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] }, ...extra,
});
const eventCount = async () => Number((await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events'))[0].n);

/** Reads WatchEvents (one JSON a line) until `until` says enough or the time is up. */
async function watchEvents(path: string, until: (events: any[]) => boolean, token?: string, ms = 8000): Promise<{ status: number; events: any[] }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const res = await fetch(s.url + path, { headers: { authorization: `Bearer ${token ?? 'test-admin-token-0123456789'}` }, signal: ac.signal });
  const events: any[] = [];
  if (res.status !== 200) {
    clearTimeout(timer);
    return { status: res.status, events: [await res.json()] };
  }
  let buf = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += Buffer.from(chunk).toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
      if (until(events)) break;
    }
  } catch {
    /* aborted: the time is up */
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { status: 200, events };
}

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0, kubeWatchHistorySeconds: 2 });
  dev = client(s.url, await mintToken(s, { name: 'dev-a', role: 'developer', namespaces: ['team-a'] }));
});
afterAll(async () => {
  await s?.close();
});

describe('discovery', () => {
  it('lists the groups, the versions the contract names, and each resource with its names, verbs, scope and category', async () => {
    const apis = await s.api('GET', '/apis');
    expect(apis.status).toBe(200);
    const gw = apis.body.groups.find((g: any) => g.name === GW);
    expect(gw.preferredVersion.version).toBe('v1');
    expect(gw.versions.map((v: any) => v.version)).toEqual(expect.arrayContaining(['v1', 'v1beta1', 'v1alpha2', 'v1alpha3']));
    const v1 = await s.api('GET', `/apis/${GW}/v1`);
    const gateways = v1.body.resources.find((r: any) => r.name === 'gateways');
    expect(gateways).toMatchObject({ singularName: 'gateway', kind: 'Gateway', namespaced: true, shortNames: ['gtw'], categories: ['gateway-api'] });
    expect(gateways.verbs).toEqual(expect.arrayContaining(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']));
    expect(v1.body.resources.find((r: any) => r.name === 'gatewayclasses').namespaced).toBe(false);
    const alpha2 = await s.api('GET', `/apis/${GW}/v1alpha2`);
    expect(alpha2.body.resources.map((r: any) => r.name)).toEqual(expect.arrayContaining(['tlsroutes', 'tcproutes', 'udproutes']));
    const core = await s.api('GET', '/api/v1');
    expect(core.body.resources.find((r: any) => r.name === 'services')).toMatchObject({ kind: 'Service', shortNames: ['svc'], namespaced: true });
    expect((await s.api('GET', '/api')).body.versions).toEqual(['v1']);
    expect((await s.api('GET', '/apis/discovery.k8s.io/v1')).body.resources[0].name).toBe('endpointslices');
  });

  it('answers aggregated discovery to a client that asks for it', async () => {
    const r = await s.api('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    expect(r.headers.get('content-type')).toContain('as=APIGroupDiscoveryList');
    expect(r.body.kind).toBe('APIGroupDiscoveryList');
    const gw = r.body.items.find((i: any) => i.metadata.name === GW);
    expect(gw.versions[0].resources.find((x: any) => x.resource === 'httproutes')).toMatchObject({ scope: 'Namespaced', singularResource: 'httproute' });
  });

  it('serves the OpenAPI v3 documents with the kinds marked by group, version and kind', async () => {
    const root = await s.api('GET', '/openapi/v3');
    const url = root.body.paths[`apis/${GW}/v1`].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/gateway.networking.k8s.io\/v1\?hash=/);
    const doc = await s.api('GET', url);
    const route = Object.values(doc.body.components.schemas).find((x: any) => x['x-kubernetes-group-version-kind']?.[0]?.kind === 'HTTPRoute') as any;
    // inlined, as kube-apiserver publishes a CRD's schema; metadata by reference to ObjectMeta
    expect(route.properties.spec.properties.parentRefs.type).toBe('array');
    expect(route.properties.metadata.allOf[0].$ref).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    // the hash is the document's ETag: kubectl's cache revalidates with it and gets a 304
    const etag = doc.headers.get('etag')!;
    expect(etag).toBe(`"${url.split('hash=')[1]}"`);
    expect(doc.headers.get('cache-control')).toContain('immutable');
    expect((await s.api('GET', url, undefined, { 'if-none-match': etag })).status).toBe(304);
  });

  it('serves /openapi/v2 as Swagger 2.0 JSON, and as protobuf to a client that asks for it (kubectl does)', async () => {
    const doc = await s.api('GET', '/openapi/v2');
    expect(doc.status).toBe(200);
    expect(doc.body.swagger).toBe('2.0');
    expect(doc.body.definitions['io.k8s.networking.gateway.v1.HTTPRoute']['x-kubernetes-group-version-kind']).toEqual([{ group: GW, version: 'v1', kind: 'HTTPRoute' }]);
    expect(doc.body.definitions['io.k8s.api.core.v1.ServicePort'].properties.targetPort).toMatchObject({ $ref: '#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'x-kubernetes-int-or-string': true });
    expect(doc.body.paths[`/apis/${GW}/v1/namespaces/{namespace}/httproutes/{name}`].patch).toMatchObject({ 'x-kubernetes-action': 'patch', 'x-kubernetes-group-version-kind': { group: GW, version: 'v1', kind: 'HTTPRoute' } });
    const pb = await fetch(`${s.url}/k8s/openapi/v2`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.headers.get('content-type')).toContain('protobuf');
    const bytes = Buffer.from(await pb.arrayBuffer());
    // field 1 (swagger), a string: "2.0"
    expect(bytes.subarray(0, 5)).toEqual(Buffer.from([0x0a, 3, ...Buffer.from('2.0')]));
    expect((await s.api('GET', '/openapi/v2', undefined, { 'if-none-match': doc.headers.get('etag')! })).status).toBe(304);
  });

  it('requires a bearer token, and says so in a Status', async () => {
    const r = await client(s.url, null)('GET', '/apis');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });
});

describe('objects', () => {
  it('creates, reads and lists at the Kubernetes path; the existing path still answers', async () => {
    const c = await s.api('POST', routes('team-a'), route('web'));
    expect(c.status).toBe(201);
    expect(c.body.metadata.namespace).toBe('team-a');
    const g = await s.api('GET', `${routes('team-a')}/web`);
    expect(g.body.metadata.uid).toBe(c.body.metadata.uid);
    expect(g.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
    const old = await s.api('GET', '/api/v1/namespaces/team-a/httproutes/web');
    expect(old.status).toBe(200);
    expect(old.body.metadata.resourceVersion).toBe('1');
    const beta = await s.api('GET', `/apis/${GW}/v1beta1/namespaces/team-a/httproutes/web`);
    expect(beta.body.apiVersion).toBe(`${GW}/v1beta1`);
    const svc = await s.api('POST', '/k8s/api/v1/namespaces/team-a/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.status).toBe(201);
    expect((await s.api('GET', '/k8s/api/v1/namespaces/team-a/services/svc')).body.spec.ports[0].port).toBe(80);
  });

  it('errors are Status objects with the reason and a cause per field', async () => {
    const bad = await s.api('POST', routes('team-a'), route('bad', { spec: { parentRefs: [{ name: 'gw', port: 70000 }] } }));
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422, details: { name: 'bad', kind: 'HTTPRoute', group: GW } });
    expect(bad.body.details.causes.map((c: any) => c.field)).toContain('spec.parentRefs[0].port');
    const missing = await s.api('GET', `${routes('team-a')}/nope`);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, details: { name: 'nope', kind: 'httproutes' } });
    const dup = await s.api('POST', routes('team-a'), route('web'));
    expect(dup.body).toMatchObject({ reason: 'AlreadyExists', code: 409 });
    // the Switchyard path keeps problem+json
    expect((await s.api('GET', '/api/v1/namespaces/team-a/httproutes/nope')).headers.get('content-type')).toContain('problem+json');
  });

  it('an update with a stale resourceVersion is a 409 Conflict Status and writes nothing', async () => {
    const cur = (await s.api('GET', `${routes('team-a')}/web`)).body;
    const ok = await s.api('PUT', `${routes('team-a')}/web`, { ...cur, spec: { ...cur.spec, hostnames: ['a.example'] } });
    expect(ok.status).toBe(200);
    expect(ok.body.metadata.resourceVersion).not.toBe(cur.metadata.resourceVersion);
    const before = await eventCount();
    const stale = await s.api('PUT', `${routes('team-a')}/web`, { ...cur, spec: { ...cur.spec, hostnames: ['b.example'] } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    expect(stale.body.message).toContain('the object has been modified');
    expect(await eventCount()).toBe(before);
  });

  it('an unchanged update writes no event; dryRun=All writes nothing; fieldValidation=Strict refuses unknown fields', async () => {
    const cur = (await s.api('GET', `${routes('team-a')}/web`)).body;
    let before = await eventCount();
    const same = await s.api('PUT', `${routes('team-a')}/web`, cur);
    expect(same.status).toBe(200);
    expect(same.body.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
    expect(await eventCount()).toBe(before);
    const dry = await s.api('POST', `${routes('team-a')}?dryRun=All`, route('dry'));
    expect(dry.status).toBe(201);
    expect((await s.api('GET', `${routes('team-a')}/dry`)).status).toBe(404);
    expect(await eventCount()).toBe(before);
    const strict = await s.api('POST', `${routes('team-a')}?fieldValidation=Strict`, route('strict', { spec: { parentRefs: [{ name: 'gw' }], bogus: 1 } }));
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "spec.bogus"');
    const warn = await s.api('POST', `${routes('team-a')}?fieldValidation=Warn`, route('warned', { spec: { parentRefs: [{ name: 'gw' }], bogus: 1 } }));
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toContain('unknown field');
    expect(warn.body.spec.bogus).toBeUndefined();
    before = await eventCount();
    const bad = await s.api('PUT', `${routes('team-a')}/web?dryRun=Some`, cur);
    expect(bad.status).toBe(400);
    expect(await eventCount()).toBe(before);
  });

  it('patches (merge and JSON), with a precondition where one is given', async () => {
    const m = await s.api('PATCH', `${routes('team-a')}/web`, { metadata: { labels: { tier: 'front' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(m.status).toBe(200);
    expect(m.body.metadata.labels.tier).toBe('front');
    const j = await s.api('PATCH', `${routes('team-a')}/web`, JSON.stringify([{ op: 'replace', path: '/spec/hostnames', value: ['j.example'] }]), { 'content-type': 'application/json-patch+json' });
    expect(j.status, JSON.stringify(j.body)).toBe(200);
    expect(j.body.spec.hostnames).toEqual(['j.example']);
    const stale = await s.api('PATCH', `${routes('team-a')}/web`, { metadata: { resourceVersion: '1' }, spec: { hostnames: ['x.example'] } }, { 'content-type': 'application/merge-patch+json' });
    expect(stale.status).toBe(409);
    const smp = await s.api('PATCH', `${routes('team-a')}/web`, {}, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(smp.status).toBe(415);
  });

  it('server-side apply creates, answers conflicts between managers, and takes them with force', async () => {
    const body = JSON.stringify({ ...route('ssa'), spec: { parentRefs: [{ name: 'gw' }], hostnames: ['one.example'] } });
    const one = await s.api('PATCH', `${routes('team-a')}/ssa?fieldManager=alice`, body, { 'content-type': 'application/apply-patch+yaml' });
    expect(one.status, JSON.stringify(one.body)).toBe(201);
    const before = await eventCount();
    const again = await s.api('PATCH', `${routes('team-a')}/ssa?fieldManager=alice`, body, { 'content-type': 'application/apply-patch+yaml' });
    expect(again.status).toBe(200);
    expect(await eventCount()).toBe(before);
    const other = JSON.stringify({ ...route('ssa'), spec: { parentRefs: [{ name: 'gw' }], hostnames: ['two.example'] } });
    const clash = await s.api('PATCH', `${routes('team-a')}/ssa?fieldManager=bob`, other, { 'content-type': 'application/apply-patch+yaml' });
    expect(clash.status).toBe(409);
    expect(clash.body.reason).toBe('Conflict');
    const forced = await s.api('PATCH', `${routes('team-a')}/ssa?fieldManager=bob&force=true`, other, { 'content-type': 'application/apply-patch+yaml' });
    expect(forced.status).toBe(200);
    expect(forced.body.spec.hostnames).toEqual(['two.example']);
    expect((await s.api('PATCH', `${routes('team-a')}/ssa`, other, { 'content-type': 'application/apply-patch+yaml' })).status).toBe(422);
  });

  it('the status subresource is read by anyone allowed and written by no one', async () => {
    expect((await s.api('GET', `${routes('team-a')}/web/status`)).status).toBe(200);
    const w = await s.api('PUT', `${routes('team-a')}/web/status`, { status: {} });
    expect(w.status).toBe(405);
    expect(w.body.kind).toBe('Status');
  });

  it('deletes with preconditions; propagationPolicy is accepted', async () => {
    await s.api('POST', routes('team-a'), route('gone'));
    const cur = (await s.api('GET', `${routes('team-a')}/gone`)).body;
    const stale = await s.api('DELETE', `${routes('team-a')}/gone`, { preconditions: { uid: 'not-it' } });
    expect(stale.status).toBe(409);
    const d = await s.api('DELETE', `${routes('team-a')}/gone`, { propagationPolicy: 'Foreground', preconditions: { resourceVersion: cur.metadata.resourceVersion } });
    expect(d.status).toBe(200);
    expect((await s.api('GET', `${routes('team-a')}/gone`)).status).toBe(404);
  });
});

describe('lists', () => {
  it('pages with limit and continue under one resourceVersion, and filters by label and field', async () => {
    for (const n of ['p1', 'p2', 'p3']) await s.api('POST', routes('team-p'), route(n));
    const one = await s.api('GET', `${routes('team-p')}?limit=2`);
    expect(one.body.items.map((o: any) => o.metadata.name)).toEqual(['p1', 'p2']);
    expect(one.body.metadata.continue).toBeTruthy();
    const two = await s.api('GET', `${routes('team-p')}?limit=2&continue=${one.body.metadata.continue}`);
    expect(two.body.items.map((o: any) => o.metadata.name)).toEqual(['p3']);
    expect(two.body.metadata.continue).toBeUndefined();
    expect(two.body.metadata.resourceVersion).toBe(one.body.metadata.resourceVersion);
    expect((await s.api('GET', `${routes('team-p')}?labelSelector=app%3Dp2`)).body.items.map((o: any) => o.metadata.name)).toEqual(['p2']);
    expect((await s.api('GET', `/apis/${GW}/v1/httproutes?fieldSelector=metadata.name%3Dp3`)).body.items.map((o: any) => o.metadata.name)).toEqual(['p3']);
    expect((await s.api('GET', `/apis/${GW}/v1/httproutes?fieldSelector=metadata.namespace%3Dteam-p`)).body.items).toHaveLength(3);
    const bad = await s.api('GET', `/apis/${GW}/v1/httproutes?fieldSelector=spec.hostnames%3Dx`);
    expect(bad.status).toBe(400);
    expect(bad.body.kind).toBe('Status');
  });

  it('answers a Table with the columns upstream prints', async () => {
    await s.api('POST', `/apis/${GW}/v1/namespaces/team-t/gateways`, { apiVersion: `${GW}/v1`, kind: 'Gateway', metadata: { name: 'gw' }, spec: { gatewayClassName: 'none', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } });
    const t = await s.api('GET', `/apis/${GW}/v1/namespaces/team-t/gateways`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    expect(t.body.kind).toBe('Table');
    expect(t.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Class', 'Address', 'Programmed', 'Age']);
    expect(t.body.rows[0].cells.slice(0, 2)).toEqual(['gw', 'none']);
    const r = await s.api('GET', routes('team-p'), undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(r.body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Hostnames', 'Age']);
  });

  it('shows a developer its own namespaces only, in lists and in watches', async () => {
    await s.api('POST', routes('team-b'), route('theirs'));
    const l = await dev('GET', `/apis/${GW}/v1/httproutes`);
    expect(l.status).toBe(200);
    expect(new Set(l.body.items.map((o: any) => o.metadata.namespace))).toEqual(new Set(['team-a']));
    expect((await dev('GET', routes('team-b'))).status).toBe(403);
  });
});

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED from a list resourceVersion, resumes from any event, and is 410 when too old', async () => {
    const list = await s.api('GET', routes('team-w'));
    const rv = list.body.metadata.resourceVersion;
    const deleted = (ev: any[]) => ev.some((e) => e.type === 'DELETED');
    const watching = watchEvents(`${routes('team-w')}?watch=true&resourceVersion=${rv}`, deleted);
    await new Promise((r) => setTimeout(r, 300));
    await s.api('POST', routes('team-w'), route('w1'));
    await s.api('PATCH', `${routes('team-w')}/w1`, { metadata: { labels: { x: 'y' } } }, { 'content-type': 'application/merge-patch+json' });
    await s.api('DELETE', `${routes('team-w')}/w1`);
    const { events } = await watching;
    // a status the reconciler writes in between is a MODIFIED too (at the same resourceVersion)
    expect(events[0].type).toBe('ADDED');
    expect(events.at(-1).type).toBe('DELETED');
    const labelled = events.find((e) => e.type === 'MODIFIED' && e.object.metadata.labels?.x === 'y');
    expect(labelled).toBeDefined();
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    // resumed after the first event: the changes after it, nothing before
    const resumed = await watchEvents(`${routes('team-w')}?watch=true&resourceVersion=${rvs[0]}`, deleted, undefined, 3000);
    expect(resumed.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    expect(resumed.events[0].object.metadata.resourceVersion).toBe(labelled.object.metadata.resourceVersion);
    await new Promise((r) => setTimeout(r, 2500));
    const old = await watchEvents(`${routes('team-w')}?watch=true&resourceVersion=${rv}`, () => true);
    expect(old.status).toBe(410);
    expect(old.events[0]).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
  });

  it('with a label selector, an object that comes to match is ADDED and one that stops is DELETED', async () => {
    await s.api('POST', routes('team-l'), route('l1'));
    const list = await s.api('GET', `${routes('team-l')}?labelSelector=tier%3Dfront`);
    expect(list.body.items).toEqual([]);
    const watching = watchEvents(`${routes('team-l')}?watch=true&labelSelector=tier%3Dfront&resourceVersion=${list.body.metadata.resourceVersion}`, (ev) => ev.some((e) => e.type === 'DELETED'));
    await new Promise((r) => setTimeout(r, 300));
    const label = (tier: string) => s.api('PATCH', `${routes('team-l')}/l1`, { metadata: { labels: { tier } } }, { 'content-type': 'application/merge-patch+json' });
    await label('front');
    await s.api('PATCH', `${routes('team-l')}/l1`, { spec: { hostnames: ['l.example'] } }, { 'content-type': 'application/merge-patch+json' });
    await label('back');
    const { events } = await watching;
    const seen = events.map((e) => `${e.type} ${e.object.metadata.labels?.tier}`);
    // (a status the reconciler writes meanwhile is one more MODIFIED)
    expect(seen[0]).toBe('ADDED front');
    expect(seen.at(-1)).toBe('DELETED back');
    expect(new Set(seen.slice(1, -1))).toEqual(new Set(['MODIFIED front']));
    expect(events.some((e) => e.type === 'MODIFIED' && e.object.spec.hostnames?.[0] === 'l.example')).toBe(true);
  });

  it('a developer watching every namespace sees none of the others', async () => {
    const devToken = await mintToken(s, { name: 'dev-w', role: 'developer', namespaces: ['team-a'] });
    const list = await s.api('GET', `/apis/${GW}/v1/httproutes`);
    const watching = watchEvents(`/apis/${GW}/v1/httproutes?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`, (ev) => ev.some((e) => e.object.metadata.name === 'mine'), devToken);
    await new Promise((r) => setTimeout(r, 300));
    await s.api('POST', routes('team-b'), route('secret-plan'));
    await s.api('POST', routes('team-a'), route('mine'));
    const { events } = await watching;
    expect(events.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`)).toEqual(['team-a/mine']);
  });

  it('sends a MODIFIED when the reconciler changes a status', async () => {
    await s.api('POST', `/apis/${GW}/v1/gatewayclasses`, { apiVersion: `${GW}/v1`, kind: 'GatewayClass', metadata: { name: 'sy' }, spec: { controllerName: s.running.ctx.config.controllerName } });
    await reconciled(s);
    const list = await s.api('GET', `/apis/${GW}/v1/namespaces/team-s/gateways`);
    const watching = watchEvents(`/apis/${GW}/v1/namespaces/team-s/gateways?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`,
      (ev) => ev.some((e) => e.object.status?.conditions?.some((c: any) => c.type === 'Programmed')));
    await new Promise((r) => setTimeout(r, 300));
    await s.api('POST', `/apis/${GW}/v1/namespaces/team-s/gateways`, { apiVersion: `${GW}/v1`, kind: 'Gateway', metadata: { name: 'gw' }, spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } });
    const { events } = await watching;
    expect(events[0].type).toBe('ADDED');
    expect(events.at(-1)).toMatchObject({ type: 'MODIFIED' });
    expect(events.at(-1).object.status.conditions.find((c: any) => c.type === 'Programmed')).toBeDefined();
    // and a route's status, which the Gateway's recompute writes
    const routesNow = await s.api('GET', routes('team-s'));
    const routeWatch = watchEvents(`${routes('team-s')}?watch=true&resourceVersion=${routesNow.body.metadata.resourceVersion}`,
      (ev) => ev.some((e) => e.object.status?.parents?.[0]?.conditions?.some((c: any) => c.type === 'Accepted')));
    await new Promise((r) => setTimeout(r, 300));
    await s.api('POST', routes('team-s'), route('attached'));
    const seen = (await routeWatch).events;
    expect(seen[0].type).toBe('ADDED');
    expect(seen.at(-1).type).toBe('MODIFIED');
    expect(seen.at(-1).object.status.parents[0].parentRef.name).toBe('gw');
  });
});

describe('access', () => {
  it('SelfSubjectAccessReview answers from the role table', async () => {
    const ask = (api: Client, resourceAttributes: Record<string, string>) =>
      api('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } });
    expect((await ask(dev, { verb: 'create', group: GW, resource: 'httproutes', namespace: 'team-a' })).body.status.allowed).toBe(true);
    expect((await ask(dev, { verb: 'create', group: GW, resource: 'httproutes', namespace: 'team-b' })).body.status.allowed).toBe(false);
    expect((await ask(dev, { verb: 'create', group: GW, resource: 'gateways', namespace: 'team-a' })).body.status.allowed).toBe(false);
    expect((await ask(dev, { verb: 'list', group: GW, resource: 'gateways' })).body.status.allowed).toBe(true);
    expect((await ask(s.api, { verb: 'delete', group: '', resource: 'namespaces' })).body.status.allowed).toBe(true);
  });

  it('refuses a forbidden write before reading its body, as a Status, writing nothing; the event names the token', async () => {
    const before = await eventCount();
    const r = await dev('POST', routes('team-b'), 'not json at all', { 'content-type': 'application/json' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(await eventCount()).toBe(before);
    await dev('POST', routes('team-a'), route('by-dev'));
    const [ev] = await s.running.ctx.db.prisma.$queryRawUnsafe<{ actor: string }[]>(`SELECT actor FROM events WHERE name = 'by-dev'`);
    expect(ev.actor).toBe('dev-a');
  });
});

describe('kubeconfig', () => {
  it('is written next to a generated admin token, mode 0600, for the TLS address of the Kubernetes paths', async () => {
    const dataDir = tempDir('sy-kubeconfig-');
    const t = await startTestServer({ adminToken: undefined, dataDir }, { worker: false });
    try {
      const file = join(dataDir, 'kubeconfig');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const cfg = parse(readFileSync(file, 'utf8'));
      expect(cfg.clusters[0].cluster.server).toBe(`https://127.0.0.1:${t.running.port}/k8s`);
      expect(cfg.users[0].user.token).toBe(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
      expect(Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).toContain('BEGIN CERTIFICATE');
    } finally {
      await t.close();
    }
  });
});
