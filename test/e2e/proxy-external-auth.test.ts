// The ExternalAuth filter through the reference proxy, with real authorization servers on loopback
// (test/support/auth-servers.ts): what an HTTP server is sent (path prefix, the headers the API
// always sends and the allowed ones, nothing else) and what of its allowance reaches the backend; a
// gRPC (Envoy ext_authz v3) server's allowance headers and denial; and the failure modes: a server
// that refuses connections or does not answer in time denies with 403, the backend never asked.
// forwardBody: the servers get the body's first maxSize bytes (HTTP with that Content-Length; gRPC
// in attributes.request.http.body, raw_body when not UTF-8), a longer body truncated, and the
// backend the whole body; a body that does not arrive within 2 s is answered 408.
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { startEchoBackend, type EchoAnswer, type EchoBackend } from '../support/echo-backend';
import { startProxyProcess, type ProxyProcess } from '../support/proxy-process';
import { startGRPCAuthServer, startHTTPAuthServer, type AuthServer, type AuthAsk, type AuthDecision } from '../support/auth-servers';
import { needs } from '../support/database';
import { pickPort } from '../support/ports';

const need = needs({ pg: true, redis: true });
const GW = 'gateway.networking.k8s.io/v1';
const OFFSET = pickPort(1080, 10000) - 80;

let s: TestServer;
let proxy: ProxyProcess;
let web: EchoBackend;
const auth: Record<string, AuthServer> = {};
let closedPort = 0;

const decide = (a: AuthAsk): AuthDecision | 'hang' => {
  if (a.path.includes('/slow')) return 'hang';
  // forwardBody routes: the body decides
  if (/^(\/check)?\/(hb|gb|hb-retry)\//.test(a.path)) {
    return a.body.subarray(0, 9).toString('latin1') === 'let-me-in' ? { allow: true, headers: { 'x-user': 'bob' } } : { allow: false, status: 403, body: 'bad body' };
  }
  if (a.headers.authorization === 'Bearer good' || a.path.endsWith('/open')) return { allow: true, headers: { 'x-user': 'alice', 'x-other': 'no' } };
  return { allow: false, status: 401, body: 'who are you?', headers: { 'www-authenticate': 'Bearer realm="sy"' } };
};

async function put(path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
}

