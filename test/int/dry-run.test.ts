// dryRun and duplicate keys on both surfaces, over HTTP against the real server: a dry run answers
// what the write would (status, defaults, uid, generation, 409s, 422s, 404s) and writes nothing: no
// event, no object, no Secret data, no notice to the reconciler. A key a body holds twice is refused
// with fieldValidation=Strict, warned about by default, and ignored with Ignore. And the reviews a
// token asks about itself: whoami (SelfSubjectReview) and can-i --list (SelfSubjectRulesReview).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, mintToken, startTestServer, type Client, type TestServer } from '../support/server';

let s: TestServer;
let dev: Client;
let notices = 0;
const GW = 'gateway.networking.k8s.io';
const ours = (ns: string) => `/api/v1/namespaces/${ns}/httproutes`;
const kube = (ns: string) => `/k8s/apis/${GW}/v1/namespaces/${ns}/httproutes`;
const route = (name: string, hostnames = ['a.example']) => ({
  apiVersion: `${GW}/v1`, kind: 'HTTPRoute', metadata: { name },
  spec: { parentRefs: [{ name: 'gw' }], hostnames, rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] },
});

/** Everything a write leaves behind: the log, the objects, Secret data, and the notices of appends. */
async function footprint() {
  const q = async (sql: string) => (await s.running.ctx.db.prisma.$queryRawUnsafe<{ v: string | null }[]>(sql))[0].v;
  return {
    events: await q(`SELECT count(*)::text AS v FROM events`),
    objects: await q(`SELECT md5(coalesce(string_agg(stream || ':' || version || ':' || deleted, ',' ORDER BY stream), '')) AS v FROM objects`),
    secrets: await q(`SELECT md5(coalesce(string_agg(stream || ':' || digest, ',' ORDER BY stream), '')) AS v FROM secret_data`),
    notices,
  };
}

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 });
  s.running.ctx.resources.onAppend(() => notices++);
  dev = client(s.url, await mintToken(s, { name: 'dev-shop', role: 'developer', namespaces: ['shop'] }));
});
afterAll(async () => {
  await s?.close();
});

describe('dryRun on this API\'s own paths', () => {
  it('a dry-run create answers 201 with what the create would store, and writes nothing', async () => {
    for (const dry of ['All', 'true']) {
      const before = await footprint();
      const r = await dev('POST', `${ours('shop')}?dryRun=${dry}`, route('checkout'));
      expect(r.status, r.text).toBe(201);
      expect(r.body.metadata).toMatchObject({ name: 'checkout', namespace: 'shop', generation: 1, resourceVersion: '1' });
      expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(r.body.metadata.creationTimestamp)).toBeGreaterThan(0);
      // the defaults the stored object would have
      expect(r.body.spec.parentRefs[0]).toMatchObject({ group: GW, kind: 'Gateway' });
      expect(r.headers.get('etag')).toBe('"1"');
      expect(await footprint()).toEqual(before);
      expect((await dev('GET', `${ours('shop')}/checkout`)).status).toBe(404);
    }
  });

  it('a dry-run create of a Secret writes no data, and answers it to an admin as the create would', async () => {
    const before = await footprint();
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls' }, type: 'Opaque', stringData: { key: 'value' } };
    const r = await s.api('POST', '/api/v1/namespaces/shop/secrets?dryRun=All', secret);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toEqual({ key: Buffer.from('value').toString('base64') });
    expect(await footprint()).toEqual(before);
  });

  it('PUT, PATCH and DELETE dry runs answer as the writes would, generation included, and change nothing', async () => {
    expect((await dev('POST', ours('shop'), route('cart'))).status).toBe(201);
    const before = await footprint();
    const put = await dev('PUT', `${ours('shop')}/cart?dryRun=All`, route('cart', ['b.example']));
    expect(put.status, put.text).toBe(200);
    expect(put.body.metadata).toMatchObject({ generation: 2, resourceVersion: '2' });
    expect(put.body.spec.hostnames).toEqual(['b.example']);
    const unchanged = await dev('PUT', `${ours('shop')}/cart?dryRun=All`, route('cart'));
    expect(unchanged.body.metadata).toMatchObject({ generation: 1, resourceVersion: '1' });
    const patch = await dev('PATCH', `${ours('shop')}/cart?dryRun=true`, { metadata: { labels: { tier: 'web' } } });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.body.metadata).toMatchObject({ labels: { tier: 'web' }, generation: 1, resourceVersion: '2' });
    const del = await dev('DELETE', `${ours('shop')}/cart?dryRun=All`);
    expect(del.status, del.text).toBe(200);
    expect(del.body.metadata).toMatchObject({ name: 'cart', resourceVersion: '2' });
    expect(await footprint()).toEqual(before);
    const live = await dev('GET', `${ours('shop')}/cart`);
    expect(live.body.metadata).toMatchObject({ generation: 1, resourceVersion: '1' });
    expect(live.body.spec.hostnames).toEqual(['a.example']);
    expect(live.body.metadata.labels).toBeUndefined();
  });

  it('a dry run fails as the write would: 409 exists, 409 stale precondition, 422 invalid, 404 missing, 403 forbidden', async () => {
    const before = await footprint();
    expect((await dev('POST', `${ours('shop')}?dryRun=All`, route('cart'))).body).toMatchObject({ status: 409, reason: 'AlreadyExists' });
    expect((await dev('PUT', `${ours('shop')}/cart?dryRun=All`, route('cart', ['c.example']), { 'if-match': '"7"' })).body).toMatchObject({ status: 409, reason: 'Conflict' });
    expect((await dev('DELETE', `${ours('shop')}/cart?dryRun=All`, undefined, { 'if-match': '"7"' })).status).toBe(409);
    const invalid = await dev('POST', `${ours('shop')}?dryRun=All`, route('bad', ['not a hostname!']));
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors[0].path).toContain('spec.hostnames');
    expect((await dev('DELETE', `${ours('shop')}/nowhere?dryRun=All`)).status).toBe(404);
    expect((await dev('PATCH', `${ours('shop')}/nowhere?dryRun=All`, { metadata: { labels: { a: 'b' } } })).status).toBe(404);
    expect((await dev('POST', `${ours('other')}?dryRun=All`, route('x'))).status).toBe(403);
    expect(await footprint()).toEqual(before);
  });

  it('an unknown dryRun value is a 400 naming it, and nothing is written', async () => {
    const before = await footprint();
    for (const [method, path] of [['POST', ours('shop')], ['PUT', `${ours('shop')}/cart`], ['PATCH', `${ours('shop')}/cart`], ['DELETE', `${ours('shop')}/cart`]]) {
      const r = await dev(method, `${path}?dryRun=yes`, method === 'DELETE' ? undefined : method === 'PATCH' ? { metadata: { labels: { a: 'b' } } } : route('cart', ['z.example']));
      expect(r.status, `${method} ${r.text}`).toBe(400);
      expect(r.body.detail).toContain('"yes"');
    }
    expect(await footprint()).toEqual(before);
  });
});

