// The role split Gateway API was made for, enforced: an authorization matrix generated from the
// contract's table (every role x verb x kind x own/other namespace), SSE leakage, the hijack
// scenario from every side, tokens, and abuse limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, mintToken, reconciled, startTestServer, type Client, type Reply, type TestServer } from '../support/server';
import { sse } from '../support/sse';

let s: TestServer;
const tokens: Record<string, string> = {};
const GWG = 'gateway.networking.k8s.io';

// The contract's table, restated here independently of the implementation.
const ROUTES = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'];
const WRITES: Record<string, string[] | 'all'> = {
  admin: 'all', operator: ['Gateway', 'ListenerSet', 'ReferenceGrant', 'Secret', 'ConfigMap', 'BackendTLSPolicy'], developer: [...ROUTES, 'ReferenceGrant'],
  discovery: ['Service', 'EndpointSlice'], proxy: [], viewer: [],
};
function mayWrite(role: string, kind: string, own: boolean): boolean {
  if (role === 'admin') return true;
  if (kind === 'GatewayClass' || kind === 'Namespace') return false;
  return (WRITES[role] as string[]).includes(kind) && own;
}
function mayRead(role: string, kind: string, own: boolean): boolean {
  if (role === 'admin' || role === 'viewer') return true;
  if (role === 'operator' || role === 'developer') return kind === 'Gateway' || kind === 'GatewayClass' || own;
  if (role === 'discovery') return (kind === 'Service' || kind === 'EndpointSlice') && own;
  return false;
}

const KINDS: { kind: string; plural: string; apiVersion: string; body: Record<string, unknown>; cluster?: boolean }[] = [
  { kind: 'Gateway', plural: 'gateways', apiVersion: `${GWG}/v1`, body: { spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } } },
  { kind: 'HTTPRoute', plural: 'httproutes', apiVersion: `${GWG}/v1`, body: { spec: { parentRefs: [{ name: 'gw' }] } } },
  { kind: 'GRPCRoute', plural: 'grpcroutes', apiVersion: `${GWG}/v1`, body: { spec: { parentRefs: [{ name: 'gw' }] } } },
  { kind: 'TLSRoute', plural: 'tlsroutes', apiVersion: `${GWG}/v1alpha2`, body: { spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 's', port: 443 }] }] } } },
  { kind: 'TCPRoute', plural: 'tcproutes', apiVersion: `${GWG}/v1alpha2`, body: { spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 's', port: 80 }] }] } } },
  { kind: 'UDPRoute', plural: 'udproutes', apiVersion: `${GWG}/v1alpha2`, body: { spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 's', port: 53 }] }] } } },
  { kind: 'ReferenceGrant', plural: 'referencegrants', apiVersion: `${GWG}/v1`, body: { spec: { from: [{ group: GWG, kind: 'HTTPRoute', namespace: 'x' }], to: [{ group: '', kind: 'Service' }] } } },
  { kind: 'Service', plural: 'services', apiVersion: 'v1', body: { spec: { ports: [{ port: 80 }] } } },
  { kind: 'EndpointSlice', plural: 'endpointslices', apiVersion: 'discovery.k8s.io/v1', body: { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] } },
  { kind: 'Secret', plural: 'secrets', apiVersion: 'v1', body: { type: 'Opaque', data: { key: 'c2VjcmV0' } } },
  { kind: 'ConfigMap', plural: 'configmaps', apiVersion: 'v1', body: { data: { a: 'b' } } },
  { kind: 'BackendTLSPolicy', plural: 'backendtlspolicies', apiVersion: `${GWG}/v1`, body: { spec: { targetRefs: [{ group: '', kind: 'Service', name: 's' }], validation: { hostname: 's.example', wellKnownCACertificates: 'System' } } } },
  { kind: 'ListenerSet', plural: 'listenersets', apiVersion: `${GWG}/v1`, body: { spec: { parentRef: { name: 'gw' }, listeners: [{ name: 'extra', port: 8080, protocol: 'HTTP' }] } } },
  { kind: 'GatewayClass', plural: 'gatewayclasses', apiVersion: `${GWG}/v1`, body: { spec: { controllerName: 'example.com/other' } }, cluster: true },
  { kind: 'Namespace', plural: 'namespaces', apiVersion: 'v1', body: {}, cluster: true },
];
const ROLES = ['admin', 'operator', 'developer', 'discovery', 'proxy', 'viewer'];
const VERBS = ['list', 'get', 'create', 'replace', 'patch', 'delete'] as const;