async function service(name: string, port: number, targetPort: number): Promise<void> {
  await put(`/api/v1/namespaces/app/services/${name}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'p', port }] } });
  await put(`/api/v1/namespaces/app/endpointslices/${name}-1`, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'p', port: targetPort }],
  });
}

const rule = (prefix: string, externalAuth: unknown) => ({
  matches: [{ path: { type: 'PathPrefix', value: prefix } }], filters: [{ type: 'ExternalAuth', externalAuth }], backendRefs: [{ name: 'web', port: 80 }],
});

function send(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; echo?: EchoAnswer }>((resolve, reject) => {
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

/** A request with a body: Content-Length, or chunked (in pieces of 1000 bytes, each flushed). */
function sendBody(path: string, body: Buffer, chunked = false) {
  return new Promise<{ status: number; text: string; echo?: EchoAnswer }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: 80 + OFFSET, path, method: 'POST', agent: false,
      headers: { host: 'example.com', ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let echo: EchoAnswer | undefined;
        try { echo = JSON.parse(text); } catch { /* not the backend's */ }
        resolve({ status: res.statusCode ?? 0, text, echo });
      });
    });
    req.on('error', reject);
    if (!chunked) return void req.end(body);
    for (let i = 0; i < body.length; i += 1000) req.write(body.subarray(i, i + 1000));
    req.end();
  });
}

describe.skipIf(need.skip)(`the ExternalAuth filter through the reference proxy${need.skip ? ` (skipped: ${need.why})` : ''}`, () => {
  beforeAll(async () => {
    s = await startTestServer();
    web = await startEchoBackend('app', 'web');
    auth.http = await startHTTPAuthServer(decide);
    auth.grpc = await startGRPCAuthServer((a) => decide(a) as AuthDecision);
    // a port nothing listens on: bound, then closed
    closedPort = await new Promise<number>((r) => { const x = net.createServer().listen(0, '127.0.0.1', () => { const p = (x.address() as net.AddressInfo).port; x.close(() => r(p)); }); });
    await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
    await put('/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway',
      spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }] } });
    await service('web', 80, web.port);
    await service('auth-http', 8000, auth.http.port);
    await service('auth-grpc', 9001, auth.grpc.port);
    await service('auth-down', 8000, closedPort);
    await put(`/api/v1/namespaces/app/httproutes/guarded`, { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [
      rule('/h', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: { path: '/check', allowedHeaders: ['x-tenant'], allowedResponseHeaders: ['x-user'] } }),
      rule('/g', { protocol: 'GRPC', backendRef: { name: 'auth-grpc', port: 9001 }, grpc: {} }),
      rule('/down', { protocol: 'HTTP', backendRef: { name: 'auth-down', port: 8000 }, http: {} }),
      rule('/slow', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: {} }),
      rule('/hb', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: { path: '/check' }, forwardBody: { maxSize: 16 } }),
      rule('/gb', { protocol: 'GRPC', backendRef: { name: 'auth-grpc', port: 9001 }, grpc: {}, forwardBody: { maxSize: 16 } }),
      { ...rule('/hb-retry', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: {}, forwardBody: { maxSize: 16 } }), retry: { codes: [500], attempts: 1 } },
    ] } });
    await reconciled(s);
    const token = await mintToken(s, { name: 'edge-proxy', role: 'proxy', gateways: ['infra/edge'] });
    proxy = await startProxyProcess(s.url, token, ['--gateway', 'infra/edge', '--port-offset', String(OFFSET), '--id', 'auth-1']);
    const want = (await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot')).body.version;
    const deadline = Date.now() + 20_000;
    while ((await (await fetch(`${proxy.admin}/readyz`)).json() as any).gateways?.[0]?.version !== want) {
      if (Date.now() > deadline) throw new Error(`the proxy did not reach version ${want}\n${proxy.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop('SIGKILL');
    await s?.close();
    await Promise.all([web?.close(), ...Object.values(auth).map((a) => a.close())]);
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
  });

  it('HTTP: a denial\'s status, headers and body go to the client and the backend is not asked', async () => {
    const before = web.count();
    const r = await send('/h/items');
    expect(r.status).toBe(401);
    expect(r.text).toBe('who are you?');
    expect(r.headers['www-authenticate']).toBe('Bearer realm="sy"');
    expect(web.count()).toBe(before);
  });

  it('gRPC (Envoy ext_authz v3): the server gets every header; an allowance\'s headers reach the backend, a denial goes to the client', async () => {
    const ok = await send('/g/open', { 'x-any': 'y' });
    expect(ok.status).toBe(200);
    expect(auth.grpc.asked.at(-1)!.headers).toMatchObject({ 'x-any': 'y' });
    expect(ok.echo?.headers['x-user']).toBe('alice');
    const no = await send('/g/closed');
    expect(no.status).toBe(401);
    expect(no.text).toBe('who are you?');
  });

  it('a server that refuses connections, or does not answer in time, denies with 403', async () => {
    const before = web.count();
    expect((await send('/down/x', { authorization: 'Bearer good' })).status).toBe(403);
    expect((await send('/slow/x', { authorization: 'Bearer good' })).status).toBe(403);
    expect(web.count()).toBe(before);
  });

  it('resolve names the server a request is first sent to', async () => {
    const r = await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { protocol: 'HTTP', port: 80, hostname: 'example.com', path: '/g/x' });
    expect(r.status).toBe(200);
    expect(r.body.externalAuth).toMatchObject({ protocol: 'GRPC', backend: { namespace: 'app', name: 'auth-grpc' } });
  });

  it('forwardBody, HTTP: a body within maxSize goes to the server whole, with its Content-Length, and to the backend', async () => {
    const body = Buffer.from('let-me-in:tiny');
    const r = await sendBody('/hb/items', body);
    expect(r.status).toBe(200);
    const asked = auth.http.asked.at(-1)!;
    expect(asked.path).toBe('/check/hb/items');
    expect(asked.method).toBe('POST');
    expect(asked.body.equals(body)).toBe(true);
    expect(asked.headers['content-length']).toBe(String(body.length));
    expect(r.echo?.body).toBe(body.toString());
    expect(r.echo?.headers['x-user']).toBe('bob');
  });

  it('forwardBody, HTTP: a longer (chunked) body is sent truncated to maxSize; the backend gets all of it', async () => {
    const body = Buffer.from(`let-me-in:${'0123456789'.repeat(20_000)}`);
    const r = await sendBody('/hb/big', body, true);
    expect(r.status).toBe(200);
    const asked = auth.http.asked.at(-1)!;
    expect(asked.body.toString()).toBe('let-me-in:012345');
    expect(asked.headers['content-length']).toBe('16');
    expect(r.echo?.body.length).toBe(body.length);
    expect(r.echo?.body).toBe(body.toString());
  });

  it('forwardBody, HTTP: a denial decided on the body goes to the client and the backend is not asked', async () => {
    const before = web.count();
    const r = await sendBody('/hb/items', Buffer.from('not-me:' + 'x'.repeat(5000)));
    expect(r.status).toBe(403);
    expect(r.text).toBe('bad body');
    expect(web.count()).toBe(before);
  });

  it('forwardBody, gRPC: the body in attributes.request.http.body (truncated past maxSize, x-envoy-auth-partial-body saying so); not UTF-8: raw_body', async () => {
    const small = await sendBody('/gb/a', Buffer.from('let-me-in:ok'));
    expect(small.status).toBe(200);
    let asked = auth.grpc.asked.at(-1)!;
    expect(asked.bodyField).toBe('body');
    expect(asked.body.toString()).toBe('let-me-in:ok');
    expect(asked.headers['x-envoy-auth-partial-body']).toBe('false');
    expect(asked.size).toBe('12');
    expect(small.echo?.body).toBe('let-me-in:ok');

    const big = Buffer.from(`let-me-in:${'z'.repeat(100_000)}`);
    const r = await sendBody('/gb/b', big, true);
    expect(r.status).toBe(200);
    asked = auth.grpc.asked.at(-1)!;
    expect(asked.body.toString()).toBe('let-me-in:zzzzzz');
    expect(asked.headers['x-envoy-auth-partial-body']).toBe('true');
    expect(r.echo?.body.length).toBe(big.length);

    const binary = Buffer.concat([Buffer.from('let-me-in'), Buffer.from([0xff, 0xfe, 0x00, 0x80])]);
    const b = await sendBody('/gb/c', binary);
    expect(b.status).toBe(200);
    asked = auth.grpc.asked.at(-1)!;
    expect(asked.bodyField).toBe('raw_body');
    expect(asked.body.equals(binary)).toBe(true);
  });

  it('forwardBody: a body that does not arrive within 2 s is answered 408, the server and the backend not asked; a client gone asks nobody', async () => {
    const asked = auth.http.asked.length;
    const before = web.count();
    const started = Date.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: 80 + OFFSET, path: '/hb/slow-body', method: 'POST', agent: false, headers: { host: 'example.com', 'content-length': '100' } },
        (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.write('let-me-in');
    });
    expect(status).toBe(408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    // a client that goes away while its body is being read
    await new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: 80 + OFFSET, path: '/hb/gone', method: 'POST', agent: false, headers: { host: 'example.com', 'content-length': '100' } });
      req.on('error', () => resolve());
      req.write('let-me-in', () => setTimeout(() => { req.destroy(); resolve(); }, 100));
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(auth.http.asked.length).toBe(asked);
    expect(web.count()).toBe(before);
    // and the proxy goes on serving
    expect((await sendBody('/hb/after', Buffer.from('let-me-in'))).status).toBe(200);
  });

  it('forwardBody: resolve tells how many bytes of the body the server is sent; a negative maxSize is refused naming the field', async () => {
    const r = await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { protocol: 'HTTP', port: 80, hostname: 'example.com', path: '/gb/x', method: 'POST' });
    expect(r.body.externalAuth).toMatchObject({ protocol: 'GRPC', forwardBodyMaxSize: 16 });
    const plain = await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { protocol: 'HTTP', port: 80, hostname: 'example.com', path: '/g/x' });
    expect(plain.body.externalAuth.forwardBodyMaxSize).toBeUndefined();
    const bad = await s.api('PUT', '/api/v1/namespaces/app/httproutes/bad-body', { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [
      rule('/bad', { protocol: 'HTTP', backendRef: { name: 'auth-http', port: 8000 }, http: {}, forwardBody: { maxSize: -1 } }),
    ] } });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    expect(JSON.stringify(bad.body)).toContain('forwardBody.maxSize');
  });

  it('forwardBody with a retry: a long body read past maxSize is kept whole for the second try', async () => {
    const before = web.count();
    const body = Buffer.from(`let-me-in:${'r'.repeat(50_000)}`);
    const r = await sendBody('/hb-retry/x?status=500', body, true);
    expect(r.status).toBe(500);
    expect(web.count() - before).toBe(2);
    expect(r.echo?.body).toBe(body.toString());
    expect(auth.http.asked.at(-1)!.body.toString()).toBe('let-me-in:rrrrrr');
  });

  it('forwardBody over HTTP/2 (h2c): truncated for the server, whole for the backend; a body that stalls is answered 408', async () => {
    const client = http2.connect(`http://127.0.0.1:${80 + OFFSET}`);
    const sessionErrors: string[] = [];
    client.on('error', (e: NodeJS.ErrnoException) => sessionErrors.push(e.code ?? e.message));
    try {
      const ask = (path: string, body: Buffer | undefined, stall = false) => new Promise<{ status: number; text: string }>((resolve, reject) => {
        const st = client.request({ ':method': 'POST', ':path': path, ':authority': 'example.com' }, { endStream: false });
        const chunks: Buffer[] = [];
        let status = 0;
        st.on('response', (h) => { status = Number(h[':status']); });
        st.on('data', (c: Buffer) => chunks.push(c));
        st.on('end', () => {
          // a stalled body is given up once answered
          if (stall) st.close(http2.constants.NGHTTP2_CANCEL);
          resolve({ status, text: Buffer.concat(chunks).toString('utf8') });
        });
        st.on('error', reject);
        if (stall) return void st.write('let-me-in');
        for (let i = 0; i < body!.length; i += 1000) st.write(body!.subarray(i, i + 1000));
        st.end();
      });
      const body = Buffer.from(`let-me-in:${'h'.repeat(60_000)}`);
      const r = await ask('/hb/h2', body);
      expect(r.status).toBe(200);
      expect(auth.http.asked.at(-1)!.body.toString()).toBe('let-me-in:hhhhhh');
      expect((JSON.parse(r.text) as EchoAnswer).body).toBe(body.toString());
      const slow = await ask('/hb/h2-stall', undefined, true);
      expect(slow.status).toBe(408);
      // the connection stays usable for the next request
      expect((await ask('/hb/h2-after', Buffer.from('let-me-in'))).status).toBe(200);
      expect(sessionErrors).toEqual([]);
    } finally {
      client.close();
    }
  });
});
