// POST /api/v1/apply through the real HTTP server, store and worker: every behaviour of the
// contract's "Apply (GitOps)" section, and hostile bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startTestServer, mintToken, ADMIN_TOKEN, type TestServer } from '../support/server';

let s: TestServer;
const tokens: Record<string, string> = {};
const GW = 'gateway.networking.k8s.io/v1';

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 });
  const mk = (body: Record<string, unknown>) => mintToken(s, body);
  tokens.developer = await mk({ name: 'apply-dev-a', role: 'developer', namespaces: ['team-a'] });
  tokens.operator = await mk({ name: 'apply-ops-a', role: 'operator', namespaces: ['team-a'] });
});
afterAll(async () => {
  await s?.close();
});

interface Reply { status: number; headers: Headers; body: any }

async function apply(body: string | object, query = '', opts: { type?: string; headers?: Record<string, string>; token?: string } = {}): Promise<Reply> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const type = opts.type ?? (typeof body === 'string' ? 'application/yaml' : 'application/json');
  const res = await fetch(`${s.url}/api/v1/apply${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.token ?? ADMIN_TOKEN}`, 'content-type': type, ...opts.headers },
    body: payload,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

const yaml = (...objs: object[]) => objs.map((o) => stringify(o)).join('---\n');

async function eventCount(): Promise<number> {
  const rows = await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events');
  return Number(rows[0].n);
}

const route = (name: string, ns: string | undefined, extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: GW, kind: 'HTTPRoute',
  metadata: { name, ...(ns ? { namespace: ns } : {}), ...extra },
  spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }], ...spec },
});
const service = (name: string, ns: string, port = 80) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { ports: [{ port }] } });
const byName = (r: Reply, name: string) => r.body.results.find((x: any) => x.name === name);