function collection(k: (typeof KINDS)[number], ns: string) {
  return k.cluster ? `/api/v1/${k.plural}` : `/api/v1/namespaces/${ns}/${k.plural}`;
}
function objectPath(k: (typeof KINDS)[number], ns: string, name: string) {
  // a Namespace object "is in" itself: own = team-a, other = team-b
  if (k.kind === 'Namespace') return `/api/v1/namespaces/${name}`;
  return `${collection(k, ns)}/${name}`;
}
function obj(k: (typeof KINDS)[number], name: string, labels?: Record<string, string>) {
  return { apiVersion: k.apiVersion, kind: k.kind, metadata: { name, ...(labels ? { labels } : {}) }, ...k.body };
}

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 });
  const mk = (body: Record<string, unknown>) => mintToken(s, body);
  tokens.admin = (await mk({ name: 'root2', role: 'admin' }));
  tokens.operator = await mk({ name: 'ops-a', role: 'operator', namespaces: ['team-a'] });
  tokens.developer = await mk({ name: 'dev-a', role: 'developer', namespaces: ['team-a'] });
  tokens.discovery = await mk({ name: 'disc-a', role: 'discovery', namespaces: ['team-a'] });
  tokens.proxy = await mk({ name: 'proxy-edge', role: 'proxy', gateways: ['infra/edge'] });
  tokens.viewer = await mk({ name: 'watcher', role: 'viewer' });
  tokens.devB = await mk({ name: 'dev-b', role: 'developer', namespaces: ['team-b'] });
});
afterAll(async () => {
  await s?.close();
});

