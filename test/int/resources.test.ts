// Every object endpoint through the real HTTP server and the real store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, type TestServer } from '../support/server';
import { needs, skippable } from '../support/database';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const GW = 'gateway.networking.k8s.io/v1';
const route = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: GW,
  kind: 'HTTPRoute',
  metadata: { name, ...extra },
  spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] },
});
const base = '/api/v1/namespaces/team-a/httproutes';

describe('create and read', () => {
  it('creates with 201, ETag and server metadata, and reads it back', async () => {
    const c = await s.api('POST', base, route('create-1', { labels: { app: 'web' } }));
    expect(c.status).toBe(201);
    expect(c.headers.get('etag')).toBe('"1"');
    expect(c.body.metadata).toMatchObject({ name: 'create-1', namespace: 'team-a', resourceVersion: '1', generation: 1 });
    expect(c.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const g = await s.api('GET', `${base}/create-1`);
    expect(g.status).toBe(200);
    expect(g.headers.get('etag')).toBe('"1"');
    expect(g.body.spec.parentRefs[0].name).toBe('gw');
    expect(g.body.metadata.labels).toEqual({ app: 'web' });
  });

  it('answers 409 when creating an object that exists', async () => {
    await s.api('POST', base, route('dup'));
    const again = await s.api('POST', base, route('dup'));
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(again.body).toMatchObject({ status: 409, title: 'Conflict' });
  });

  it('takes name and namespace from the path and rejects a body that disagrees', async () => {
    const put = await s.api('PUT', `${base}/from-path`, { apiVersion: GW, kind: 'HTTPRoute', spec: route('x').spec });
    expect(put.status).toBe(201);
    expect(put.body.metadata).toMatchObject({ name: 'from-path', namespace: 'team-a' });
    const wrongName = await s.api('PUT', `${base}/from-path`, route('other'));
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.detail).toContain('does not match the name in the path');
    const wrongNs = await s.api('PUT', `${base}/from-path`, route('from-path', { namespace: 'team-b' }));
    expect(wrongNs.status).toBe(400);
    expect(wrongNs.body.detail).toContain('namespace');
  });

  it('returns 404 problem+json for missing objects, unknown kinds and unknown paths', async () => {
    for (const path of [`${base}/nope`, '/api/v1/namespaces/team-a/widgets', '/api/v1/widgets', '/api/v2/x', '/nothing']) {
      const r = await s.api('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type'), path).toContain('application/problem+json');
    }
  });

  it('rejects a kind that does not match the path with 400', async () => {
    const r = await s.api('POST', base, { ...route('k'), kind: 'GRPCRoute' });
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('does not match the path');
  });

  it('serves cluster-scoped kinds without a namespace', async () => {
    const gc = await s.api('POST', '/api/v1/gatewayclasses', { apiVersion: GW, kind: 'GatewayClass', metadata: { name: 'gc1' }, spec: { controllerName: 'example.com/other' } });
    expect(gc.status).toBe(201);
    expect(gc.body.metadata.namespace).toBeUndefined();
    expect((await s.api('GET', '/api/v1/gatewayclasses/gc1')).status).toBe(200);
    const ns = await s.api('PUT', '/api/v1/namespaces/team-z', { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: { team: 'z' } } });
    expect(ns.status).toBe(201);
    expect(ns.body.metadata.labels).toEqual({ team: 'z', 'kubernetes.io/metadata.name': 'team-z' });
    const hist = await s.api('GET', '/api/v1/namespaces/team-z/history');
    expect(hist.status).toBe(200);
    expect(hist.body.items).toHaveLength(1);
  });
});

