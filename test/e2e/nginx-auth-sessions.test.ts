// ExternalAuth and cookie session persistence through nginx programmed by `switchyard nginx`, as
// test/e2e/proxy-external-auth.test.ts checks them through the reference proxy: real authorization
// servers on loopback (HTTP, and Envoy ext_authz gRPC through the agent's bridge), what a server is
// sent and what of its allowance reaches the backend, a denial's status, headers and body, the
// failure modes (refused connection, no answer in time: 403; a Service that does not exist: 500),
// and sessions: the cookie the reference proxy writes (src/core/session/cookie.ts), kept on one
// backend and endpoint while presented, a new session for a cookie that names nothing usable, and
// resolve reading nginx's cookie as the proxy's; forwardBody: the server gets the body's first
// maxSize bytes (in nginx's memory, or read from its temporary file for a long body), the backend
// all of it. Real API (with its worker), real nginx, real sockets.
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { startEchoBackend, type EchoAnswer, type EchoBackend } from '../support/echo-backend';
import { startGRPCAuthServer, startHTTPAuthServer, type AuthServer, type AuthAsk, type AuthDecision } from '../support/auth-servers';
import { needs } from '../support/database';
import { NGINX } from '../support/nginx';
import { pickPort } from '../support/ports';
import { startNginxAgent, type RunningNginxAgent } from '../../src/nginx-agent/agent';
import { decodeSession, encodeSession } from '../../src/core/session/cookie';

const needDb = needs({ pg: true, redis: true });
const need = needDb.skip ? needDb : NGINX.available ? needDb : { skip: true, why: NGINX.why };
const GW = 'gateway.networking.k8s.io/v1';
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';
const OFFSET = pickPort(1080, 10000) - 80;

let s: TestServer;
let agent: RunningNginxAgent;
let prefix = '';
let web: EchoBackend;
const pool: EchoBackend[] = [];
let other: EchoBackend;
const auth: Record<string, AuthServer> = {};
let closedPort = 0;

const decide = (a: AuthAsk): AuthDecision | 'hang' => {
  if (a.path.includes('/slow')) return 'hang';
  // forwardBody routes: the body decides
  if (/^(\/check)?\/(hb|gb)\//.test(a.path)) {
    return a.body.subarray(0, 9).toString('latin1') === 'let-me-in' ? { allow: true, headers: { 'x-user': 'bob' } } : { allow: false, status: 403, body: 'bad body' };
  }
  if (a.headers.authorization === 'Bearer good' || a.path.endsWith('/open')) return { allow: true, headers: { 'x-user': 'alice', 'x-other': 'no' } };
  return { allow: false, status: 401, body: 'who are you?', headers: { 'www-authenticate': 'Bearer realm="sy"' } };
};

async function put(path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
}