describe('authorization matrix', () => {
  interface Case { role: string; kind: string; own: boolean; verb: (typeof VERBS)[number]; want: number }
  const cases: Case[] = [];
  for (const role of ROLES) for (const k of KINDS) for (const own of [true, false]) for (const verb of VERBS) {
    if (k.kind === 'GatewayClass' && !own) continue; // cluster-scoped: no "other namespace"
    const read = mayRead(role, k.kind, own);
    const write = mayWrite(role, k.kind, own);
    const want = verb === 'list' ? (k.cluster && k.kind === 'Namespace' ? 200 : read ? 200 : 403)
      : verb === 'get' ? (read ? 200 : 403)
      : verb === 'create' ? (write ? 201 : 403)
      : write ? 200 : 403;
    cases.push({ role, kind: k.kind, own, verb, want });
  }

  it(`has at least 150 cases (${cases.length})`, () => expect(cases.length).toBeGreaterThanOrEqual(150));

  it.each(cases)('$role $verb $kind (own namespace: $own) -> $want', async ({ role, kind, own, verb, want }) => {
    const k = KINDS.find((x) => x.kind === kind)!;
    const ns = own ? 'team-a' : 'team-b';
    const api: Client = client(s.url, tokens[role]);
    const tag = `${role}-${verb}-${own ? 'own' : 'other'}`.toLowerCase();
    // the object the verb acts on, written by the bootstrap admin
    const target = k.kind === 'Namespace' ? ns : `t-${tag}`;
    if (verb !== 'create' && verb !== 'list') {
      const put = await s.api('PUT', objectPath(k, ns, target), obj(k, target));
      expect(put.status).toBeLessThan(300);
    }
    const before = verb === 'list' ? undefined : await s.api('GET', objectPath(k, ns, verb === 'create' ? `c-${tag}` : target));
    const eventCount = async () => Number((await s.running.ctx.db.prisma.$queryRawUnsafe<any[]>('SELECT count(*)::int AS n FROM events'))[0].n);
    const eventsBefore = await eventCount();
    let r;
    switch (verb) {
      case 'list': {
        if (k.kind === 'Namespace') {
          r = await api('GET', '/api/v1/namespaces');
          if (r.status === 200 && !mayRead(role, 'Namespace', false)) {
            // a list shows what the caller may read, all of it: team-a once it exists, nothing else
            const all = await s.api('GET', '/api/v1/namespaces');
            const names = (x: Reply) => x.body.items.map((o: any) => o.metadata.name);
            expect(names(r)).toEqual(names(all).filter((n: string) => n === 'team-a'));
          }
          expect(r.status).toBe(role === 'proxy' || role === 'discovery' ? 403 : 200);
          return;
        }
        r = await api('GET', collection(k, ns));
        break;
      }
      case 'get': r = await api('GET', objectPath(k, ns, target)); break;
      case 'create': r = await api('POST', collection(k, ns), k.kind === 'Namespace' ? obj(k, `c-${tag}`) : { ...obj(k, `c-${tag}`), metadata: { name: `c-${tag}`, ...(k.cluster ? {} : { namespace: ns }) } }); break;
      case 'replace': r = await api('PUT', objectPath(k, ns, target), obj(k, target, { changed: 'yes' })); break;
      case 'patch': r = await api('PATCH', objectPath(k, ns, target), { metadata: { labels: { patched: 'yes' } } }); break;
      case 'delete': r = await api('DELETE', objectPath(k, ns, target)); break;
    }
    expect(r.status, JSON.stringify(r.body)).toBe(want);
    if (want === 403) {
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      if (before) {
        const after = await s.api('GET', objectPath(k, ns, verb === 'create' ? `c-${tag}` : target));
        expect(after.status).toBe(before.status);
        expect(after.body?.metadata?.resourceVersion).toBe(before.body?.metadata?.resourceVersion);
      }
      expect(await eventCount()).toBe(eventsBefore);
    }
    if (want === 200 && verb === 'get' && kind === 'Secret') {
      // Secret data only for admins
      expect(r.body.data === undefined).toBe(role !== 'admin');
    }
  });

  it('a forbidden write is 403 whatever its body (authorization before validation)', async () => {
    const dev = client(s.url, tokens.developer);
    const r = await dev('PUT', '/api/v1/namespaces/team-a/gateways/x', { kind: 'Gateway', spec: 'not even an object' });
    expect(r.status).toBe(403);
    const garbage = await dev('PUT', '/api/v1/namespaces/team-b/httproutes/x', '{"broken json');
    expect(garbage.status).toBe(403);
  });

  it('lists show a caller only its namespaces', async () => {
    const r = await client(s.url, tokens.developer)('GET', '/api/v1/httproutes');
    expect(r.status).toBe(200);
    const all = await s.api('GET', '/api/v1/httproutes');
    const names = (items: any[]) => items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(names(all.body.items).some((n) => n.startsWith('team-b/'))).toBe(true);
    // everything in team-a, in the same order, and nothing else
    expect(names(r.body.items)).toEqual(names(all.body.items).filter((n) => n.startsWith('team-a/')));
  });
});

describe('tokens', () => {
  it('are admin-only, unique by name, shown once, and stop working when revoked or expired', async () => {
    expect((await client(s.url, tokens.operator)('GET', '/api/v1/tokens')).status).toBe(403);
    expect((await client(s.url, tokens.developer)('POST', '/api/v1/tokens', { name: 'x', role: 'admin' })).status).toBe(403);
    expect((await s.api('POST', '/api/v1/tokens', { name: 'dev-a', role: 'viewer' })).status).toBe(409);
    expect((await s.api('POST', '/api/v1/tokens', { name: 'bad', role: 'superuser' })).status).toBe(422);
    expect((await s.api('POST', '/api/v1/tokens', { name: 'nsless', role: 'developer' })).status).toBe(422);
    const list = await s.api('GET', '/api/v1/tokens');
    expect(list.body.items.map((t: any) => t.name)).toContain('dev-a');
    expect(JSON.stringify(list.body)).not.toContain(tokens.developer);
    const tmp = await s.api('POST', '/api/v1/tokens', { name: 'temp', role: 'viewer' });
    const temp = client(s.url, tmp.body.token);
    expect((await temp('GET', '/api/v1/gateways')).status).toBe(200);
    expect((await s.api('DELETE', `/api/v1/tokens/${tmp.body.id}`)).status).toBe(200);
    expect((await temp('GET', '/api/v1/gateways')).status).toBe(401);
    const soon = await s.api('POST', '/api/v1/tokens', { name: 'soon', role: 'viewer', expiresAt: new Date(Date.now() + 400).toISOString() });
    const soonApi = client(s.url, soon.body.token);
    expect((await soonApi('GET', '/api/v1/gateways')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 600));
    expect((await soonApi('GET', '/api/v1/gateways')).status).toBe(401);
  });

  it('records the token name as the actor of every event', async () => {
    const dev = client(s.url, tokens.developer);
    expect((await dev('PUT', '/api/v1/namespaces/team-a/httproutes/actor', obj(KINDS[1], 'actor'))).status).toBe(201);
    const h = await s.api('GET', '/api/v1/namespaces/team-a/httproutes/actor/history');
    expect(h.body.items[0].actor).toBe('dev-a');
    // the event is visible to feed readers once no older transaction is still open
    let found: any;
    for (let i = 0; i < 100 && !found; i++) {
      const ev = await s.api('GET', '/api/v1/events?kind=HTTPRoute&namespace=team-a&limit=1000');
      found = ev.body.items.find((e: any) => e.name === 'actor');
      if (!found) await new Promise((r) => setTimeout(r, 20));
    }
    expect(found.actor).toBe('dev-a');
  });
});