describe('errors of the request itself', () => {
  it('answers 400 for malformed JSON', async () => {
    const r = await s.api('POST', base, '{"apiVersion": ', { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('not valid JSON');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const big = route('big', { annotations: { blob: 'x'.repeat(1024 * 1024 + 10) } });
    const r = await s.api('POST', base, big);
    expect(r.status).toBe(413);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers 415 for a JSON patch, which is not supported', async () => {
    await s.api('POST', base, route('p415'));
    const r = await s.api('PATCH', `${base}/p415`, '[]', { 'content-type': 'application/json-patch+json' });
    expect(r.status).toBe(415);
  });

  it('answers 401 without a token or with an unknown one', async () => {
    expect((await client(s.url, null)('GET', base)).status).toBe(401);
    expect((await client(s.url, 'wrong')('GET', base)).status).toBe(401);
  });

  it('answers 422 listing every structural error with its path', async () => {
    const bad = route('bad');
    (bad.spec as any).parentRefs = [{ name: 7 }];
    (bad.spec as any).rules = [{ matches: [{ path: { type: 'Sideways', value: '/x' } }] }];
    const r = await s.api('POST', base, bad);
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([
      { path: 'spec.parentRefs[0].name', message: expect.stringContaining('must be of type string'), reason: 'FieldValueTypeInvalid' },
      { path: 'spec.rules[0].matches[0].path.type', message: expect.stringContaining('Unsupported value: "Sideways"'), reason: 'FieldValueNotSupported' },
      // the CEL rules are skipped on a structurally broken object, and the answer says so
      { path: '', message: expect.stringContaining('some validation rules were not checked'), reason: 'FieldValueInvalid' },
    ]);
    expect((await s.api('GET', `${base}/bad`)).status).toBe(404);
  });
});

describe('replace, patch, delete and preconditions', () => {
  it('replaces with PUT, bumps version and generation on spec change only', async () => {
    const c = await s.api('PUT', `${base}/rep`, route('rep'));
    expect(c.status).toBe(201);
    const labelled = await s.api('PUT', `${base}/rep`, route('rep', { labels: { a: '1' } }));
    expect(labelled.status).toBe(200);
    expect(labelled.body.metadata).toMatchObject({ resourceVersion: '2', generation: 1 });
    const changed = route('rep', { labels: { a: '1' } });
    (changed.spec.rules[0].backendRefs[0] as any).port = 8080;
    const r = await s.api('PUT', `${base}/rep`, changed);
    expect(r.body.metadata).toMatchObject({ resourceVersion: '3', generation: 2 });
    expect(r.body.metadata.creationTimestamp).toBe(c.body.metadata.creationTimestamp);
    expect(r.body.metadata.uid).toBe(c.body.metadata.uid);
  });

  it('writes no event when nothing changed, and answers with the unchanged version', async () => {
    await s.api('PUT', `${base}/same`, route('same'));
    const again = await s.api('PUT', `${base}/same`, route('same'));
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe('1');
    const otherVersion = await s.api('PUT', `${base}/same`, { ...route('same'), apiVersion: 'gateway.networking.k8s.io/v1beta1' });
    expect(otherVersion.body.metadata.resourceVersion).toBe('1');
    const hist = await s.api('GET', `${base}/same/history`);
    expect(hist.body.items).toHaveLength(1);
  });

  it('ignores status sent by a client', async () => {
    const r = await s.api('PUT', `${base}/st`, { ...route('st'), status: { parents: [{ controllerName: 'x' }] } });
    expect(r.status).toBe(201);
    expect(r.body.status).toBeUndefined();
    expect((await s.api('GET', `${base}/st`)).body.status).toBeUndefined();
  });

  it('enforces metadata.resourceVersion and If-Match on PUT, PATCH and DELETE', async () => {
    await s.api('PUT', `${base}/pre`, route('pre'));
    const stale = await s.api('PUT', `${base}/pre`, route('pre', { resourceVersion: '7', labels: { x: 'y' } }));
    expect(stale.status).toBe(409);
    const ok = await s.api('PUT', `${base}/pre`, route('pre', { resourceVersion: '1', labels: { x: 'y' } }));
    expect(ok.status).toBe(200);
    expect(ok.body.metadata.resourceVersion).toBe('2');
    expect((await s.api('PATCH', `${base}/pre`, { metadata: { labels: { z: '1' } } }, { 'if-match': '"1"' })).status).toBe(409);
    expect((await s.api('PATCH', `${base}/pre`, { metadata: { resourceVersion: '1', labels: { z: '1' } } })).status).toBe(409);
    const p = await s.api('PATCH', `${base}/pre`, { metadata: { labels: { z: '1' } } }, { 'if-match': '"2"' });
    expect(p.status).toBe(200);
    expect(p.body.metadata.labels).toEqual({ x: 'y', z: '1' });
    expect((await s.api('DELETE', `${base}/pre`, undefined, { 'if-match': '"2"' })).status).toBe(409);
    const del = await s.api('DELETE', `${base}/pre`, undefined, { 'if-match': '"3"' });
    expect(del.status).toBe(200);
    expect((await s.api('GET', `${base}/pre`)).status).toBe(404);
    expect((await s.api('DELETE', `${base}/pre`)).status).toBe(404);
    expect((await s.api('PATCH', `${base}/pre`, { metadata: { labels: { a: 'b' } } })).status).toBe(404);
  });

  it('merge-patches spec fields and removes keys set to null', async () => {
    await s.api('PUT', `${base}/mp`, route('mp', { labels: { keep: '1', drop: '1' } }));
    const p = await s.api('PATCH', `${base}/mp`, { metadata: { labels: { drop: null } }, spec: { hostnames: ['a.example.com'] } });
    expect(p.status).toBe(200);
    expect(p.body.metadata.labels).toEqual({ keep: '1' });
    expect(p.body.spec.hostnames).toEqual(['a.example.com']);
    expect(p.body.spec.parentRefs[0].name).toBe('gw');
    expect(p.body.metadata.generation).toBe(2);
  });

  it('continues the stream after a delete: versions go on, uid and creationTimestamp are new', async () => {
    const first = await s.api('PUT', `${base}/again`, route('again'));
    await s.api('DELETE', `${base}/again`);
    const second = await s.api('PUT', `${base}/again`, route('again'));
    expect(second.status).toBe(201);
    expect(second.body.metadata.resourceVersion).toBe('3');
    expect(second.body.metadata.generation).toBe(1);
    expect(second.body.metadata.uid).not.toBe(first.body.metadata.uid);
    // a precondition taken before the delete can never match again
    expect((await s.api('PUT', `${base}/again`, route('again', { resourceVersion: '1', labels: { a: 'b' } }))).status).toBe(409);
  });

  it('lets exactly one of two racing writers win against the same version', async () => {
    await s.api('PUT', `${base}/race`, route('race'));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.api('PUT', `${base}/race`, route('race', { resourceVersion: '1', labels: { writer: String(i) } }))),
    );
    const codes = results.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(7);
    const hist = await s.api('GET', `${base}/race/history`);
    expect(hist.body.items).toHaveLength(2);
  });

  it('gives each of many concurrent writes its own answer when they share statements', async () => {
    // distinct creates, racing creates of one name, and racing replaces without a precondition
    await s.api('PUT', `${base}/shared`, route('shared'));
    const [distinct, sameName, replaces] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, (_, i) => s.api('PUT', `${base}/many-${i}`, route(`many-${i}`, { labels: { i: String(i) } })))),
      Promise.all(Array.from({ length: 8 }, () => s.api('POST', base, route('once')))),
      Promise.all(Array.from({ length: 8 }, (_, i) => s.api('PUT', `${base}/shared`, route('shared', { labels: { writer: String(i) } })))),
    ]);
    expect(distinct.map((r) => r.status)).toEqual(Array(40).fill(201));
    expect(distinct.map((r) => r.body.metadata.labels.i)).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
    expect(sameName.map((r) => r.status).sort()).toEqual([201, ...Array(7).fill(409)]);
    expect(replaces.map((r) => r.status)).toEqual(Array(8).fill(200));
    // last one wins, and every replace is a version of its own
    const hist = await s.api('GET', `${base}/shared/history`);
    expect(hist.body.items).toHaveLength(9);
    const final = await s.api('GET', `${base}/shared`);
    expect(Number(final.body.metadata.resourceVersion)).toBe(9);
  });
});

