// The reference proxy on real sockets: the API and worker in this process, the proxy as its own
// process with a proxy token, echo backends on loopback that EndpointSlices point at. What the
// table says is what the traffic does: matching, header filters, redirects, weights (an unusable
// backend's share answered 500), swaps, ports bound and released, the last good table kept while
// the API is away, and a graceful stop that lets a request in flight finish.
import http from 'node:http';
import net from 'node:net';
import http2 from 'node:http2';
import tls from 'node:tls';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { ADMIN_TOKEN, client, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { ROOT } from '../support/process';
import { startEchoBackend, type EchoAnswer, type EchoBackend } from '../support/echo-backend';
import { startProxyProcess, type ProxyProcess } from '../support/proxy-process';
import { readFrame, startEchoPod, writeFrame } from '../support/echo-pod';
import { tempDir } from '../support/temp-dir';

const GW = 'gateway.networking.k8s.io/v1';
const run = promisify(execFile);

const OPENSSL = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A self-signed certificate for `host`, made with the openssl command. */
function selfSigned(host: string): { crt: string; key: string } {
  const dir = tempDir('sy-cert-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'crt.pem'), '-days', '1', '-subj', `/CN=${host}`, '-addext', `subjectAltName=DNS:${host}`], { stdio: 'ignore' });
  return { crt: readFileSync(join(dir, 'crt.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
}
// listener ports + OFFSET stay below the ephemeral range (32768 up on Linux) and the ports test services
// pick (20000 up): an outgoing connection holding the port, on this machine or another test's, kept a listener unbound
const OFFSET = 1000 + Math.floor(Math.random() * 10000);

let s: TestServer;
let proxy: ProxyProcess;
const backends: Record<string, EchoBackend> = {};

async function put(path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
}

async function service(name: string): Promise<void> {
  const b = (backends[name] = await startEchoBackend('app', name));
  await put(`/api/v1/namespaces/app/services/${name}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }] } });
  await put(`/api/v1/namespaces/app/endpointslices/${name}-1`, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'http', port: b.port }],
  });
}

function gateway(ports: number[]) {
  return {
    apiVersion: GW, kind: 'Gateway',
    spec: { gatewayClassName: 'sy', listeners: ports.map((port) => ({ name: `http-${port}`, protocol: 'HTTP', port, allowedRoutes: { namespaces: { from: 'All' } } })) },
  };
}

async function route(name: string, rules: unknown[], hostnames?: string[]): Promise<void> {
  await put(`/api/v1/namespaces/app/httproutes/${name}`, { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], ...(hostnames ? { hostnames } : {}), rules } });
}

/** A request through the proxy's listener on `port` (the Gateway's port; the proxy binds it + OFFSET). */
function send(port: number, path: string, init: { host?: string; method?: string; headers?: Record<string, string> } = {}) {
  // node:http rather than fetch: fetch does not let a caller set Host
  return new Promise<{ status: number; headers: Headers; text: string; echo?: EchoAnswer }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: port + OFFSET, path, method: init.method ?? 'GET', agent: false, headers: { host: init.host ?? 'example.com', ...(init.headers ?? {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let echo: EchoAnswer | undefined;
        try {
          echo = JSON.parse(text);
        } catch {
          /* the gateway's own answer */
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode ?? 0, headers, text, echo });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function proxies(): Promise<any> {
  const r = await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/proxies');
  expect(r.status).toBe(200);
  return r.body;
}

async function snapshotVersion(): Promise<number> {
  return (await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot')).body.version;
}

/** Polls `read` until it gives `want` (usable outside a test, in beforeAll). */
async function until<T>(read: () => Promise<T>, want: T, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let got: T | undefined;
  while (Date.now() < deadline) {
    got = await read();
    if (got === want) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what}: still ${JSON.stringify(got)}, not ${JSON.stringify(want)}, after ${timeoutMs} ms\n${proxy?.output().slice(-3000)}`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function readyz(admin = proxy.admin): Promise<any> {
  return (await fetch(`${admin}/readyz`)).json();
}

/** Waits until the proxy serves the Gateway's current snapshot. */
async function proxySynced(): Promise<void> {
  await reconciled(s);
  // the snapshot is read again each time, and once more a moment after they agree: the API may
  // deliver the last recompute's snapshot a little after the worker is done with it
  const agree = async () => {
    const want = await snapshotVersion();
    const got = (await readyz()).gateways.find((g: { gateway: string }) => g.gateway === 'infra/edge')?.version;
    return got === want ? 'the snapshot\'s' : `${got} (the snapshot: ${want})`;
  };
  await until(async () => {
    const first = await agree();
    if (first !== 'the snapshot\'s') return first;
    await new Promise((r) => setTimeout(r, 150));
    return agree();
  }, 'the snapshot\'s', 'the version the proxy serves');
}

beforeAll(async () => {
  s = await startTestServer();
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/gateways/edge', gateway([80]));
  await service('web');
  await service('api');
  await route('web', [
    { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'web', port: 80 }] },
    {
      matches: [{ path: { type: 'PathPrefix', value: '/api' } }],
      filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-team', value: 'a' }], remove: ['x-drop'] } },
        { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'x-served-by', value: 'switchyard' }] } }],
      backendRefs: [{ name: 'api', port: 80 }],
    },
    { matches: [{ path: { type: 'Exact', value: '/old' } }], filters: [{ type: 'RequestRedirect', requestRedirect: { path: { type: 'ReplaceFullPath', replaceFullPath: '/new' }, statusCode: 301 } }] },
  ], ['example.com']);
  await reconciled(s);
  const token = await mintToken(s, { name: 'edge-proxy', role: 'proxy', gateways: ['infra/edge'] });
  proxy = await startProxyProcess(s.url, token, ['--gateway', 'infra/edge', '--port-offset', String(OFFSET), '--id', 'edge-1']);
  await proxySynced();
}, 120_000);

afterAll(async () => {
  await proxy?.stop('SIGKILL');
  await s?.close();
  await Promise.all(Object.values(backends).map((b) => b.close()));
});

describe('the reference proxy', () => {
  it('routes by the table: the longest prefix wins, header filters both ways, 404 for another host', async () => {
    const web = await send(80, '/index.html?x=1');
    expect(web.status).toBe(200);
    expect(web.echo).toMatchObject({ service: 'web', path: '/index.html?x=1', host: 'example.com' });

    const api = await send(80, '/api/users', { headers: { 'x-drop': 'secret', 'x-keep': 'yes' } });
    expect(api.echo).toMatchObject({ service: 'api', path: '/api/users' });
    expect(api.echo!.headers).toMatchObject({ 'x-team': 'a', 'x-keep': 'yes' });
    expect(api.echo!.headers['x-drop']).toBeUndefined();
    expect(api.headers.get('x-served-by')).toBe('switchyard');
    expect(api.headers.get('x-echo-service')).toBe('api');

    const other = await send(80, '/', { host: 'other.example' });
    expect(other.status).toBe(404);
  });

  it('streams request and answer bodies of megabytes both ways, with a length or chunked', async () => {
    const body = Buffer.from('0123456789abcdef'.repeat(256 * 1024)); // 4 MiB
    const post = (chunked: boolean) => new Promise<{ status: number; echo: EchoAnswer }>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1', port: 80 + OFFSET, path: '/upload', method: 'POST', agent: false,
        headers: { host: 'example.com', ...(chunked ? {} : { 'content-length': String(body.length) }) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, echo: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', reject);
      if (!chunked) return void req.end(body);
      // in pieces, so that the body is streamed rather than sent at once
      for (let i = 0; i < body.length; i += 256 * 1024) req.write(body.subarray(i, i + 256 * 1024));
      req.end();
    });
    const sized = await post(false);
    expect(sized.status).toBe(200);
    expect(sized.echo.headers['content-length']).toBe(String(body.length));
    expect(sized.echo.body === body.toString('utf8')).toBe(true);
    const chunked = await post(true);
    expect(chunked.status).toBe(200);
    expect(chunked.echo.headers['transfer-encoding']).toBe('chunked');
    expect(chunked.echo.body === body.toString('utf8')).toBe(true);
  });

  it('answers a redirect itself, with the Location the table gives', async () => {
    const r = await send(80, '/old');
    expect(r.status).toBe(301);
    expect(r.headers.get('location')).toBe('http://example.com/new');
    expect(r.echo).toBeUndefined();
  });

  it('agrees with resolve on every decision it makes', async () => {
    for (const path of ['/', '/api', '/api/x', '/apix', '/old', '/old/']) {
      const said = (await s.api('POST', '/api/v1/namespaces/infra/gateways/edge/resolve', { protocol: 'HTTP', port: 80, hostname: 'example.com', path })).body;
      const got = await send(80, path);
      if (said.forwarded) expect(got.echo?.service, path).toBe(said.backends[said.chosenBackend].name);
      else expect(got.status, path).toBe(said.statusCode);
    }
  });

  it('splits by weight, and answers an unusable backend\'s share with 500 instead of spreading it', async () => {
    await route('split', [{ matches: [{ path: { type: 'PathPrefix', value: '/split' } }], backendRefs: [{ name: 'web', port: 80, weight: 1 }, { name: 'api', port: 80, weight: 1 }, { name: 'missing', port: 80, weight: 2 }] }], ['example.com']);
    await proxySynced();
    const counts: Record<string, number> = {};
    const N = 400;
    for (let i = 0; i < N; i++) {
      const r = await send(80, '/split');
      const k = r.status === 200 ? r.echo!.service : String(r.status);
      counts[k] = (counts[k] ?? 0) + 1;
    }
    // shares 1/4, 1/4, 1/2; with 400 draws each is within 6 standard deviations of its share
    expect(Object.keys(counts).sort()).toEqual(['500', 'api', 'web']);
    const within = (n: number, p: number) => Math.abs(n - N * p) < 6 * Math.sqrt(N * p * (1 - p));
    expect(within(counts.web, 0.25), JSON.stringify(counts)).toBe(true);
    expect(within(counts.api, 0.25), JSON.stringify(counts)).toBe(true);
    expect(within(counts['500'], 0.5), JSON.stringify(counts)).toBe(true);
  });

  it('swaps tables without dropping a request in flight, and binds and releases ports as the Gateway changes', async () => {
    const slow = send(80, '/api/slow?delay=800');
    await new Promise((r) => setTimeout(r, 100));
    await put('/api/v1/namespaces/infra/gateways/edge', gateway([80, 81]));
    await proxySynced();
    expect((await send(81, '/')).echo?.service).toBe('web');
    expect((await slow).echo?.service).toBe('api');

    await put('/api/v1/namespaces/infra/gateways/edge', gateway([81]));
    await proxySynced();
    expect((await send(81, '/api')).echo?.service).toBe('api');
    await expect(send(80, '/')).rejects.toThrow();
  });

  it('reports a snapshot it cannot apply and keeps the last good table', async () => {
    // the listener's port (+ offset) is taken by another process
    const taken = 90;
    const blocker = net.createServer();
    await new Promise<void>((r, j) => blocker.once('error', j).listen(taken + OFFSET, '127.0.0.1', () => r()));
    try {
      await put('/api/v1/namespaces/infra/gateways/edge', gateway([81, taken]));
      await reconciled(s);
      const want = await snapshotVersion();
      await until(async () => (await readyz()).gateways[0].rejectedVersion, want, 'the version the proxy rejected');
      const ready = await readyz();
      expect(ready.gateways[0].error).toMatch(/EADDRINUSE/);
      expect(ready.gateways[0].version).toBeLessThan(want);
      expect((await send(81, '/')).echo?.service).toBe('web');
      await until(async () => (await proxies()).items[0]?.state, 'STALE', 'the state the API shows for the proxy');
      const listed = (await proxies()).items[0];
      expect(listed).toMatchObject({ id: 'edge-1', version: ready.gateways[0].version });
      expect(listed.error).toMatch(new RegExp(`version ${want} not applied: .*EADDRINUSE`));
    } finally {
      await new Promise((r) => blocker.close(r));
      await put('/api/v1/namespaces/infra/gateways/edge', gateway([81]));
      await proxySynced();
    }
  });

  it('reports what it serves: the API lists it SYNCED, and the report is no event in the log', async () => {
    const before = (await s.api('GET', '/api/v1/events?limit=1000')).body.lastPosition;
    await until(async () => (await proxies()).items[0]?.state, 'SYNCED', 'the state the API shows for the proxy');
    const list = await proxies();
    expect(list.items).toEqual([{ id: 'edge-1', version: list.snapshotVersion, hash: expect.stringMatching(/^[0-9a-f]{64}$/), state: 'SYNCED', lastSeen: expect.any(String) }]);
    expect(list.items[0].hash).toBe((await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/snapshot')).body.hash);
    expect((await s.api('GET', '/api/v1/events?limit=1000')).body.lastPosition).toBe(before);

    // not spawnSync: the API answering it runs in this process
    const cli = await run(process.execPath, [join(ROOT, 'bin/switchyard.js'), 'proxy-status', 'edge', '-n', 'infra'], { env: { ...process.env, SWITCHYARD_URL: s.url, SWITCHYARD_TOKEN: ADMIN_TOKEN } });
    expect(cli.stdout).toMatch(/^PROXY\s+VERSION\s+STATE\s+LAST SEEN/);
    expect(cli.stdout).toMatch(new RegExp(`edge-1\\s+${list.snapshotVersion}\\s+SYNCED`));
  });

  it('takes reports only from the Gateway\'s own proxy tokens, and refuses a malformed one', async () => {
    const other = await mintToken(s, { name: 'other-proxy', role: 'proxy', gateways: ['infra/other'] });
    const asOther = client(s.url, other);
    const forbidden = await asOther('PUT', '/api/v1/namespaces/infra/gateways/edge/proxies/fake', { version: 1, hash: null });
    expect(forbidden.status).toBe(403);
    const bad = await s.api('PUT', '/api/v1/namespaces/infra/gateways/edge/proxies/fake', { version: 'one', hash: 'x', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'hash', 'version']);
    expect((await proxies()).items.map((p: { id: string }) => p.id)).toEqual(['edge-1']);
  });

  it('speaks h2c on an HTTP port, with the same decisions', async () => {
    const session = http2.connect(`http://127.0.0.1:${81 + OFFSET}`);
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = session.request({ ':method': 'GET', ':path': '/api/h2', ':authority': 'example.com' });
        let status = 0;
        let body = '';
        req.on('response', (h) => (status = Number(h[':status'])));
        req.setEncoding('utf8');
        req.on('data', (c) => (body += c));
        req.on('end', () => resolve({ status, body }));
        req.on('error', reject);
        req.end();
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ service: 'api', path: '/api/h2', host: 'example.com' });
    } finally {
      session.close();
    }
  });

  it('carries gRPC calls over HTTP/2 to the backend, trailers included, and answers Unimplemented and Unavailable itself', async () => {
    const pod = await startEchoPod({ service: 'grpc', namespace: 'app', name: 'grpc-0', targetPorts: [8080], attempts: new Map() });
    const session = http2.connect(`http://127.0.0.1:${81 + OFFSET}`);
    try {
      await put('/api/v1/namespaces/app/services/grpc', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'grpc', port: 80 }] } });
      await put('/api/v1/namespaces/app/endpointslices/grpc-1', {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'grpc' } },
        addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'grpc', port: pod.ports.get(8080) }],
      });
      await put('/api/v1/namespaces/app/grpcroutes/echo', {
        apiVersion: GW, kind: 'GRPCRoute', spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], hostnames: ['grpc.example.com'], rules: [
          { matches: [{ method: { service: 'echo.Echo', method: 'Say' } }], backendRefs: [{ name: 'grpc', port: 80 }] },
          { matches: [{ method: { service: 'echo.Echo', method: 'Lost' } }], backendRefs: [{ name: 'missing', port: 80 }] },
        ] },
      });
      await proxySynced();
      const call = (method: string) => new Promise<{ status: number; grpc: string | undefined; body: Buffer }>((resolve, reject) => {
        const req = session.request({ ':method': 'POST', ':path': `/echo.Echo/${method}`, ':authority': 'grpc.example.com', 'content-type': 'application/grpc', te: 'trailers' });
        let status = 0;
        let grpc: string | undefined;
        const chunks: Buffer[] = [];
        req.on('response', (h) => {
          status = Number(h[':status']);
          grpc = h['grpc-status'] as string | undefined;
        });
        req.on('trailers', (t) => (grpc = t['grpc-status'] as string | undefined));
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => resolve({ status, grpc, body: Buffer.concat(chunks) }));
        req.on('error', reject);
        req.end(Buffer.alloc(5));
      });
      const ok = await call('Say');
      expect(ok).toMatchObject({ status: 200, grpc: '0' });
      // the pod's answer is a message frame holding its JSON, and it was spoken to in HTTP/2
      expect(JSON.parse(ok.body.subarray(5).toString())).toMatchObject({ service: 'grpc', protocol: 'HTTP/2.0', path: '/echo.Echo/Say' });
      expect(await call('Other')).toMatchObject({ status: 200, grpc: '12' });
      expect(await call('Lost')).toMatchObject({ status: 200, grpc: '14' });
    } finally {
      session.close();
      await pod.close();
    }
  });

  it('forwards a WebSocket upgrade to a kubernetes.io/ws backend, and the connection outlives a swap of the table', async () => {
    const pod = await startEchoPod({ service: 'ws', namespace: 'app', name: 'ws-0', targetPorts: [8080], attempts: new Map() });
    let socket: net.Socket | undefined;
    try {
      await put('/api/v1/namespaces/app/services/ws', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'ws', port: 80, appProtocol: 'kubernetes.io/ws' }] } });
      await put('/api/v1/namespaces/app/endpointslices/ws-1', {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'ws' } },
        addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'ws', port: pod.ports.get(8080) }],
      });
      await route('ws', [{ matches: [{ path: { type: 'PathPrefix', value: '/ws' } }], backendRefs: [{ name: 'ws', port: 80 }] }], ['example.com']);
      await proxySynced();
      socket = net.connect(81 + OFFSET, '127.0.0.1');
      let buf = Buffer.alloc(0);
      const waiters: (() => void)[] = [];
      socket.on('data', (c) => {
        buf = Buffer.concat([buf, c]);
        waiters.splice(0).forEach((w) => w());
      });
      const more = () => new Promise<void>((r, j) => {
        waiters.push(r);
        setTimeout(() => j(new Error(`nothing more came: ${buf.toString('latin1')}`)), 5000);
      });
      await new Promise((r) => socket!.once('connect', r));
      socket.write('GET /ws/chat HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
      while (!buf.includes('\r\n\r\n')) await more();
      const end = buf.indexOf('\r\n\r\n');
      expect(buf.subarray(0, end).toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
      expect(buf.subarray(0, end).toString('latin1')).toMatch(/Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/i);
      buf = buf.subarray(end + 4);
      const echo = async (text: string) => {
        socket!.write(writeFrame(1, Buffer.from(text), true));
        let f = readFrame(buf);
        while (!f) {
          await more();
          f = readFrame(buf);
        }
        buf = buf.subarray(f.length);
        return f.payload.toString();
      };
      expect(await echo('before the swap')).toBe('before the swap');
      expect(pod.log.at(-1)).toMatchObject({ websocket: true, path: '/ws/chat' });
      const before = await snapshotVersion();
      await route('ws', [{ matches: [{ path: { type: 'PathPrefix', value: '/ws' } }], filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-swapped', value: 'yes' }] } }], backendRefs: [{ name: 'ws', port: 80 }] }], ['example.com']);
      await proxySynced();
      expect(await snapshotVersion()).toBeGreaterThan(before);
      expect(await echo('after the swap')).toBe('after the swap');
    } finally {
      socket?.destroy();
      await pod.close();
    }
  });

  it.skipIf(!OPENSSL)(`terminates TLS with the certificate the SNI selects, offers h2 by ALPN, and answers 421 when Host selects another listener${OPENSSL ? '' : ' (skipped: needs the openssl command)'}`, async () => {
    for (const host of ['secure.example.com', 'other.example.com']) {
      const { crt, key } = selfSigned(host);
      await put(`/api/v1/namespaces/infra/secrets/${host.split('.')[0]}-cert`, { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.crt': Buffer.from(crt).toString('base64'), 'tls.key': Buffer.from(key).toString('base64') } });
    }
    const https = (name: string, host: string) => ({ name, protocol: 'HTTPS', port: 443, hostname: host, tls: { mode: 'Terminate', certificateRefs: [{ name: `${host.split('.')[0]}-cert` }] }, allowedRoutes: { namespaces: { from: 'All' } } });
    const gw = gateway([81]);
    await put('/api/v1/namespaces/infra/gateways/edge', { ...gw, spec: { ...gw.spec, listeners: [...gw.spec.listeners, https('secure', 'secure.example.com'), https('other', 'other.example.com')] } });
    await route('secure', [{ backendRefs: [{ name: 'web', port: 80 }] }], ['secure.example.com', 'other.example.com']);
    await proxySynced();

    const tlsGet = (servername: string, host: string, alpn: string[]) => new Promise<{ status: number; body: string; alpn: string | false; subject: string }>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: 443 + OFFSET, servername, ALPNProtocols: alpn, rejectUnauthorized: false }, () => {
        const subject = String(socket.getPeerCertificate().subject?.CN ?? '');
        const proto = socket.alpnProtocol ?? false;
        if (proto === 'h2') {
          const session = http2.connect(`https://${servername}`, { createConnection: () => socket });
          const req = session.request({ ':method': 'GET', ':path': '/tls', ':authority': host });
          let status = 0;
          let body = '';
          req.on('response', (h) => (status = Number(h[':status'])));
          req.setEncoding('utf8');
          req.on('data', (c) => (body += c));
          req.on('end', () => { session.close(); resolve({ status, body, alpn: proto, subject }); });
          req.on('error', reject);
          req.end();
        } else {
          const req = http.request({ createConnection: () => socket, path: '/tls', headers: { host } }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (body += c));
            res.on('end', () => { socket.destroy(); resolve({ status: res.statusCode ?? 0, body, alpn: proto, subject }); });
          });
          req.on('error', reject);
          req.end();
        }
      });
      socket.on('error', reject);
    });

    const h2 = await tlsGet('secure.example.com', 'secure.example.com', ['h2', 'http/1.1']);
    expect(h2).toMatchObject({ status: 200, alpn: 'h2', subject: 'secure.example.com' });
    expect(JSON.parse(h2.body)).toMatchObject({ service: 'web', host: 'secure.example.com' });
    expect(JSON.parse(h2.body).headers['x-forwarded-proto']).toBe('https');

    const h1 = await tlsGet('other.example.com', 'other.example.com', ['http/1.1']);
    expect(h1).toMatchObject({ status: 200, alpn: 'http/1.1', subject: 'other.example.com' });

    const misdirected = await tlsGet('secure.example.com', 'other.example.com', ['http/1.1']);
    expect(misdirected.status).toBe(421);

    await expect(tlsGet('nobody.example.com', 'nobody.example.com', ['http/1.1'])).rejects.toThrow();
  });

  it('is not ready, and answers 503, for a Gateway it has no table of', async () => {
    const token = await mintToken(s, { name: 'ghost-proxy', role: 'proxy', gateways: ['infra/ghost'] });
    const ghost = await startProxyProcess(s.url, token, ['--gateway', 'infra/ghost', '--port-offset', String(OFFSET + 1)]);
    try {
      const r = await fetch(`${ghost.admin}/readyz`);
      expect(r.status).toBe(503);
      expect((await readyz(ghost.admin)).gateways[0]).toMatchObject({ gateway: 'infra/ghost', version: null });
      expect((await fetch(`${ghost.admin}/healthz`)).status).toBe(200);
    } finally {
      expect(await ghost.stop()).toBe(0);
    }
  });

  it('exports its metrics', async () => {
    const text = await (await fetch(`${proxy.admin}/metrics`)).text();
    expect(text).toMatch(/switchyard_proxy_requests_total\{gateway="infra\/edge",listener="http-81",route="HTTPRoute\/app\/web",code="200"\} \d+/);
    expect(text).toMatch(new RegExp(`switchyard_proxy_table_version\\{gateway="infra/edge"\\} ${await snapshotVersion()}`));
    expect(text).toMatch(/switchyard_proxy_apply_errors_total\{gateway="infra\/edge"\} [1-9]/);
  });

  it('keeps serving its last table while the API is away, and stops gracefully on SIGTERM', async () => {
    await s.running.close();
    const r = await send(81, '/api/x');
    expect(r.echo?.service).toBe('api');
    expect((await readyz()).status).toBe('ready');

    const inFlight = send(81, '/api/slow?delay=500');
    await new Promise((r) => setTimeout(r, 100));
    const exit = proxy.stop('SIGTERM');
    expect((await inFlight).echo?.service).toBe('api');
    expect(await exit).toBe(0);
  });
});