describe('no leaks across namespaces', () => {
  it("a developer of team-a watching the events feed sees nothing of team-b", async () => {
    const start = (await s.api('GET', '/api/v1/events?limit=1')).body.lastPosition;
    const w = await sse(`${s.url}/api/v1/events/watch?after=${start}`, { authorization: `Bearer ${tokens.developer}` });
    await s.api('PUT', '/api/v1/namespaces/team-b/httproutes/secret-plan', obj(KINDS[1], 'secret-plan'));
    await s.api('PUT', '/api/v1/namespaces/team-b/services/hidden', obj(KINDS[7], 'hidden'));
    await s.api('PUT', '/api/v1/namespaces/team-a/httproutes/visible', obj(KINDS[1], 'visible'));
    const e = await w.next();
    expect(JSON.parse(e.data).name).toBe('visible');
    await new Promise((r) => setTimeout(r, 300));
    expect(w.events.map((ev) => `${ev.event} ${JSON.parse(ev.data).namespace}/${JSON.parse(ev.data).name}`)).toEqual(['Created team-a/visible']);
    w.close();
    const feed = await client(s.url, tokens.developer)('GET', `/api/v1/events?after=${start}&limit=100`);
    expect(feed.body.items.map((i: any) => i.name)).toEqual(['visible']);
  });
});