describe('apply: actions, replacement and defaulting', () => {
  it('creates, then re-applies unchanged writing no event, then configures what changed', async () => {
    const body = yaml(route('a1', 'apply-1'), route('a2', 'apply-1'), service('svc', 'apply-1'));
    const first = await apply(body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.results.map((r: any) => [r.kind, r.namespace, r.name, r.action, r.resourceVersion, r.document])).toEqual([
      ['HTTPRoute', 'apply-1', 'a1', 'created', '1', 0],
      ['HTTPRoute', 'apply-1', 'a2', 'created', '1', 1],
      ['Service', 'apply-1', 'svc', 'created', '1', 2],
    ]);
    const events = await eventCount();
    const again = await apply(body);
    expect(again.status).toBe(200);
    expect(again.body.results.map((r: any) => r.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(again.body.results.map((r: any) => r.resourceVersion)).toEqual(['1', '1', '1']);
    expect(await eventCount()).toBe(events);

    const changed = yaml(route('a1', 'apply-1'), route('a2', 'apply-1', {}, { hostnames: ['x.example.com'] }), service('svc', 'apply-1'));
    const third = await apply(changed);
    expect(third.body.results.map((r: any) => r.action)).toEqual(['unchanged', 'configured', 'unchanged']);
    expect(byName(third, 'a2').resourceVersion).toBe('2');
    expect(await eventCount()).toBe(events + 1);
    const got = await s.api('GET', '/api/v1/namespaces/apply-1/httproutes/a2');
    expect(got.body.spec.hostnames).toEqual(['x.example.com']);
    expect(got.body.metadata.generation).toBe(2);
  });

  it('compares after defaulting: a manifest that omits defaulted fields, or spells them out, is unchanged', async () => {
    const gw = { apiVersion: GW, kind: 'Gateway', metadata: { name: 'gw', namespace: 'apply-2' }, spec: { gatewayClassName: 'none', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } };
    const r = route('d1', 'apply-2', {}, { rules: [{ matches: [{ path: { value: '/x' } }], backendRefs: [{ name: 'svc', port: 80 }] }] });
    expect((await apply(yaml(gw, r))).status).toBe(200);
    const events = await eventCount();
    expect((await apply(yaml(gw, r))).body.results.map((x: any) => x.action)).toEqual(['unchanged', 'unchanged']);
    // the stored, fully defaulted form re-applied (as a tool that read it back would) is unchanged too
    const stored = (await s.api('GET', '/api/v1/namespaces/apply-2/httproutes/d1')).body;
    expect(stored.spec.rules[0].matches[0].path.type).toBe('PathPrefix');
    const storedGw = (await s.api('GET', '/api/v1/namespaces/apply-2/gateways/gw')).body;
    const full = await apply({ items: [storedGw, stored] });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.results.map((x: any) => x.action)).toEqual(['unchanged', 'unchanged']);
    expect(await eventCount()).toBe(events);
  });

  it('replaces labels, annotations and spec as a whole (no field merge)', async () => {
    await apply(yaml(route('m1', 'apply-3', { labels: { a: '1', b: '2' }, annotations: { note: 'x' } }, { hostnames: ['h.example.com'] })));
    const r = await apply(yaml(route('m1', 'apply-3', { labels: { a: '1' } })));
    expect(r.body.results[0].action).toBe('configured');
    const got = (await s.api('GET', '/api/v1/namespaces/apply-3/httproutes/m1')).body;
    expect(got.metadata.labels).toEqual({ a: '1' });
    expect(got.metadata.annotations).toBeUndefined();
    expect(got.spec.hostnames).toBeUndefined();
  });

  it('takes JSON {items}, a JSON List, a YAML List document and a cluster-scoped kind', async () => {
    const items = await apply({ items: [route('j1', 'apply-4'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apply-4' } }] });
    expect(items.status, JSON.stringify(items.body)).toBe(200);
    expect(items.body.results.map((r: any) => [r.kind, r.namespace, r.action])).toEqual([['HTTPRoute', 'apply-4', 'created'], ['Namespace', undefined, 'created']]);
    const list = await apply({ apiVersion: 'v1', kind: 'List', items: [route('j2', 'apply-4')] });
    expect(list.body.results[0]).toMatchObject({ name: 'j2', action: 'created', document: 0 });
    const yamlList = await apply(yaml(service('s0', 'apply-4'), { apiVersion: 'v1', kind: 'List', items: [route('j3', 'apply-4'), route('j4', 'apply-4')] }));
    expect(yamlList.body.results.map((r: any) => [r.name, r.document, r.item])).toEqual([['s0', 0, undefined], ['j3', 1, 0], ['j4', 1, 1]]);
  });

  it('gives namespaced objects without a namespace the ?namespace= one, else 422', async () => {
    const r = await apply(yaml(route('n1', undefined), route('n2', 'apply-5b')), '?namespace=apply-5');
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.namespace)).toEqual(['apply-5', 'apply-5b']);
    const before = await eventCount();
    const bad = await apply(yaml(route('n3', 'apply-5'), route('n4', undefined)));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ document: 1, kind: 'HTTPRoute', name: 'n4', path: 'metadata.namespace' })]);
    expect(bad.body.detail).toContain('document 1');
    expect(await eventCount()).toBe(before);
    expect((await s.api('GET', '/api/v1/namespaces/apply-5/httproutes/n3')).status).toBe(404);
  });

  it('keeps Secret data out of the log and compares Secrets by their data', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cert', namespace: 'apply-6' }, type: 'Opaque', data: { key: Buffer.from('hunter2').toString('base64') } };
    expect((await apply(yaml(secret))).body.results[0].action).toBe('created');
    expect((await apply(yaml(secret))).body.results[0].action).toBe('unchanged');
    const changed = { ...secret, stringData: { key: 'other' }, data: undefined };
    expect((await apply({ items: [changed] })).body.results[0].action).toBe('configured');
    const log = await s.running.ctx.db.prisma.$queryRawUnsafe<{ object: any }[]>(`SELECT object FROM events WHERE kind = 'Secret' AND namespace = 'apply-6'`);
    expect(log).toHaveLength(2);
    for (const row of log) {
      expect(JSON.stringify(row.object)).not.toContain(Buffer.from('hunter2').toString('base64'));
      expect(row.object.data).toBeUndefined();
      expect(row.object.dataDigest).toMatch(/^sha256:/);
    }
    const got = await s.api('GET', '/api/v1/namespaces/apply-6/secrets/cert');
    expect(got.body.data).toEqual({ key: Buffer.from('other').toString('base64') });
  });
});