describe('writes that wait for a lock', () => {
  // Another transaction holds the unique key a write needs (as an apply that has not committed
  // would): that write waits for it, and writes to other objects must not wait behind it.
  const concurrent = needs({ pg: true });
  it.skipIf(concurrent.skip)(skippable(concurrent, 'hold back no other write'), async () => {
    const db = s.running.ctx.db;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockedNow = new Promise<void>((r) => (locked = r));
    const holder = db.transaction(async (tx) => {
      for (const name of ['locked-1', 'locked-2']) {
        await tx.$executeRawUnsafe(
          `INSERT INTO events (position, xid, stream, kind, namespace, name, version, type, actor, time, object)
           SELECT pg_current_xact_id()::text::bigint * 1048576 + $2, pg_current_xact_id()::text::bigint, $1, 'HTTPRoute', 'team-a', $3, 1, 'Created', 'test', now(), '{}'::jsonb`,
          `HTTPRoute/team-a/${name}`, name === 'locked-1' ? 0 : 1, name);
      }
      locked();
      await held;
      throw new Error('rolled back');
    }).catch(() => undefined);
    await lockedNow;
    // two writes stuck on the lock, each in a batch of its own
    const stuck1 = s.api('PUT', `${base}/locked-1`, route('locked-1'));
    await new Promise((r) => setTimeout(r, 20));
    const stuck2 = s.api('PUT', `${base}/locked-2`, route('locked-2'));
    await new Promise((r) => setTimeout(r, 20));
    // the other writes finish while the lock is still held (null: they waited for it)
    const others = await Promise.race([
      Promise.all(Array.from({ length: 10 }, (_, i) => s.api('PUT', `${base}/free-${i}`, route(`free-${i}`)))),
      new Promise<null>((r) => setTimeout(() => r(null), 3000)),
    ]);
    release();
    await holder;
    expect(others?.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect((await stuck1).status).toBe(201);
    expect((await stuck2).status).toBe(201);
  });
});

describe('history', () => {
  it('lists every version oldest first with actor, and serves each version', async () => {
    await s.api('PUT', `${base}/h`, route('h'));
    await s.api('PATCH', `${base}/h`, { metadata: { labels: { v: '2' } } });
    await s.api('DELETE', `${base}/h`);
    const h = await s.api('GET', `${base}/h/history`);
    expect(h.body.items.map((i: any) => [i.version, i.type, i.actor])).toEqual([
      [1, 'Created', 'admin'], [2, 'Updated', 'admin'], [3, 'Deleted', 'admin'],
    ]);
    const v2 = await s.api('GET', `${base}/h/history/2`);
    expect(v2.status).toBe(200);
    expect(v2.headers.get('etag')).toBe('"2"');
    expect(v2.body.metadata.labels).toEqual({ v: '2' });
    expect((await s.api('GET', `${base}/h/history/9`)).status).toBe(404);
    expect((await s.api('GET', `${base}/nobody/history`)).status).toBe(404);
  });
});

describe('lists', () => {
  beforeAll(async () => {
    for (const [ns, name, labels] of [
      ['list-a', 'r1', { tier: 'web', env: 'prod' }], ['list-a', 'r2', { tier: 'api', env: 'prod' }],
      ['list-a', 'r3', { tier: 'web' }], ['list-b', 'r1', { tier: 'web', env: 'dev' }],
    ] as const) {
      const r = await s.api('PUT', `/api/v1/namespaces/${ns}/services/${name}`, { apiVersion: 'v1', kind: 'Service', metadata: { labels }, spec: { ports: [{ port: 80 }] } });
      expect(r.status).toBe(201);
    }
  });

  it('lists one namespace or all, sorted, as a <Kind>List', async () => {
    const one = await s.api('GET', '/api/v1/namespaces/list-a/services');
    expect(one.body).toMatchObject({ apiVersion: 'v1', kind: 'ServiceList' });
    expect(one.body.items.map((o: any) => o.metadata.name)).toEqual(['r1', 'r2', 'r3']);
    const all = await s.api('GET', '/api/v1/services');
    expect(all.body.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['list-a/r1', 'list-a/r2', 'list-a/r3', 'list-b/r1']);
  });

  it('filters by labelSelector', async () => {
    const sel = async (q: string) => (await s.api('GET', `/api/v1/services?labelSelector=${encodeURIComponent(q)}`)).body.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(await sel('tier=web')).toEqual(['list-a/r1', 'list-a/r3', 'list-b/r1']);
    expect(await sel('tier=web,env!=prod')).toEqual(['list-a/r3', 'list-b/r1']);
    expect(await sel('env')).toEqual(['list-a/r1', 'list-a/r2', 'list-b/r1']);
    expect(await sel('!env')).toEqual(['list-a/r3']);
    expect(await sel('env in (dev,qa)')).toEqual(['list-b/r1']);
    expect(await sel('tier notin (web)')).toEqual(['list-a/r2']);
    expect((await s.api('GET', '/api/v1/services?labelSelector=' + encodeURIComponent('a=b=c'))).status).toBe(400);
  });

  it('pages with limit and continue', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const r = await s.api('GET', `/api/v1/services?limit=3${token ? `&continue=${token}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`));
      token = r.body.metadata.continue;
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen).toEqual(['list-a/r1', 'list-a/r2', 'list-a/r3', 'list-b/r1']);
    expect((await s.api('GET', '/api/v1/services?limit=0')).status).toBe(400);
    expect((await s.api('GET', '/api/v1/services?continue=garbage')).status).toBe(400);
    // well-formed but naming no object: a NUL in it once reached PostgreSQL and answered 500
    const forged = Buffer.from(JSON.stringify(['\u0000', 'x'])).toString('base64url');
    expect((await s.api('GET', `/api/v1/gatewayclasses?continue=${forged}`)).status).toBe(400);
  });
});

describe('secrets', () => {
  const secret = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cert' }, type: 'kubernetes.io/tls', data });
  it('keeps data out of the log and history, shows it to admins, and destroys it on delete', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const c = await s.api('PUT', '/api/v1/namespaces/infra/secrets/cert', secret({ 'tls.crt': b64('CERT'), 'tls.key': b64('KEY') }));
    expect(c.status).toBe(201);
    expect(c.body.data['tls.key']).toBe(b64('KEY'));
    expect(c.body.dataDigest).toBeUndefined();
    const g = await s.api('GET', '/api/v1/namespaces/infra/secrets/cert');
    expect(g.body.data['tls.crt']).toBe(b64('CERT'));
    const h1 = await s.api('GET', '/api/v1/namespaces/infra/secrets/cert/history/1');
    expect(h1.body.data).toBeUndefined();
    expect(h1.body.dataDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const events = await s.api('GET', '/api/v1/events?kind=Secret&limit=1000');
    expect(JSON.stringify(events.body)).not.toContain(b64('KEY'));
    const same = await s.api('PUT', '/api/v1/namespaces/infra/secrets/cert', secret({ 'tls.crt': b64('CERT'), 'tls.key': b64('KEY') }));
    expect(same.body.metadata.resourceVersion).toBe('1');
    const rotated = await s.api('PUT', '/api/v1/namespaces/infra/secrets/cert', secret({ 'tls.crt': b64('CERT2'), 'tls.key': b64('KEY2') }));
    expect(rotated.body.metadata.resourceVersion).toBe('2');
    expect((await s.api('GET', '/api/v1/namespaces/infra/secrets/cert')).body.data['tls.key']).toBe(b64('KEY2'));
    await s.api('DELETE', '/api/v1/namespaces/infra/secrets/cert');
    const { rows } = await s.running.ctx.db.prisma.$queryRawUnsafe<any>(`SELECT count(*)::int AS n FROM secret_data`).then((r: any) => ({ rows: r }));
    expect(rows[0].n).toBe(0);
  });

  it('keeps each Secret its own data when many are written and deleted at once', async () => {
    const b64 = (v: string) => Buffer.from(v).toString('base64');
    const path = (i: number) => `/api/v1/namespaces/infra/secrets/many-${i}`;
    const body = (i: number) => ({ ...secret({ 'tls.crt': b64(`CERT-${i}`), 'tls.key': b64(`KEY-${i}`) }), metadata: { name: `many-${i}` } });
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) => s.api('PUT', path(i), body(i))));
    expect(created.map((r) => r.status)).toEqual(Array(24).fill(201));
    // deletes of the even ones race rotations of the odd ones
    const mixed = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0
      ? s.api('DELETE', path(i))
      : s.api('PUT', path(i), { ...body(i), data: { 'tls.crt': b64(`CERT-${i}`), 'tls.key': b64(`ROTATED-${i}`) } }))));
    expect(mixed.map((r) => r.status)).toEqual(Array(24).fill(200));
    for (let i = 0; i < 24; i++) {
      const r = await s.api('GET', path(i));
      if (i % 2 === 0) expect(r.status).toBe(404);
      else expect(r.body.data).toEqual({ 'tls.crt': b64(`CERT-${i}`), 'tls.key': b64(`ROTATED-${i}`) });
    }
    const rows = await s.running.ctx.db.sql.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM secret_data WHERE stream LIKE 'Secret/infra/many-%'`);
    expect(rows[0].n).toBe(12);
  });
});
