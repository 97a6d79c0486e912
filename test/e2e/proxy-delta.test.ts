// The reference proxy on deltas: it watches with ?delta=true through a relay that sees (and, when
// told, spoils) what the API sends. Changes reach its traffic as deltas, with no whole snapshot
// fetched; a delta whose hash does not match the table it rebuilds is dropped for a fetch of the
// whole snapshot, after which it serves the current version and hash.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { startEchoBackend, type EchoBackend } from '../support/echo-backend';
import { startProxyProcess, type ProxyProcess } from '../support/proxy-process';

const GW = 'gateway.networking.k8s.io/v1';
/** The proxy binds the listener's port + OFFSET: one the system just handed out, so not one another test holds. */
let OFFSET = 0;
async function freeOffset(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port - 80;
}
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';

let s: TestServer;
let proxy: ProxyProcess;
let backend: EchoBackend;
let relay: http.Server;
let relayUrl: string;
/** what the proxy asked the API for, and the SSE events that went back to it */
const requests: string[] = [];
const events: { event: string; version: number }[] = [];
let spoilNext = 0;

/** Relays to the API; the next `spoilNext` delta events get a hash that nothing hashes to. */
function startRelay(target: string): Promise<void> {
  const t = new URL(target);
  relay = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const up = http.request({ host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      if (!(ur.headers['content-type'] ?? '').startsWith('text/event-stream')) return void ur.pipe(res);
      res.flushHeaders();
      let buf = '';
      ur.setEncoding('utf8');
      ur.on('data', (chunk: string) => {
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          let block = buf.slice(0, i + 2);
          buf = buf.slice(i + 2);
          const event = /^event: (\w+)$/m.exec(block)?.[1];
          const id = /^id: (\d+)$/m.exec(block)?.[1];
          if (event && id) events.push({ event, version: Number(id) });
          if (event === 'delta' && spoilNext > 0) {
            spoilNext--;
            block = block.replace(/"hash":"[0-9a-f]{64}"/, `"hash":"${'0'.repeat(64)}"`);
          }
          res.write(block);
        }
      });
      ur.on('end', () => res.end());
      res.on('close', () => ur.destroy());
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return new Promise((r) => relay.listen(0, '127.0.0.1', () => {
    relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    r();
  }));
}

async function put(path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
}

const route = (name: string, path: string) => put(`/api/v1/namespaces/app/httproutes/${name}`, {
  apiVersion: GW, kind: 'HTTPRoute',
  spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'web', port: 80 }] }] },
});

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

/** What the proxy serves for infra/edge, by its admin port. */
async function served(): Promise<{ version: number | null; hash?: string }> {
  const r = await (await fetch(`${proxy.admin}/readyz`)).json() as { gateways: { gateway: string; version: number | null; hash?: string }[] };
  return r.gateways.find((g) => g.gateway === 'infra/edge') ?? { version: null };
}

/** Waits until the proxy serves the API's current snapshot, version and hash. */
async function synced(): Promise<{ version: number; hash: string }> {
  await reconciled(s);
  const cur = (await s.api('GET', SNAP)).body as { version: number; hash: string };
  const deadline = Date.now() + 15_000;
  for (;;) {
    const got = await served();
    if (got.version === cur.version) {
      expect(got.hash).toBe(cur.hash);
      return cur;
    }
    if (Date.now() > deadline) throw new Error(`the proxy serves ${got.version}, not ${cur.version}\n${proxy.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  s = await startTestServer();
  backend = await startEchoBackend('app', 'web');
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }] } });
  await put('/api/v1/namespaces/app/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }] } });
  await put('/api/v1/namespaces/app/endpointslices/web-1', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'http', port: backend.port }],
  });
  for (let i = 0; i < 20; i++) await route(`r${i}`, `/r${i}`);
  await reconciled(s);
  await startRelay(s.url);
  const token = await mintToken(s, { name: 'edge-proxy', role: 'proxy', gateways: ['infra/edge'] });
  OFFSET = await freeOffset();
  proxy = await startProxyProcess(relayUrl, token, ['--gateway', 'infra/edge', '--port-offset', String(OFFSET), '--id', 'delta-1']);
  await synced();
}, 120_000);

afterAll(async () => {
  await proxy?.stop('SIGKILL');
  await new Promise((r) => relay?.close(r));
  await s?.close();
  await backend?.close();
});

const wholeGets = () => requests.filter((r) => r.startsWith(`GET ${SNAP}`) && !r.includes('/watch')).length;

describe('the reference proxy on deltas', () => {
  it('watches with ?delta=true and takes changes as deltas, fetching no whole snapshot', async () => {
    expect(requests.some((r) => r === `GET ${SNAP}/watch?delta=true`)).toBe(true);
    const gets = wholeGets();
    const seen = events.length;
    expect(await status('/added')).toBe(404);
    await route('added', '/added');
    await synced();
    expect(await status('/added')).toBe(200);
    await route('r5', '/moved');
    await synced();
    expect(await status('/moved')).toBe(200);
    expect(await status('/r5')).toBe(404);
    expect(events.slice(seen).map((e) => e.event)).toEqual(['delta', 'delta']);
    expect(wholeGets()).toBe(gets);
  });

  it('drops a delta whose hash does not match the table it rebuilds, and fetches the whole snapshot', async () => {
    const gets = wholeGets();
    const before = await served();
    spoilNext = 1;
    await route('spoiled', '/spoiled');
    const cur = await synced();
    expect(cur.version).toBeGreaterThan(before.version!);
    expect(spoilNext).toBe(0);
    expect(wholeGets()).toBe(gets + 1);
    expect(await status('/spoiled')).toBe(200);
    // and deltas are taken again after it
    await route('after', '/after');
    await synced();
    expect(await status('/after')).toBe(200);
    expect(wholeGets()).toBe(gets + 1);
  });
});