describe('duplicate keys on this API\'s own paths', () => {
  const body = (name: string) => `{"apiVersion":"${GW}/v1","kind":"HTTPRoute","metadata":{"name":"${name}","labels":{"a":"1","a":"2"}},"spec":{"parentRefs":[{"name":"gw"}],"hostnames":["x.example"],"hostnames":["y.example"]}}`;

  it('by default the write succeeds, with a Warning naming each duplicated field', async () => {
    const r = await dev('POST', ours('shop'), body('dup-warn'));
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get('warning')).toBe('299 - "duplicate field \\"metadata.labels.a\\"", 299 - "duplicate field \\"spec.hostnames\\""');
    // JSON's rule: the last one counts
    expect(r.body.spec.hostnames).toEqual(['y.example']);
  });

  it('fieldValidation=Strict refuses the body naming each field, and writes nothing', async () => {
    const before = await footprint();
    const r = await dev('POST', `${ours('shop')}?fieldValidation=Strict`, body('dup-strict'));
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.detail).toBe('strict decoding error: duplicate field "metadata.labels.a", duplicate field "spec.hostnames"');
    expect(r.body.errors).toEqual([
      { path: 'metadata.labels.a', message: 'duplicate field "metadata.labels.a"', reason: 'FieldValueDuplicate' },
      { path: 'spec.hostnames', message: 'duplicate field "spec.hostnames"', reason: 'FieldValueDuplicate' },
    ]);
    expect((await dev('PATCH', `${ours('shop')}/dup-warn?fieldValidation=Strict`, '{"metadata":{"labels":{"b":"1","b":"2"}}}')).body.errors[0].path).toBe('metadata.labels.b');
    expect(await footprint()).toEqual(before);
  });

  it('fieldValidation=Ignore says nothing; an unknown directive is a 400', async () => {
    const r = await dev('PUT', `${ours('shop')}/dup-warn?fieldValidation=Ignore`, body('dup-warn'));
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('warning')).toBeNull();
    expect((await dev('POST', `${ours('shop')}?fieldValidation=Loose`, route('fv'))).status).toBe(400);
    // a body without duplicates carries no warning
    expect((await dev('POST', ours('shop'), route('plain'))).headers.get('warning')).toBeNull();
  });
});

