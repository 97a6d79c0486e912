// `switchyard nginx` and the changes it makes to a running nginx: a request in flight over a reload
// is answered (nginx's graceful reload), a configuration nginx refuses (`nginx -t`) or cannot apply
// (a port another process holds) is reported STALE with nginx's own message while the last good
// configuration keeps serving, an endpoint-only change renders no route, and a burst of changes is
// taken by fewer reloads than snapshots. Real API (with its worker), real nginx, real sockets.
import http from 'node:http';
import { spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { startEchoBackend, type EchoBackend } from '../support/echo-backend';
import { NGINX } from '../support/nginx';
import { startNginxAgent, type RunningNginxAgent } from '../../src/nginx-agent/agent';

const GW = 'gateway.networking.k8s.io/v1';
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';
let OFFSET = 0;
let s: TestServer;
let agent: RunningNginxAgent;
let web: EchoBackend;
let other: EchoBackend;
let prefix = '';

async function freeOffset(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return Math.min(port, 60000) - 80;
}

async function put(path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
}

const route = (name: string, path: string) => put(`/api/v1/namespaces/app/httproutes/${name}`, {
  apiVersion: GW, kind: 'HTTPRoute',
  spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'web', port: 80 }] }] },
});

const gateway = (extra: unknown[] = []) => put('/api/v1/namespaces/infra/gateways/edge', {
  apiVersion: GW, kind: 'Gateway',
  spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }, ...extra] },
});

const slice = (port: number) => put('/api/v1/namespaces/app/endpointslices/web-1', {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'http', port }],
});