/** A Service of port `port` whose endpoints are these loopback ports (a slice each). */
async function service(name: string, port: number, targetPorts: number[]): Promise<void> {
  await put(`/api/v1/namespaces/app/services/${name}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'p', port }] } });
  for (const [i, target] of targetPorts.entries()) {
    await put(`/api/v1/namespaces/app/endpointslices/${name}-${i}`, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'p', port: target }],
    });
  }
}

const rule = (prefix: string, externalAuth: unknown) => ({
  matches: [{ path: { type: 'PathPrefix', value: prefix } }], filters: [{ type: 'ExternalAuth', externalAuth }], backendRefs: [{ name: 'web', port: 80 }],
});

interface Answer { status: number; headers: http.IncomingHttpHeaders; text: string; echo?: EchoAnswer }

function send(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: 80 + OFFSET, path, agent: false, headers: { host: 'example.com', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let echo: EchoAnswer | undefined;
        try { echo = JSON.parse(text); } catch { /* the gateway's or the auth server's own answer */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, echo });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request with a body: Content-Length, or chunked (in pieces of 1000 bytes). */
function sendBody(path: string, body: Buffer, chunked = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: 80 + OFFSET, path, method: 'POST', agent: false,
      headers: { host: 'example.com', ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let echo: EchoAnswer | undefined;
        try { echo = JSON.parse(text); } catch { /* not the backend's */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, echo });
      });
    });
    req.on('error', reject);
    if (!chunked) return void req.end(body);
    for (let i = 0; i < body.length; i += 1000) req.write(body.subarray(i, i + 1000));
    req.end();
  });
}

/** The session cookie of an answer: its name=value pair, its value decoded, its attributes. */
function sessionOf(a: Answer, name: string) {
  const line = ([] as string[]).concat(a.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
  if (!line) return undefined;
  const [pair, ...attrs] = line.split(';').map((x) => x.trim());
  return { pair, value: decodeSession(pair.slice(name.length + 1)), attrs };
}

/** Which backend instance answered (the pool's instances are endpoints of one Service). */
const counts = () => [...pool, other].map((b) => b.count());
function answeredBy(before: number[]): number {
  const after = counts();
  const moved = after.map((n, i) => n - before[i]);
  expect(moved.reduce((a, b) => a + b, 0)).toBe(1);
  return moved.indexOf(1);
}

describe.skipIf(need.skip)(`ExternalAuth and cookie sessions through nginx${need.skip ? ` (skipped: ${need.why})` : ''}`, () => {
  beforeAll(async () => {
    s = await startTestServer();
    web = await startEchoBackend('app', 'web');
    for (let i = 0; i < 3; i++) pool.push(await startEchoBackend('app', 'pool'));
    other = await startEchoBackend('app', 'other');
    auth.http = await startHTTPAuthServer(decide);
    auth.grpc = await startGRPCAuthServer((a) => decide(a) as AuthDecision);
    // a port nothing listens on: bound, then closed
    closedPort = await new Promise<number>((r) => { const x = net.createServer().listen(0, '127.0.0.1', () => { const p = (x.address() as net.AddressInfo).port; x.close(() => r(p)); }); });
    await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
    await put('/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway',
      spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }] } });
    await service('web', 80, [web.port]);
    await service('pool', 80, pool.map((p) => p.port));
    await service('other', 80, [other.port]);
    await service('auth-http', 8000, [auth.http.port]);
    await service('auth-grpc', 9001, [auth.grpc.port]);
    await service('auth-down', 8000, [closedPort]);
    await put('/api/v1/namespaces/app/httproutes/guarded', { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [
      rule('/h', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: { path: '/check', allowedHeaders: ['x-tenant'], allowedResponseHeaders: ['x-user'] } }),
      rule('/g', { protocol: 'GRPC', backendRef: { name: 'auth-grpc', port: 9001 }, grpc: {} }),
      rule('/down', { protocol: 'HTTP', backendRef: { name: 'auth-down', port: 8000 }, http: {} }),
      rule('/slow', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: {} }),
      rule('/missing', { protocol: 'HTTP', backendRef: { name: 'no-such-auth', port: 8000 }, http: {} }),
      rule('/hb', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: { path: '/check', allowedResponseHeaders: ['x-user'] }, forwardBody: { maxSize: 16 } }),
      rule('/gb', { protocol: 'GRPC', backendRef: { name: 'auth-grpc', port: 9001 }, grpc: {}, forwardBody: { maxSize: 16 } }),
    ] } });
    await put('/api/v1/namespaces/app/httproutes/sticky', { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [
      { matches: [{ path: { type: 'PathPrefix', value: '/s' } }], sessionPersistence: { type: 'Cookie', cookie: { name: 'sid' } }, backendRefs: [{ name: 'pool', port: 80 }] },
      { matches: [{ path: { type: 'PathPrefix', value: '/w' } }], sessionPersistence: { type: 'Cookie', absoluteTimeout: '1h', cookie: { name: 'wid', lifetimeType: 'Permanent' } },
        backendRefs: [{ name: 'pool', port: 80, weight: 1 }, { name: 'other', port: 80, weight: 1 }] },
    ] } });
    await reconciled(s);
    const token = await mintToken(s, { name: 'edge-nginx', role: 'proxy', gateways: ['infra/edge'] });
    prefix = mkdtempSync(join(tmpdir(), 'sy-nginx-auth-'));
    agent = await startNginxAgent({
      url: s.url, token, gateways: ['infra/edge'], portOffset: OFFSET, adminPort: 0, host: '127.0.0.1', id: 'nginx-auth', prefix,
      workerProcesses: '1', modulesDir: NGINX.modulesDir, nginxBin: NGINX.bin, logLevel: 'silent', reloadTimeoutMs: 5000,
    });
    const want = (await s.api('GET', SNAP)).body.version;
    const deadline = Date.now() + 20_000;
    while (agent.tables.get('infra/edge')?.served?.version !== want) {
      if (Date.now() > deadline) throw new Error(`nginx serves ${agent.tables.get('infra/edge')?.served?.version}, not ${want}: ${agent.tables.get('infra/edge')?.rejected?.error}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    await s?.close();
    await Promise.all([web?.close(), other?.close(), ...pool.map((p) => p.close()), ...Object.values(auth).map((a) => a.close())]);
    if (prefix) rmSync(prefix, { recursive: true, force: true });
  });

  it('HTTP: the server gets the path under its prefix with Host, Authorization and the allowed headers only; its allowed answer headers reach the backend', async () => {
    const r = await send('/h/items?x=1', { authorization: 'Bearer good', 'x-tenant': 't1', 'x-secret': 's' });
    expect(r.status).toBe(200);
    const asked = auth.http.asked.at(-1)!;
    expect(asked.path).toBe('/check/h/items?x=1');
    expect(asked.headers).toMatchObject({ host: 'example.com', authorization: 'Bearer good', 'x-tenant': 't1', 'content-length': '0' });
    expect(asked.headers['x-secret']).toBeUndefined();
    expect(r.echo?.headers['x-user']).toBe('alice');
    expect(r.echo?.headers['x-other']).toBeUndefined();
    // the client's own headers still reach the backend, once
    expect(r.echo?.headers['x-secret']).toBe('s');
    expect(r.echo?.host).toBe('example.com');
  });

  it('an allowance\'s header replaces the client\'s header of that name', async () => {
    const r = await send('/h/items', { authorization: 'Bearer good', 'x-user': 'mallory' });
    expect(r.status).toBe(200);
    expect(r.echo?.headers['x-user']).toBe('alice');
  });

  it('HTTP: a denial\'s status, headers and body go to the client and the backend is not asked', async () => {
    const before = web.count();
    const r = await send('/h/items');
    expect(r.status).toBe(401);
    expect(r.text).toBe('who are you?');
    expect(r.headers['www-authenticate']).toBe('Bearer realm="sy"');
    expect(web.count()).toBe(before);
  });

  it('gRPC (Envoy ext_authz v3, through the agent\'s bridge): the server gets every header; an allowance\'s headers reach the backend, a denial goes to the client', async () => {
    const ok = await send('/g/open', { 'x-any': 'y' });
    expect(ok.status).toBe(200);
    expect(auth.grpc.asked.at(-1)!.headers).toMatchObject({ 'x-any': 'y' });
    expect(ok.echo?.headers['x-user']).toBe('alice');
    expect(ok.echo?.headers['x-other']).toBe('no');
    const no = await send('/g/closed');
    expect(no.status).toBe(401);
    expect(no.text).toBe('who are you?');
    expect(no.headers['www-authenticate']).toBe('Bearer realm="sy"');
  });

  it('a server that refuses connections, or does not answer in time, denies with 403; a server that does not exist answers 500; the backend is never asked', async () => {
    const before = web.count();
    expect((await send('/down/x', { authorization: 'Bearer good' })).status).toBe(403);
    const t0 = Date.now();
    expect((await send('/slow/x', { authorization: 'Bearer good' })).status).toBe(403);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await send('/missing/x', { authorization: 'Bearer good' })).status).toBe(500);
    expect(web.count()).toBe(before);
  });

  it('a session begins with the reference proxy\'s cookie and keeps its backend and endpoint while the client presents it', async () => {
    let before = counts();
    const first = await send('/s/a');
    expect(first.status).toBe(200);
    const instance = answeredBy(before);
    const c = sessionOf(first, 'sid')!;
    expect(c, JSON.stringify(first.headers['set-cookie'])).toBeDefined();
    expect(c.attrs).toEqual(['Path=/', 'HttpOnly']);
    expect(c.value).toMatchObject({ backend: 'app/pool:80', endpoint: `127.0.0.1:${pool[instance].port}` });
    for (let i = 0; i < 12; i++) {
      before = counts();
      const r = await send('/s/a', { cookie: `other=1; ${c.pair}` });
      expect(r.status).toBe(200);
      expect(answeredBy(before)).toBe(instance);
      expect(sessionOf(r, 'sid')!.value).toMatchObject({ backend: 'app/pool:80', endpoint: c.value!.endpoint, started: c.value!.started });
    }
    // without the cookie, requests spread over the endpoints
    const seen = new Set<number>();
    for (let i = 0; i < 30; i++) {
      before = counts();
      await send('/s/a');
      seen.add(answeredBy(before));
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('resolve reads nginx\'s cookie as the reference proxy\'s: the same backend, the session resumed', async () => {
    const first = await send('/w/x');
    const c = sessionOf(first, 'wid')!;
    expect(c.attrs).toContain('HttpOnly');
    expect(c.attrs.find((a) => a.startsWith('Max-Age='))).toMatch(/^Max-Age=(3600|359\d)$/);
    const r = await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { protocol: 'HTTP', port: 80, hostname: 'example.com', path: '/w/x', headers: { cookie: c.pair } });
    expect(r.status).toBe(200);
    expect(r.body.session).toMatchObject({ cookieName: 'wid', resumed: true });
    const chosen = r.body.backends[r.body.chosenBackend];
    expect(`${chosen.namespace}/${chosen.name}:${chosen.port}`).toBe(c.value!.backend);
    // weights apply to new sessions only: every follow-up stays on the session's backend
    for (let i = 0; i < 10; i++) {
      const x = await send('/w/x', { cookie: c.pair });
      expect(x.echo?.service).toBe(c.value!.backend === 'app/other:80' ? 'other' : 'pool');
    }
  });

  it('a cookie that names nothing usable begins a new session: a backend the rule lacks, an endpoint nginx no longer lists, a session past its absolute timeout, garbage', async () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = [
      encodeSession({ backend: 'app/web:80', endpoint: `127.0.0.1:${web.port}`, started: now, used: now }),
      encodeSession({ backend: 'app/pool:80', endpoint: `127.0.0.1:${closedPort}`, started: now - 5, used: now }),
      encodeSession({ backend: 'app/pool:80', endpoint: `127.0.0.1:${pool[0].port}`, started: now - 7200, used: now }),
      'not-a-session',
    ];
    for (const v of forged) {
      const before = web.count();
      const r = await send('/w/x', { cookie: `wid=${v}` });
      expect(r.status, v).toBe(200);
      expect(web.count()).toBe(before);
      const c = sessionOf(r, 'wid')!;
      expect(['app/pool:80', 'app/other:80']).toContain(c.value!.backend);
      expect(c.value!.started).toBeGreaterThanOrEqual(now);
    }
  });

  // last: it takes the bridge away
  it('forwardBody, HTTP: a short body goes to the server whole with its Content-Length; a long chunked one (in nginx\'s temporary file) truncated to maxSize; the backend gets all of it', async () => {
    const small = Buffer.from('let-me-in:tiny');
    const a = await sendBody('/hb/items', small);
    expect(a.status).toBe(200);
    let asked = auth.http.asked.at(-1)!;
    expect(asked.path).toBe('/check/hb/items');
    expect(asked.body.equals(small)).toBe(true);
    expect(asked.headers['content-length']).toBe(String(small.length));
    expect(a.echo?.body).toBe(small.toString());
    expect(a.echo?.headers['x-user']).toBe('bob');

    const big = Buffer.from(`let-me-in:${'0123456789'.repeat(20_000)}`);
    const b = await sendBody('/hb/big', big, true);
    expect(b.status).toBe(200);
    asked = auth.http.asked.at(-1)!;
    expect(asked.body.toString()).toBe('let-me-in:012345');
    expect(asked.headers['content-length']).toBe('16');
    expect(b.echo?.body).toBe(big.toString());

    const before = web.count();
    const no = await sendBody('/hb/items', Buffer.from('not-me:' + 'x'.repeat(5000)));
    expect(no.status).toBe(403);
    expect(no.text).toBe('bad body');
    expect(web.count()).toBe(before);
  });

  it('forwardBody, gRPC (through the bridge): the body in attributes.request.http.body, truncated past maxSize with x-envoy-auth-partial-body; not UTF-8: raw_body', async () => {
    const small = await sendBody('/gb/a', Buffer.from('let-me-in:ok'));
    expect(small.status).toBe(200);
    let asked = auth.grpc.asked.at(-1)!;
    expect(asked.bodyField).toBe('body');
    expect(asked.body.toString()).toBe('let-me-in:ok');
    expect(asked.headers['x-envoy-auth-partial-body']).toBe('false');
    expect(small.echo?.body).toBe('let-me-in:ok');

    const big = Buffer.from(`let-me-in:${'z'.repeat(100_000)}`);
    const r = await sendBody('/gb/b', big);
    expect(r.status).toBe(200);
    asked = auth.grpc.asked.at(-1)!;
    expect(asked.body.toString()).toBe('let-me-in:zzzzzz');
    expect(asked.headers['x-envoy-auth-partial-body']).toBe('true');
    expect(asked.size).toBe(String(big.length));
    expect(r.echo?.body.length).toBe(big.length);

    const binary = Buffer.concat([Buffer.from('let-me-in'), Buffer.from([0xff, 0xfe, 0x00, 0x80])]);
    const c = await sendBody('/gb/c', binary);
    expect(c.status).toBe(200);
    asked = auth.grpc.asked.at(-1)!;
    expect(asked.bodyField).toBe('raw_body');
    expect(asked.body.equals(binary)).toBe(true);
  });

  it('without the agent\'s bridge, a rule with ExternalAuth is denied (403), never served unauthenticated', async () => {
    rmSync(join(prefix, 'run', 'auth.sock'), { force: true });
    const before = web.count();
    for (const path of ['/h/items', '/g/open']) {
      const r = await send(path, { authorization: 'Bearer good' });
      expect(r.status, path).toBe(403);
    }
    expect(web.count()).toBe(before);
    // a rule without the filter is served as before
    expect((await send('/s/a')).status).toBe(200);
  });
});