describe('duplicate keys in an apply', () => {
  it('a JSON apply body with a key given twice is refused as a YAML one is, and writes nothing', async () => {
    const before = await footprint();
    const text = `{"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"twice","namespace":"shop"},"data":{"k":"1","k":"2"}}]}`;
    const r = await s.api('POST', '/api/v1/apply', text, { 'content-type': 'application/json' });
    expect(r.status, r.text).toBe(400);
    expect(r.body.detail).toContain('duplicate field "items[0].data.k"');
    expect(await footprint()).toEqual(before);
  });
});

describe('dryRun on the Kubernetes paths', () => {
  it('a dry-run create answers 201 with uid and creationTimestamp and no resourceVersion, and writes nothing', async () => {
    const before = await footprint();
    const r = await dev('POST', `${kube('shop')}?dryRun=All`, route('k-new'));
    expect(r.status, r.text).toBe(201);
    expect(r.body.metadata).toMatchObject({ name: 'k-new', namespace: 'shop', generation: 1 });
    expect(r.body.metadata.uid).toBeTruthy();
    expect(r.body.metadata.creationTimestamp).toBeTruthy();
    expect(r.body.metadata.resourceVersion).toBeUndefined();
    expect(r.body.metadata.managedFields?.[0]?.manager).toBeTruthy();
    expect(await footprint()).toEqual(before);
    expect((await dev('GET', `${kube('shop')}/k-new`)).status).toBe(404);
  });

  it('update, patch and delete dry runs answer as the writes would, and fail as they would', async () => {
    const created = await dev('POST', kube('shop'), route('k-live'));
    expect(created.status).toBe(201);
    const rv = created.body.metadata.resourceVersion;
    const before = await footprint();
    const put = await dev('PUT', `${kube('shop')}/k-live?dryRun=All`, { ...route('k-live', ['b.example']), metadata: { name: 'k-live', resourceVersion: rv } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.metadata.generation).toBe(2);
    const patch = await dev('PATCH', `${kube('shop')}/k-live?dryRun=All`, { spec: { hostnames: ['c.example'] } });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.body.spec.hostnames).toEqual(['c.example']);
    expect((await dev('DELETE', `${kube('shop')}/k-live?dryRun=All`)).status).toBe(200);
    // failures
    expect((await dev('POST', `${kube('shop')}?dryRun=All`, route('k-live'))).body).toMatchObject({ kind: 'Status', code: 409, reason: 'AlreadyExists' });
    expect((await dev('PUT', `${kube('shop')}/k-live?dryRun=All`, { ...route('k-live', ['d.example']), metadata: { name: 'k-live', resourceVersion: '1' } })).body).toMatchObject({ code: 409, reason: 'Conflict' });
    expect((await dev('POST', `${kube('shop')}?dryRun=All`, route('k-bad', ['not a hostname!']))).body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect((await dev('DELETE', `${kube('shop')}/k-nowhere?dryRun=All`)).body).toMatchObject({ code: 404, reason: 'NotFound' });
    expect((await dev('DELETE', `${kube('shop')}/k-live`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], preconditions: { resourceVersion: '1' } })).body).toMatchObject({ code: 409, reason: 'Conflict' });
    expect((await dev('POST', `${kube('shop')}?dryRun=true`, route('k-x'))).status).toBe(400);
    expect(await footprint()).toEqual(before);
    const live = await dev('GET', `${kube('shop')}/k-live`);
    expect(live.body.metadata).toMatchObject({ resourceVersion: rv, generation: 1 });
    expect(live.body.spec.hostnames).toEqual(['a.example']);
  });

  it('a dry-run create of a Secret answers its data to an admin, as the create does, and stores none', async () => {
    const before = await footprint();
    const r = await s.api('POST', '/k8s/api/v1/namespaces/shop/secrets?dryRun=All', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k-tls' }, type: 'Opaque', data: { key: 'dmFsdWU=' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toEqual({ key: 'dmFsdWU=' });
    expect(await footprint()).toEqual(before);
  });

  it('duplicate keys: a Warning by default, a BadRequest Status naming each field with Strict', async () => {
    const text = `{"apiVersion":"${GW}/v1","kind":"HTTPRoute","metadata":{"name":"k-dup","name":"k-dup"},"spec":{"parentRefs":[{"name":"gw","name":"gw"}]}}`;
    const before = await footprint();
    const strict = await dev('POST', `${kube('shop')}?fieldValidation=Strict`, text);
    expect(strict.status).toBe(400);
    expect(strict.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'strict decoding error: duplicate field "metadata.name", duplicate field "spec.parentRefs[0].name"' });
    expect(await footprint()).toEqual(before);
    const warned = await dev('POST', kube('shop'), text);
    expect(warned.status, warned.text).toBe(201);
    expect(warned.headers.get('warning')).toContain('299 - "duplicate field \\"spec.parentRefs[0].name\\""');
    const ignored = await dev('PATCH', `${kube('shop')}/k-dup?fieldValidation=Ignore`, '{"metadata":{"labels":{"a":"1","a":"2"}}}');
    expect(ignored.status, ignored.text).toBe(200);
    expect(ignored.headers.get('warning')).toBeNull();
    // server-side apply as kubectl sends it: JSON under the apply media type
    const apply = `{"apiVersion":"${GW}/v1","kind":"HTTPRoute","metadata":{"name":"k-ssa"},"spec":{"hostnames":["a.example"],"hostnames":["b.example"],"parentRefs":[{"name":"gw"}]}}`;
    const yaml = { 'content-type': 'application/apply-patch+yaml' };
    const refused = await dev('PATCH', `${kube('shop')}/k-ssa?fieldManager=ci&fieldValidation=Strict`, apply, yaml);
    expect(refused.body).toMatchObject({ code: 400, message: 'strict decoding error: duplicate field "spec.hostnames"' });
    const applied = await dev('PATCH', `${kube('shop')}/k-ssa?fieldManager=ci`, apply, yaml);
    expect(applied.status, applied.text).toBe(201);
    expect(applied.headers.get('warning')).toBe('299 - "duplicate field \\"spec.hostnames\\""');
    expect(applied.body.spec.hostnames).toEqual(['b.example']);
    // and a YAML flow mapping is still YAML
    expect((await dev('PATCH', `${kube('shop')}/k-flow?fieldManager=ci`, `{apiVersion: ${GW}/v1, kind: HTTPRoute, metadata: {name: k-flow}, spec: {parentRefs: [{name: gw}]}}`, yaml)).status).toBe(201);
  });
});