describe("the seed's hijack, closed from every side", () => {
  beforeAll(async () => {
    const puts: [string, unknown][] = [
      ['/api/v1/gatewayclasses/sy', { apiVersion: `${GWG}/v1`, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
      ['/api/v1/namespaces/team-a', { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: { 'gateway-access': 'allowed' } } }],
      ['/api/v1/namespaces/infra/gateways/public', { apiVersion: `${GWG}/v1`, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { 'gateway-access': 'allowed' } } } } }] } }],
      ['/api/v1/namespaces/team-a/services/api', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } }],
      ['/api/v1/namespaces/team-a/endpointslices/api-1', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'api' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.7'] }], ports: [{ port: 80 }] }],
      ['/api/v1/namespaces/team-a/httproutes/web', { apiVersion: `${GWG}/v1`, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'public', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/api' } }], backendRefs: [{ name: 'api', port: 80 }] }] } }],
    ];
    for (const [p, b] of puts) expect((await s.api('PUT', p, b)).status).toBeLessThan(300);
  });

  it('writing its own route: written, but not admitted, and no traffic', async () => {
    const devB = client(s.url, tokens.devB);
    const r = await devB('PUT', '/api/v1/namespaces/team-b/httproutes/steal', { apiVersion: `${GWG}/v1`, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'public', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/api/admin' } }], backendRefs: [{ name: 'api', port: 80 }] }] } });
    expect(r.status).toBe(201);
    await reconciled(s);
    const steal = await devB('GET', '/api/v1/namespaces/team-b/httproutes/steal');
    expect(steal.body.status.parents[0].conditions.find((c: any) => c.type === 'Accepted')).toMatchObject({ status: 'False', reason: 'NotAllowedByListeners' });
    const resolved = await s.api('POST', '/api/v1/namespaces/infra/gateways/public/resolve', { path: '/api/admin/users' });
    expect(resolved.body.route).toMatchObject({ namespace: 'team-a', name: 'web' });
    // team-b can resolve too, but sees team-a's route only as a route in another namespace
    const asB = await devB('POST', '/api/v1/namespaces/infra/gateways/public/resolve', { path: '/api/admin/users' });
    expect(asB.status).toBe(200);
    expect(JSON.stringify(asB.body.explanation)).not.toContain('team-a/web');
    expect(asB.body.route.namespace).toBeUndefined();
    expect(JSON.stringify(asB.body)).not.toContain('"web"');
  });

  it('changing the Gateway: 403', async () => {
    const devB = client(s.url, tokens.devB);
    expect((await devB('PATCH', '/api/v1/namespaces/infra/gateways/public', { spec: { listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } })).status).toBe(403);
    expect((await devB('PATCH', '/api/v1/namespaces/team-b', { metadata: { labels: { 'gateway-access': 'allowed' } } })).status).toBe(403);
  });

  it('writing a ReferenceGrant in another namespace: 403', async () => {
    const devB = client(s.url, tokens.devB);
    const grant = { apiVersion: `${GWG}/v1`, kind: 'ReferenceGrant', spec: { from: [{ group: GWG, kind: 'HTTPRoute', namespace: 'team-b' }], to: [{ group: '', kind: 'Service' }] } };
    expect((await devB('PUT', '/api/v1/namespaces/team-a/referencegrants/let-b-in', grant)).status).toBe(403);
    expect((await devB('PUT', '/api/v1/namespaces/infra/referencegrants/let-b-in', grant)).status).toBe(403);
  });

  it("pointing an EndpointSlice of its own at team-a's addresses: 403", async () => {
    const devB = client(s.url, tokens.devB);
    const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'mine' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.7'] }], ports: [{ port: 80 }] };
    expect((await devB('PUT', '/api/v1/namespaces/team-b/endpointslices/mine', slice)).status).toBe(403);
  });

  it("a proxy token reaches its own Gateway's snapshot and nothing else", async () => {
    const proxy = client(s.url, tokens.proxy);
    expect((await proxy('GET', '/api/v1/namespaces/infra/gateways/public/snapshot')).status).toBe(403);
    expect((await proxy('GET', '/api/v1/namespaces/infra/gateways/public')).status).toBe(403);
    expect((await proxy('GET', '/api/v1/httproutes')).status).toBe(403);
    expect((await client(s.url, tokens.viewer)('GET', '/api/v1/namespaces/infra/gateways/public/snapshot')).status).toBe(200);
    expect((await client(s.url, tokens.devB)('GET', '/api/v1/namespaces/infra/gateways/public/snapshot')).status).toBe(403);
  });
});

describe('abuse limits', () => {
  it('answers 429 with Retry-After past the per-token rate, and caps SSE streams per token', async () => {
    const limited = await startTestServer({ rateLimitPerSecond: 5, rateLimitBurst: 5, maxSsePerToken: 2 }, { worker: false });
    try {
      const codes = [];
      for (let i = 0; i < 8; i++) codes.push(await limited.api('GET', '/api/v1/gateways'));
      // the burst of 5 passes; a later one is refused (not necessarily the 6th: a slow run refills)
      expect(codes.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const tooMany = codes.find((r) => r.status === 429);
      expect(tooMany?.status).toBe(429);
      expect(tooMany!.headers.get('content-type')).toContain('application/problem+json');
      expect(tooMany!.headers.get('retry-after')).toBe('1');
      expect(tooMany!.body.detail).toBe('token "admin" is over its request rate of 5/s; retry after 1 s');
      await new Promise((r) => setTimeout(r, 1200));
      const h = { authorization: `Bearer test-admin-token-0123456789` };
      const a = await sse(`${limited.url}/api/v1/events/watch`, h);
      const b = await sse(`${limited.url}/api/v1/events/watch`, h);
      const third = await fetch(`${limited.url}/api/v1/events/watch`, { headers: h });
      expect(third.status).toBe(429);
      a.close();
      b.close();
    } finally {
      await limited.close();
    }
  });
});