describe('apply: invalid bodies are rejected whole', () => {
  it('names unknown kinds (422), with their document index, and writes nothing', async () => {
    const before = await eventCount();
    const r = await apply(yaml(route('u1', 'apply-7'), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'apply-7' } }));
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.errors).toEqual([expect.objectContaining({ document: 1, kind: 'Widget', name: 'w', path: 'kind' })]);
    expect(r.body.errors[0].message).toContain('unknown kind "Widget"');
    expect(r.body.detail).toContain('Widget');
    expect(await eventCount()).toBe(before);
  });

  it('refuses the same object twice in one body (422)', async () => {
    const r = await apply(yaml(route('dup', 'apply-7'), service('x', 'apply-7'), route('dup', 'apply-7', { labels: { v: '2' } })));
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([expect.objectContaining({ document: 2, kind: 'HTTPRoute', namespace: 'apply-7', name: 'dup', path: 'metadata.name' })]);
    expect(r.body.errors[0].message).toContain('document 0');
  });

  it('lists every validation problem with document, object and path, and writes nothing of a partly valid body', async () => {
    const before = await eventCount();
    const bad = route('v2', 'apply-8', {}, { rules: [{ matches: [{ path: { type: 'Sideways', value: '/x' } }] }] });
    const bad2 = service('Bad_Name', 'apply-8');
    const r = await apply(yaml(route('v1', 'apply-8'), bad, bad2));
    expect(r.status).toBe(422);
    const e1 = r.body.errors.find((e: any) => e.document === 1);
    expect(e1).toMatchObject({ kind: 'HTTPRoute', namespace: 'apply-8', name: 'v2' });
    expect(e1.path).toBe('spec.rules[0].matches[0].path.type');
    expect(r.body.errors.some((e: any) => e.document === 2 && e.path === 'metadata.name')).toBe(true);
    expect(r.body.detail).toMatch(/document 1 \(HTTPRoute apply-8\/v2\): spec\.rules\[0\]\.matches\[0\]\.path\.type/);
    expect(await eventCount()).toBe(before);
    expect((await s.api('GET', '/api/v1/namespaces/apply-8/httproutes/v1')).status).toBe(404);
  });

  it('answers 400 for an empty body, 415 for another media type and 405 for GET', async () => {
    expect((await apply('')).status).toBe(400);
    expect((await apply('# only a comment\n')).status).toBe(400);
    expect((await apply('{"items": []}', '', { type: 'application/json' })).status).toBe(400);
    expect((await apply('a=b', '', { type: 'application/x-www-form-urlencoded' })).status).toBe(415);
    const g = await fetch(`${s.url}/api/v1/apply`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(g.status).toBe(405);
  });

  it('answers 400 for bad parameters', async () => {
    const body = yaml(route('p', 'apply-9'));
    expect((await apply(body, '?prune=true')).status).toBe(400); // prune needs applySet
    expect((await apply(body, '?applySet=not%20a%20label')).status).toBe(400);
    expect((await apply(body, '?wait=soon')).status).toBe(400);
    expect((await apply(body, '?dryRun=maybe')).status).toBe(400);
    expect((await apply(body, '?namespace=Not_A_Namespace')).status).toBe(400);
  });
});