describe('self reviews', () => {
  it('SelfSubjectReview says who the token is, at v1 and v1beta1; discovery lists every review', async () => {
    for (const v of ['v1', 'v1beta1']) {
      const r = await dev('POST', `/apis/authentication.k8s.io/${v}/selfsubjectreviews`, { apiVersion: `authentication.k8s.io/${v}`, kind: 'SelfSubjectReview' });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({ apiVersion: `authentication.k8s.io/${v}`, kind: 'SelfSubjectReview', status: { userInfo: { username: 'dev-shop', groups: ['switchyard:developer', 'system:authenticated'], extra: { 'switchyard.dev/namespaces': ['shop'] } } } });
    }
    expect((await dev('GET', '/apis/authentication.k8s.io/v1/selfsubjectreviews')).status).toBe(405);
    const authn = await dev('GET', '/apis/authentication.k8s.io/v1');
    expect(authn.body.resources.map((r: any) => r.name)).toEqual(['selfsubjectreviews']);
    const authz = await dev('GET', '/apis/authorization.k8s.io/v1');
    expect(authz.body.resources.map((r: any) => r.name)).toEqual(['selfsubjectaccessreviews', 'selfsubjectrulesreviews']);
    const agg = await dev('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const group = agg.body.items.find((i: any) => i.metadata.name === 'authentication.k8s.io');
    expect(group.versions.map((v: any) => v.version)).toEqual(['v1', 'v1beta1']);
  });

  it('SelfSubjectRulesReview lists what the role table allows in the namespace asked about', async () => {
    const rules = async (api: Client, namespace: string) => {
      const r = await api('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } });
      expect(r.status, r.text).toBe(201);
      return r.body.status;
    };
    const verbsOn = (status: any, resource: string) => status.resourceRules.filter((x: any) => x.resources.includes(resource) && !x.resourceNames).flatMap((x: any) => x.verbs);
    const shop = await rules(dev, 'shop');
    expect(verbsOn(shop, 'httproutes')).toEqual(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']);
    expect(verbsOn(shop, 'gateways')).toEqual(['get', 'list', 'watch']);
    expect(verbsOn(shop, 'secrets')).toEqual(['get', 'list', 'watch']);
    expect(shop.resourceRules).toContainEqual({ verbs: ['get'], apiGroups: [''], resources: ['namespaces'], resourceNames: ['shop'] });
    const other = await rules(dev, 'other');
    expect(verbsOn(other, 'httproutes')).toEqual([]);
    expect(verbsOn(other, 'gateways')).toEqual(['get', 'list', 'watch']);
    expect(other.nonResourceRules[0].nonResourceURLs).toContain('/apis/*');
    const admin = await rules(s.api, 'shop');
    expect(admin.resourceRules).toEqual([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
  });
});
