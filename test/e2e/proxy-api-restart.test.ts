// The reference proxy across a restart of the API process under it (same port, same database): it
// keeps serving its table while the API is away, and within 5 s of the API answering again it is back
// on its SSE watch (not long-polling), its error cleared and its proxy-status SYNCED; a change made
// after the restart reaches it over that watch.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { startEchoBackend, type EchoBackend } from '../support/echo-backend';
import { startProxyProcess, type ProxyProcess } from '../support/proxy-process';
import { edgeRoute } from '../support/edge-gateway';

const GW = 'gateway.networking.k8s.io/v1';
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';
const PROXIES = '/api/v1/namespaces/infra/gateways/edge/proxies';

let first: TestServer;
let s: TestServer; // the API now: the first one, then the one started after it on the same port
let proxy: ProxyProcess;
let backend: EchoBackend;
let OFFSET = 0;

async function freeOffset(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port - 80;
}

async function put(path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
}

const route = (name: string, path: string) => put(`/api/v1/namespaces/app/httproutes/${name}`, edgeRoute(path));

function status(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: 80 + OFFSET, path, agent: false, headers: { host: 'example.com' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Served { version: number | null; api: { connected: boolean; mode: string; lastError?: string } }

async function served(): Promise<Served> {
  const r = await (await fetch(`${proxy.admin}/readyz`)).json() as { gateways: (Served & { gateway: string })[] };
  return r.gateways.find((g) => g.gateway === 'infra/edge')!;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${proxy.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the proxy serves the API's current snapshot version. */
async function synced(): Promise<number> {
  await reconciled(s);
  const cur = (await s.api('GET', SNAP)).body as { version: number };
  await until(`the proxy to serve version ${cur.version}`, async () => ((await served()).version === cur.version ? true : undefined));
  return cur.version;
}

/** The state the API shows for this proxy once it is the one wanted. */
const proxyState = (want: string) => until(`proxy-status ${want}`, async () => {
  const r = await s.api('GET', PROXIES);
  const item = (r.body.items as { id: string; state: string }[]).find((i) => i.id === 'restart-1');
  return item?.state === want ? item : undefined;
});

beforeAll(async () => {
  first = s = await startTestServer();
  backend = await startEchoBackend('app', 'web');
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }] } });
  await put('/api/v1/namespaces/app/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }] } });
  await put('/api/v1/namespaces/app/endpointslices/web-1', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'http', port: backend.port }],
  });
  await route('before', '/before');
  await reconciled(s);
  const token = await mintToken(s, { name: 'edge-proxy', role: 'proxy', gateways: ['infra/edge'] });
  OFFSET = await freeOffset();
  proxy = await startProxyProcess(s.url, token, ['--gateway', 'infra/edge', '--port-offset', String(OFFSET), '--id', 'restart-1']);
  await synced();
}, 120_000);

afterAll(async () => {
  await proxy?.stop('SIGKILL');
  if (s !== first) await s?.close();
  await first?.close();
  await backend?.close();
});

describe('the reference proxy across an API restart', () => {
  it('is back on its watch within 5 s of the API answering again, its error cleared, SYNCED, and takes changes over the watch', async () => {
    expect((await served()).api).toEqual({ connected: true, mode: 'watch' });
    const port = first.running.port;
    await first.running.close();
    // away long enough for the feed to fail over and over, as after a real restart
    await until('the proxy to notice the API is away', async () => ((await served()).api.lastError ? true : undefined));
    await new Promise((r) => setTimeout(r, 6000));
    expect(await status('/before')).toBe(200); // the last good table is still served
    expect((await served()).api.connected).toBe(false);

    s = await startTestServer({ port }, { sameDatabaseAs: first });
    await until('the API to answer the snapshot', async () => ((await s.api('GET', SNAP)).status === 200 ? true : undefined));
    const answering = Date.now();
    const back = await until('the proxy back on its watch', async () => {
      const f = await served();
      return f.api.connected && f.api.mode === 'watch' && !f.api.lastError ? f : undefined;
    }, 15_000);
    const after = Date.now() - answering;
    expect(back.api).toEqual({ connected: true, mode: 'watch' });
    expect(after, `back on the watch ${after} ms after the API answered again`).toBeLessThan(5000);
    // the API holds its watch: one snapshot stream open
    const metrics = (await s.api('GET', '/metrics')).text;
    expect(metrics).toMatch(/switchyard_sse_subscribers\{stream="snapshot[^"]*"\} 1\b/);
    await proxyState('SYNCED');

    // a change made after the restart reaches it, and it stays on the watch
    expect(await status('/after')).toBe(404);
    await route('after', '/after');
    const version = await synced();
    expect(await status('/after')).toBe(200);
    expect((await served()).api).toEqual({ connected: true, mode: 'watch' });
    const item = await proxyState('SYNCED');
    expect(item).toMatchObject({ id: 'restart-1', state: 'SYNCED', version });
  }, 120_000);
});