function get(path: string, agentOpt?: http.Agent): Promise<{ status: number; service?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: 80 + OFFSET, path, agent: agentOpt ?? false, headers: { host: 'example.com' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, service: res.headers['x-echo-service'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

let lastVersion = 0;
/** The snapshot version after a change: a newer one than the last seen (the snapshot follows the reconcile). */
async function nextVersion(): Promise<number> {
  await reconciled(s);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = ((await s.api('GET', SNAP)).body as { version: number }).version;
    if (v > lastVersion) return (lastVersion = v);
    if (Date.now() > deadline) throw new Error(`the snapshot stayed at version ${v}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until nginx serves the snapshot the last change made. */
async function synced(): Promise<number> {
  const want = await nextVersion();
  const deadline = Date.now() + 20_000;
  while (agent.tables.get('infra/edge')?.served?.version !== want) {
    if (Date.now() > deadline) throw new Error(`nginx serves ${agent.tables.get('infra/edge')?.served?.version}, not ${want}: ${agent.tables.get('infra/edge')?.rejected?.error}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return want;
}

/** What the API lists for this agent once it has reported on `version`: SYNCED, or STALE with the error. */
async function reported(version: number): Promise<{ state: string; error?: string }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const items = ((await s.api('GET', '/api/v1/namespaces/infra/gateways/edge/proxies')).body as { items: { id: string; state: string; error?: string }[] }).items;
    const me = items.find((p) => p.id === 'nginx-test');
    const st = agent.tables.get('infra/edge');
    const decided = st?.served?.version === version || st?.rejected?.version === version;
    if (me && decided && ((me.state === 'SYNCED' && st?.served?.version === version) || (me.state === 'STALE' && me.error?.includes(`version ${version}`)))) return me;
    if (Date.now() > deadline) throw new Error(`no report of version ${version}: ${JSON.stringify(me)} ${JSON.stringify(st?.rejected)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!NGINX.available)(`switchyard nginx changing a running nginx${NGINX.available ? '' : ` (skipped: ${NGINX.why})`}`, () => {
  beforeAll(async () => {
    s = await startTestServer();
    web = await startEchoBackend('app', 'web');
    other = await startEchoBackend('app', 'web-moved');
    await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
    await gateway();
    await put('/api/v1/namespaces/app/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }] } });
    await slice(web.port);
    for (let i = 0; i < 5; i++) await route(`r${i}`, `/r${i}`);
    await reconciled(s);
    const token = await mintToken(s, { name: 'edge-nginx', role: 'proxy', gateways: ['infra/edge'] });
    OFFSET = await freeOffset();
    prefix = mkdtempSync(join(tmpdir(), 'sy-nginx-agent-'));
    agent = await startNginxAgent({
      url: s.url, token, gateways: ['infra/edge'], portOffset: OFFSET, adminPort: 0, host: '127.0.0.1', id: 'nginx-test', prefix,
      workerProcesses: '1', modulesDir: NGINX.modulesDir, nginxBin: NGINX.bin, logLevel: 'silent', reloadTimeoutMs: 5000,
    });
    await synced();
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    await s?.close();
    await web?.close();
    await other?.close();
    if (prefix) rmSync(prefix, { recursive: true, force: true });
  });

  it('serves the routes through the nginx it runs, with certificates and rendered files under its prefix', async () => {
    expect(await get('/r1/x')).toEqual({ status: 200, service: 'web' });
    expect((await get('/nowhere')).status).toBe(404);
    expect(agent.nginx.running).toBe(true);
    expect(readdirSync(prefix).filter((f) => /^http-[0-9a-f]{16}\.conf$/.test(f))).toHaveLength(1);
  });

  it('answers a request in flight over a reload, on a connection opened before it', async () => {
    const keep = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get('/r0/warm', keep)).status).toBe(200);
    const reloadsBefore = agent.reloads.length;
    const slow = get('/r0/slow?delay=1500', keep);
    await new Promise((r) => setTimeout(r, 200));
    await route('added', '/added');
    await synced();
    expect(agent.reloads.length).toBeGreaterThan(reloadsBefore);
    // the reload is done (new workers answer) while the old worker still holds the slow request
    expect(await get('/added/x')).toEqual({ status: 200, service: 'web' });
    expect(await slow).toEqual({ status: 200, service: 'web' });
    keep.destroy();
  });

  it('takes an endpoint-only change without rendering the routes again', async () => {
    const httpFiles = () => readdirSync(prefix).filter((f) => /^http-[0-9a-f]{16}\.conf$/.test(f));
    const before = httpFiles();
    await slice(other.port);
    await synced();
    const last = agent.reloads.at(-1)!;
    expect(last.routesRendered).toBe(false);
    expect(httpFiles()).toEqual(before);
    expect(await get('/r2/x')).toEqual({ status: 200, service: 'web-moved' });
    await slice(web.port);
    await synced();
    expect(await get('/r2/x')).toEqual({ status: 200, service: 'web' });
  });

  it('takes a burst of changes with fewer reloads than snapshots', async () => {
    const reloads = agent.reloads.length;
    const snaps = agent.snapshots();
    // one change after another, each sent once the agent has the snapshot of the one before: they come
    // faster than nginx -t and a reload take, so the snapshots that arrive meanwhile share the next reload
    for (let i = 0; i < 10; i++) {
      await route(`burst${i}`, `/burst${i}`);
      const deadline = Date.now() + 20_000;
      while (agent.snapshots() < snaps + i + 1) {
        if (Date.now() > deadline) throw new Error(`snapshot ${i + 1} of the burst did not come`);
        await new Promise((r) => setTimeout(r, 2));
      }
    }
    await synced();
    const gotSnaps = agent.snapshots() - snaps;
    const gotReloads = agent.reloads.length - reloads;
    expect(gotSnaps).toBeGreaterThan(1);
    expect(gotReloads).toBeLessThan(gotSnaps);
    expect((await get('/burst9/x')).status).toBe(200);
  });

  it('reports a configuration nginx -t refuses as STALE with nginx\'s message; the last good one keeps serving', async () => {
    // a listener port that, offset, is no port at all: nginx -t says so
    await gateway([{ name: 'far', protocol: 'HTTP', port: 65535 - OFFSET + 100, allowedRoutes: { namespaces: { from: 'All' } } }]);
    const bad = await nextVersion();
    const r = await reported(bad);
    expect(r.state).toBe('STALE');
    expect(r.error).toMatch(/nginx -t: .*invalid port/);
    expect(await get('/r1/x')).toEqual({ status: 200, service: 'web' });
    await gateway();
    const good = await synced();
    expect((await reported(good)).state).toBe('SYNCED');
  });

  it('reports a configuration nginx cannot apply at reload (a port another process holds) as STALE; the last good one keeps serving', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(81 + OFFSET, '127.0.0.1', r));
    try {
      await gateway([{ name: 'held', protocol: 'HTTP', port: 81, allowedRoutes: { namespaces: { from: 'All' } } }]);
      const bad = await nextVersion();
      const r = await reported(bad);
      expect(r.state).toBe('STALE');
      expect(r.error).toMatch(/nginx reload: .*Address already in use/);
      expect(await get('/r1/x')).toEqual({ status: 200, service: 'web' });
    } finally {
      await new Promise((r) => holder.close(r));
    }
    await gateway();
    await synced();
    expect(await get('/r1/x')).toEqual({ status: 200, service: 'web' });
  });

  it('stops nginx with it and removes what no configuration uses', async () => {
    const certs = join(prefix, 'certs');
    expect(existsSync(certs) && (statSync(certs).mode & 0o777)).toBe(0o700);
    const pid = agent.nginx.pid!;
    await agent.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('with --external, writes the configuration of an nginx someone else runs and reloads it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-nginx-external-'));
    const conf = join(dir, 'edge.conf');
    const token = await mintToken(s, { name: 'edge-nginx-external', role: 'proxy', gateways: ['infra/edge'] });
    const ext = await startNginxAgent({
      url: s.url, token, gateways: ['infra/edge'], portOffset: OFFSET, adminPort: 0, host: '127.0.0.1', id: 'nginx-external', externalConf: conf,
      workerProcesses: '1', modulesDir: NGINX.modulesDir, nginxBin: NGINX.bin, logLevel: 'silent', reloadTimeoutMs: 30_000,
    });
    let someoneElse: ReturnType<typeof spawn> | undefined;
    try {
      // the agent writes the file once nginx -t passes; then someone starts nginx on it
      const deadline = Date.now() + 20_000;
      while (!existsSync(conf)) {
        if (Date.now() > deadline) throw new Error('no configuration written');
        await new Promise((r) => setTimeout(r, 20));
      }
      someoneElse = spawn(NGINX.bin, ['-p', dir, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let said = '';
      someoneElse.stderr!.on('data', (d) => (said += d));
      const want = ((await s.api('GET', SNAP)).body as { version: number }).version;
      while (ext.tables.get('infra/edge')?.served?.version !== want) {
        if (Date.now() > deadline + 10_000) throw new Error(`the external nginx does not serve ${want}: ${said} ${JSON.stringify(ext.tables.get('infra/edge'))?.slice(0, 300)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await get('/r1/x')).toEqual({ status: 200, service: 'web' });
      await route('external', '/external');
      const next = await nextVersion();
      while (ext.tables.get('infra/edge')?.served?.version !== next) await new Promise((r) => setTimeout(r, 20));
      expect(await get('/external/x')).toEqual({ status: 200, service: 'web' });
      // the agent stopping leaves someone else's nginx running
      await ext.stop();
      expect(await get('/external/x')).toEqual({ status: 200, service: 'web' });
    } finally {
      await ext.stop();
      someoneElse?.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