describe('apply: hostile input', () => {
  it('answers a billion-laughs document with a 4xx within milliseconds', async () => {
    const lol = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    const names = 'bcdefghijklmnop'.split('');
    let prev = 'a';
    for (const n of names) {
      lol.push(`${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]`);
      prev = n;
    }
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol, namespace: apply-10}\ndata:\n${lol.map((l) => '  ' + l).join('\n')}\n`;
    const r = await apply(body);
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/^document 0: YAML aliases expand beyond the allowed limit/);
    expect(process.memoryUsage().heapUsed).toBeLessThan(1024 * 1024 * 1024);
  });

  it('refuses custom and language tags', async () => {
    for (const doc of [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t, namespace: apply-10}\ndata: {a: !!js/function "function(){}"}\n',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t, namespace: apply-10}\ndata: !custom {a: b}\n',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t, namespace: apply-10}\ndata: {a: !!binary aGk=}\n',
      '--- !<tag:example.com,2000:thing>\napiVersion: v1\n',
    ]) {
      const r = await apply(doc);
      expect(r.status, doc).toBe(400);
      expect(r.body.detail, doc).toMatch(/tag/i);
    }
    expect((await s.api('GET', '/api/v1/namespaces/apply-10/configmaps/t')).status).toBe(404);
  });

  it('answers malformed YAML, duplicate keys and invalid UTF-8 with 400 naming the document', async () => {
    const a = await apply(`${yaml(service('ok', 'apply-10'))}---\nkind: [unclosed\n`);
    expect(a.status).toBe(400);
    expect(a.body.detail).toContain('document 1');
    const b = await apply('apiVersion: v1\nkind: Service\nkind: Service\n');
    expect(b.status).toBe(400);
    const res = await fetch(`${s.url}/api/v1/apply`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' }, body: Buffer.from([0x6b, 0x3a, 0x20, 0xff, 0xfe]) });
    expect(res.status).toBe(400);
  });

  it('treats __proto__ and constructor keys as plain (unknown) fields and pollutes nothing', async () => {
    const y = 'apiVersion: v1\nkind: Service\nmetadata: {name: proto, namespace: apply-10}\nspec:\n  ports: [{port: 80}]\n  __proto__: {polluted: yes}\n  constructor: {prototype: {polluted: yes}}\n';
    const r = await apply(y);
    expect(r.status).toBe(422);
    const paths = r.body.errors.map((e: any) => e.path);
    expect(paths).toContain('spec.__proto__');
    expect(paths).toContain('spec.constructor');
    const j = await apply('{"items":[{"apiVersion":"v1","kind":"Service","metadata":{"name":"proto2","namespace":"apply-10"},"spec":{"ports":[{"port":80}],"__proto__":{"x":1},"constructor":{"prototype":{"polluted":true}}}}],"__proto__":{"items":[]}}', '', { type: 'application/json' });
    expect(j.status).toBe(422);
    expect(j.body.errors.map((e: any) => e.path)).toEqual(expect.arrayContaining(['spec.__proto__', 'spec.constructor']));
    // in metadata a __proto__ key is an own key like any other: it cannot move the object elsewhere
    const m = await apply('{"items":[{"apiVersion":"v1","kind":"Service","metadata":{"name":"proto3","namespace":"apply-10","__proto__":{"namespace":"kube-system","labels":{"x":"y"}}},"spec":{"ports":[{"port":80}]}}]}', '', { type: 'application/json' });
    expect(m.status).toBe(200);
    expect(m.body.results[0]).toMatchObject({ namespace: 'apply-10', name: 'proto3' });
    const stored = (await s.api('GET', '/api/v1/namespaces/apply-10/services/proto3')).body;
    expect(stored.metadata.labels).toBeUndefined();
    expect((await s.api('GET', '/api/v1/namespaces/kube-system/services/proto3')).status).toBe(404);
    expect(({} as any).polluted).toBeUndefined();
    expect((Object.prototype as any).namespace).toBeUndefined();
    // inherited property names as apiVersion or kind name nothing
    for (const [apiVersion, kind] of [['toString', 'Service'], ['constructor', 'Service'], ['__proto__', 'Gateway'], ['v1', 'toString'], ['v1', '__proto__']]) {
      const r2 = await apply(yaml({ apiVersion, kind, metadata: { name: 'inherited', namespace: 'apply-10' } }));
      expect(r2.status, `${apiVersion} ${kind}`).toBe(422);
      expect(r2.body.errors[0].path).toBe(kind === 'Service' || kind === 'Gateway' ? 'apiVersion' : 'kind');
    }
    // the server still works normally afterwards
    expect((await apply(yaml(service('after-proto', 'apply-10')))).status).toBe(200);
  });

  it('refuses deeply nested documents with a 4xx', async () => {
    const deep = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep, namespace: apply-10}\ndata: ' + '['.repeat(5000) + ']'.repeat(5000) + '\n';
    const r = await apply(deep);
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/^document 0: the YAML is nested more than 100 levels deep/);
    const json = '{"items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","namespace":"apply-10"},"data":' + '['.repeat(100000) + ']'.repeat(100000) + '}]}';
    const j = await apply(json, '', { type: 'application/json' });
    // refused where the body is parsed, before anything walks it
    expect(j.status).toBe(400);
    expect(j.body.detail).toMatch(/nested more than 100 levels deep/);
  });

  it('answers 413 for a body over 32 MiB', async () => {
    const big = 'a'.repeat(32 * 1024 * 1024 + 10);
    const r = await apply(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: apply-10}\ndata: {a: "${big}"}\n`);
    expect(r.status).toBe(413);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
  });

  it('parses a large YAML body (off the event loop) and applies it', async () => {
    const objs = Array.from({ length: 800 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}`, namespace: 'apply-11', labels: { i: String(i) } }, data: { payload: 'x'.repeat(300) } }));
    const body = yaml(...objs);
    expect(body.length).toBeGreaterThan(256 * 1024);
    const r = await apply(body);
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    expect(r.body.results).toHaveLength(800);
    expect(r.body.results[799]).toMatchObject({ name: 'big-799', document: 799, action: 'created' });
    // a syntax error late in a large body names its document too
    const broken = await apply(body + '---\nkind: [unclosed\n');
    expect(broken.status).toBe(400);
    expect(broken.body.detail).toContain('document 800');
  });
});

describe('apply: authorization before validation', () => {
  it('answers 403 listing the forbidden objects, even when others are invalid', async () => {
    const gw = { apiVersion: GW, kind: 'Gateway', metadata: { name: 'gw', namespace: 'team-a' }, spec: { gatewayClassName: 'x', listeners: [{ name: 'h', port: 80, protocol: 'HTTP' }] } };
    const invalidRoute = route('bad', 'team-a', {}, { rules: [{ matches: [{ path: { type: 'Sideways' } }] }] });
    const otherNs = route('elsewhere', 'team-b');
    const r = await apply(yaml(invalidRoute, gw, otherNs), '', { token: tokens.developer });
    expect(r.status).toBe(403);
    expect(r.body.errors.map((e: any) => [e.document, e.kind, e.namespace, e.name])).toEqual([[1, 'Gateway', 'team-a', 'gw'], [2, 'HTTPRoute', 'team-b', 'elsewhere']]);
    expect(r.body.errors[0].message).toContain('developer');
    // unknown kinds and objects without a namespace are out of bounds for a namespaced role too
    const u = await apply(yaml({ apiVersion: 'x/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'team-a' } }), '', { token: tokens.developer });
    expect(u.status).toBe(403);
    // the same body without the forbidden objects: 422
    const v = await apply(yaml(invalidRoute), '', { token: tokens.developer });
    expect(v.status).toBe(422);
    const ok = await apply(yaml(route('dev-ok', 'team-a')), '', { token: tokens.developer });
    expect(ok.status).toBe(200);
    const hist = await s.api('GET', '/api/v1/namespaces/team-a/httproutes/dev-ok/history');
    expect(hist.body.items[0].actor).toBe('apply-dev-a');
  });

  it('answers 403 when a prune would delete an object the caller may not write', async () => {
    await apply(yaml(route('set-r', 'team-a'), service('set-svc', 'team-a')), '?applySet=mixed');
    const r = await apply(yaml(route('set-r', 'team-a')), '?applySet=mixed&prune=true', { token: tokens.developer });
    expect(r.status).toBe(403);
    expect(r.body.errors).toEqual([expect.objectContaining({ kind: 'Service', namespace: 'team-a', name: 'set-svc' })]);
    expect(r.body.errors[0].message).toContain('prune');
    expect((await s.api('GET', '/api/v1/namespaces/team-a/services/set-svc')).status).toBe(200);
  });
});

describe('apply: applySet and prune', () => {
  it('labels every object and prunes those the body no longer holds, in the same transaction', async () => {
    const r1 = await apply(yaml(route('p1', 'apply-12'), route('p2', 'apply-12'), service('p3', 'apply-12')), '?applySet=web');
    expect(r1.status).toBe(200);
    const p1 = (await s.api('GET', '/api/v1/namespaces/apply-12/httproutes/p1')).body;
    expect(p1.metadata.labels).toEqual({ 'switchyard.dev/apply-set': 'web' });
    // another set's object and an unlabelled one are never pruned
    await apply(yaml(route('other', 'apply-12')), '?applySet=other');
    await apply(yaml(route('loose', 'apply-12')));
    const before = await eventCount();
    const r2 = await apply(yaml(route('p1', 'apply-12')), '?applySet=web&prune=true');
    expect(r2.status).toBe(200);
    expect(r2.body.results.map((r: any) => [r.kind, r.name, r.action])).toEqual([
      ['HTTPRoute', 'p1', 'unchanged'], ['HTTPRoute', 'p2', 'pruned'], ['Service', 'p3', 'pruned'],
    ]);
    expect(r2.body.results[1].document).toBeUndefined();
    expect(await eventCount()).toBe(before + 2);
    const positions = await s.running.ctx.db.prisma.$queryRawUnsafe<{ xid: bigint }[]>(`SELECT DISTINCT xid FROM events WHERE namespace = 'apply-12' AND type = 'Deleted'`);
    expect(positions).toHaveLength(1); // one transaction
    expect((await s.api('GET', '/api/v1/namespaces/apply-12/httproutes/p2')).status).toBe(404);
    expect((await s.api('GET', '/api/v1/namespaces/apply-12/services/p3')).status).toBe(404);
    expect((await s.api('GET', '/api/v1/namespaces/apply-12/httproutes/other')).status).toBe(200);
    expect((await s.api('GET', '/api/v1/namespaces/apply-12/httproutes/loose')).status).toBe(200);
    // applying without prune leaves set members alone
    await apply(yaml(route('p4', 'apply-12')), '?applySet=web');
    const r3 = await apply(yaml(route('p4', 'apply-12')), '?applySet=web');
    expect(r3.body.results.map((r: any) => r.action)).toEqual(['unchanged']);
    expect((await s.api('GET', '/api/v1/namespaces/apply-12/httproutes/p1')).status).toBe(200);
  });

  it('prunes a Secret with its data, and a re-created object continues its stream', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls', namespace: 'apply-13' }, type: 'Opaque', data: { k: 'dg==' } };
    await apply(yaml(secret, service('keep', 'apply-13')), '?applySet=sec');
    const r = await apply(yaml(service('keep', 'apply-13')), '?applySet=sec&prune=true');
    expect(r.body.results.find((x: any) => x.kind === 'Secret')).toMatchObject({ action: 'pruned', resourceVersion: '2' });
    const data = await s.running.ctx.db.prisma.$queryRawUnsafe<any[]>(`SELECT 1 FROM secret_data WHERE stream = 'Secret/apply-13/tls'`);
    expect(data).toHaveLength(0);
    const again = await apply(yaml(secret, service('keep', 'apply-13')), '?applySet=sec');
    expect(again.body.results[0]).toMatchObject({ action: 'created', resourceVersion: '3' });
  });
});

describe('apply: dryRun', () => {
  it('writes nothing and carries a readable diff per object', async () => {
    await apply(yaml(route('dr1', 'apply-14', { labels: { tier: 'web' } }), route('dr2', 'apply-14'), route('dr3', 'apply-14')), '?applySet=dry');
    const before = await eventCount();
    const r = await apply(
      yaml(route('dr1', 'apply-14', { labels: { tier: 'api' } }), route('dr2', 'apply-14'), route('dr-new', 'apply-14')),
      '?applySet=dry&prune=true&dryRun=true',
    );
    expect(r.status).toBe(200);
    expect(r.body.dryRun).toBe(true);
    expect(await eventCount()).toBe(before);
    expect((await s.api('GET', '/api/v1/namespaces/apply-14/httproutes/dr-new')).status).toBe(404);
    expect((await s.api('GET', '/api/v1/namespaces/apply-14/httproutes/dr3')).status).toBe(200);
    const [c, u, n, p] = r.body.results;
    expect([c.action, u.action, n.action, p.action]).toEqual(['configured', 'unchanged', 'created', 'pruned']);
    expect(c.resourceVersion).toBe('2');
    expect(c.diff).toContain('--- HTTPRoute apply-14/dr1 (resourceVersion 1)');
    expect(c.diff).toContain('+++ HTTPRoute apply-14/dr1 (applied)');
    expect(c.diff).toMatch(/^-\s+tier: web$/m);
    expect(c.diff).toMatch(/^\+\s+tier: api$/m);
    expect(c.diff).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/m);
    expect(u.diff).toBe('');
    expect(n.diff).toContain('--- /dev/null');
    expect(n.diff).toMatch(/^\+\s+name: gw$/m);
    expect(p.name).toBe('dr3');
    expect(p.diff).toContain('+++ /dev/null');
    expect(p.diff.split('\n').filter((l: string) => l.startsWith('+ ') || (l.startsWith('+') && !l.startsWith('+++'))).length).toBe(0);
  });

  it('still refuses invalid and forbidden objects', async () => {
    expect((await apply(yaml(route('x', undefined)), '?dryRun=true')).status).toBe(422);
    expect((await apply(yaml(service('x', 'team-a')), '?dryRun=true', { token: tokens.developer })).status).toBe(403);
  });

  it('never shows Secret data in a diff', async () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dry', namespace: 'apply-14' }, type: 'Opaque', data: { password: Buffer.from('s3cr3t-value').toString('base64') } };
    const r = await apply(yaml(secret), '?dryRun=true');
    expect(r.body.results[0].diff).toContain('dataDigest: sha256:');
    expect(r.body.results[0].diff).not.toContain(Buffer.from('s3cr3t-value').toString('base64'));
  });
});

describe('apply: Idempotency-Key', () => {
  it('returns the first answer for the same key and body, writing nothing; another body is a 422', async () => {
    const body = yaml(route('i1', 'apply-15'), service('i2', 'apply-15'));
    const key = { 'idempotency-key': 'sync-run-1' };
    const first = await apply(body, '', { headers: key });
    expect(first.status).toBe(200);
    expect(first.body.results.map((r: any) => r.action)).toEqual(['created', 'created']);
    // someone changes an object in between: a replay still writes nothing and answers as the first time
    await s.api('PUT', '/api/v1/namespaces/apply-15/services/i2', { ...service('i2', 'apply-15'), spec: { ports: [{ port: 81 }] } });
    const before = await eventCount();
    const replay = await apply(body, '', { headers: key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await eventCount()).toBe(before);
    expect((await s.api('GET', '/api/v1/namespaces/apply-15/services/i2')).body.spec.ports[0].port).toBe(81);

    const other = await apply(yaml(route('i1', 'apply-15')), '', { headers: key });
    expect(other.status).toBe(422);
    expect(other.body.detail).toContain('Idempotency-Key');
    expect(await eventCount()).toBe(before);
    // the same body with another prune/applySet is another request
    expect((await apply(body, '?applySet=idem', { headers: key })).status).toBe(422);
    // keys are per token
    const dev = await apply(yaml(route('i1', 'team-a')), '', { headers: key, token: tokens.developer });
    expect(dev.status).toBe(200);
  });

  it('handles the same key sent twice at once: one apply, the same answer', async () => {
    const body = yaml(...Array.from({ length: 40 }, (_, i) => service(`c${i}`, 'apply-16')));
    const key = { 'idempotency-key': 'concurrent-key' };
    const before = await eventCount();
    const [a, b] = await Promise.all([apply(body, '', { headers: key }), apply(body, '', { headers: key })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body).toEqual(b.body);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')]).toContain('true');
    expect(await eventCount()).toBe(before + 40);
    // later the same key still replays the first answer (all created), it does not apply again
    const c = await apply(body, '', { headers: key });
    expect(c.headers.get('idempotent-replayed')).toBe('true');
    expect(c.body).toEqual(a.body);
    expect(c.body.results.map((r: any) => r.action)).toEqual(Array(40).fill('created'));
    expect(await eventCount()).toBe(before + 40);
  });

  it('rejects an over-long key', async () => {
    expect((await apply(yaml(route('k', 'apply-15')), '', { headers: { 'idempotency-key': 'k'.repeat(300) } })).status).toBe(400);
  });
});

describe('apply: two sync jobs at the same time', () => {
  it('never loses an update: each applies whole or gets 409 and writes nothing', async () => {
    const N = 60;
    const names = Array.from({ length: N }, (_, i) => `o${i}`);
    const svc = (name: string, port: number) => service(name, 'apply-17', port);
    await apply(yaml(...names.map((n) => svc(n, 1000))));
    let conflicts = 0;
    for (let round = 0; round < 12; round++) {
      const portA = 2000 + round;
      const portB = 3000 + round;
      // A changes the first half and keeps the second as read; B the other way round (plus both own private objects)
      const cur = await Promise.all(names.map(async (n) => (await s.api('GET', `/api/v1/namespaces/apply-17/services/${n}`)).body.spec.ports[0].port as number));
      const bodyA = yaml(...names.map((n, i) => svc(n, i < N / 2 ? portA : cur[i])), svc(`only-a-${round}`, 1));
      const bodyB = yaml(...names.map((n, i) => svc(n, i >= N / 2 ? portB : cur[i])), svc(`only-b-${round}`, 1));
      const [a, b] = await Promise.all([apply(bodyA), apply(bodyB)]);
      expect([200, 409]).toContain(a.status);
      expect([200, 409]).toContain(b.status);
      const after = await Promise.all(names.map(async (n) => (await s.api('GET', `/api/v1/namespaces/apply-17/services/${n}`)).body.spec.ports[0].port as number));
      const onlyA = (await s.api('GET', `/api/v1/namespaces/apply-17/services/only-a-${round}`)).status === 200;
      const onlyB = (await s.api('GET', `/api/v1/namespaces/apply-17/services/only-b-${round}`)).status === 200;
      expect(onlyA).toBe(a.status === 200);
      expect(onlyB).toBe(b.status === 200);
      const wholeA = after.every((p, i) => p === (i < N / 2 ? portA : cur[i]));
      const wholeB = after.every((p, i) => p === (i >= N / 2 ? portB : cur[i]));
      if (a.status === 200 && b.status === 200) {
        // both succeeded: only possible one after the other, the later one seeing the earlier - the
        // final state is then the later body whole
        expect(wholeA || wholeB).toBe(true);
      } else if (a.status === 200) expect(wholeA).toBe(true);
      else if (b.status === 200) expect(wholeB).toBe(true);
      else expect(after).toEqual(cur);
      if (a.status === 409 || b.status === 409) conflicts++;
      for (const r of [a, b]) if (r.status === 409) expect(r.headers.get('content-type')).toContain('application/problem+json');
    }
    // the two applies overlap in the embedded database too; a run without one conflict tested no race
    expect(conflicts).toBeGreaterThan(0);
  });

  it('overlapping manifests that both change the same objects: one wins whole', async () => {
    const names = Array.from({ length: 100 }, (_, i) => `w${i}`);
    for (let round = 0; round < 5; round++) {
      const bodyA = yaml(...names.map((n) => service(n, 'apply-18', 4000 + round)));
      const bodyB = yaml(...names.map((n) => service(n, 'apply-18', 5000 + round)));
      const [a, b] = await Promise.all([apply(bodyA), apply(bodyB)]);
      const ports = await Promise.all(names.map(async (n) => (await s.api('GET', `/api/v1/namespaces/apply-18/services/${n}`)).body.spec.ports[0].port));
      expect(new Set(ports).size).toBe(1);
      if (a.status === 200 && b.status !== 200) expect(ports[0]).toBe(4000 + round);
      if (b.status === 200 && a.status !== 200) expect(ports[0]).toBe(5000 + round);
      expect(a.status === 200 || b.status === 200).toBe(true);
    }
  });
});

describe('apply: wait', () => {
  it('answers once the reconciler has caught up, each result carrying its conditions', async () => {
    const gc = { apiVersion: GW, kind: 'GatewayClass', metadata: { name: 'apply-wait' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } };
    const gw = { apiVersion: GW, kind: 'Gateway', metadata: { name: 'gw', namespace: 'apply-19' }, spec: { gatewayClassName: 'apply-wait', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } };
    const rt = route('waited', 'apply-19', {}, { rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] });
    const r = await apply(yaml(gc, gw, rt, service('svc', 'apply-19')), '?wait=30');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [cls, gateway, httproute, svc] = r.body.results;
    expect(cls.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Accepted', status: 'True' })]));
    expect(gateway.conditions).toEqual(expect.arrayContaining([
      expect.objectContaining({ type: 'Accepted', status: 'True' }),
      expect.objectContaining({ type: 'Programmed', listener: 'http' }),
    ]));
    expect(httproute.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Accepted', status: 'True', parent: 'apply-19/gw' })]));
    expect(svc.conditions).toEqual([]);
    // re-applied unchanged with wait: answers at once (already caught up), with conditions
    const again = await apply(yaml(gc, gw, rt, service('svc', 'apply-19')), '?wait=30');
    expect(again.status).toBe(200);
    expect(again.body.results.map((x: any) => x.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(again.body.results.map((x: any) => x.conditions)).toEqual(r.body.results.map((x: any) => x.conditions));
  });

  it('answers 504 with what is known when the reconciler does not catch up in time', async () => {
    const s2 = await startTestServer({}, { worker: false });
    try {
      const res = await fetch(`${s2.url}/api/v1/apply?wait=1`, {
        method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' },
        body: yaml(route('late', 'apply-20')),
      });
      expect(res.status).toBe(504);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const body: any = await res.json();
      expect(body.status).toBe(504);
      expect(body.detail).toContain('committed');
      expect(body.results).toEqual([expect.objectContaining({ name: 'late', action: 'created', conditions: [] })]);
      expect((await s2.api('GET', '/api/v1/namespaces/apply-20/httproutes/late')).status).toBe(200);
    } finally {
      await s2.close();
    }
  });
});
