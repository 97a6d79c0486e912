// `docker stop` sends SIGTERM to PID 1 of the container and, 10 s later, SIGKILL. In the image PID 1
// is tini (the Dockerfile's ENTRYPOINT) and node running the built dist/ its child (CMD). This test
// builds dist/, starts that very argv, read from the Dockerfile, on the embedded default (no
// DATABASE_URL, no REDIS_URL), sends SIGTERM to the top process while requests are in flight, and
// checks what a user of the container would notice: the requests in flight get whole answers, the
// process exits 0 on its own before docker's SIGKILL, nothing it acknowledged is lost, and its data
// folder is free for the next start.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { ROOT } from '../support/process';
import { client } from '../support/server';
import { imageArgv, localArgv } from '../support/image-command';
import { buildDist } from '../../scripts/build';
import { tempDir } from '../support/temp-dir';

const TOKEN = 'container-stop-token-0123456789';
// docker stop's default time between SIGTERM and SIGKILL
const DOCKER_STOP_TIMEOUT_MS = 10_000;
const local = localArgv(imageArgv());
const why = 'missing' in local ? local.missing : '';
if (why) console.log(`skipped: SIGTERM to the image's process tree (${why})`);

interface Container {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Container[] = [];

async function startContainer(dataDir: string): Promise<Container> {
  if (!('argv' in local)) throw new Error(why);
  const [cmd, ...args] = local.argv;
  const port = 20000 + Math.floor(Math.random() * 20000);
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: {
      ...env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', XDS_PORT: '0',
      SWITCHYARD_DATA_DIR: dataDir, ADMIN_TOKEN: TOKEN,
      // here tini is not PID 1: as a child subreaper it reaps and forwards as PID 1 would
      TINI_SUBREAPER: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // a process group of its own, so that clean-up after a failure can stop node along with tini
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })));
  const c = { child, url: `http://127.0.0.1:${port}`, output: () => out, exited };
  started.push(c);
  for (const deadline = Date.now() + 60_000; ;) {
    if (child.exitCode !== null) throw new Error(`the image's command exited (${child.exitCode}):\n${out}`);
    if ((await fetch(`${c.url}/readyz`).catch(() => null))?.status === 200) return c;
    if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The answer of a POST whose body has been handed to the socket when `sent` resolves. */
function post(url: string, body: string): { sent: Promise<void>; answer: Promise<{ status: number; body: string; at: number }> } {
  let sent!: () => void;
  const sentP = new Promise<void>((r) => (sent = r));
  const answer = new Promise<{ status: number; body: string; at: number }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('finish', () => sent());
    req.end(body);
  });
  return { sent: sentP, answer };
}

beforeAll(async () => {
  if (!why) await buildDist();
}, 120_000);

afterAll(async () => {
  // SIGKILL to tini alone would leave node running: to the whole group
  for (const c of started) {
    try {
      process.kill(-c.child.pid!, 'SIGKILL');
    } catch {
      /* the group is gone: it stopped as it should */
    }
  }
});

it.skipIf(Boolean(why))('SIGTERM to the top of the image\'s process tree (tini -> node dist/main.js) is a graceful stop', async () => {
  const dir = tempDir('sy-stop-');
  const first = await startContainer(dir);
  const api = client(first.url, TOKEN);
  // the first start made the class; the image's start is the first here
  expect((await api('GET', '/api/v1/gatewayclasses/switchyard')).status).toBe(200);
  expect((await api('PUT', '/api/v1/namespaces/default/gateways/edge', {
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
  })).status).toBe(201);
  const snapshotPath = '/api/v1/namespaces/default/gateways/edge/snapshot';
  let etag: string | null = null;
  for (let i = 0; i < 200 && !etag; i++) {
    const r = await fetch(first.url + snapshotPath, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (r.status === 200) etag = r.headers.get('etag');
    else await new Promise((res) => setTimeout(res, 50));
  }
  expect(etag).toBeTruthy();

  // in flight at SIGTERM: a long-poll held by the server, and a large apply it is still writing
  const longPoll = fetch(`${first.url}${snapshotPath}?wait=60`, { headers: { authorization: `Bearer ${TOKEN}`, 'if-none-match': etag! } })
    .then((r) => ({ status: r.status, at: Date.now() }));
  const items = Array.from({ length: 3000 }, (_, i) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: `applied-${i}`, namespace: 'bulk' }, spec: { ports: [{ port: 80 }] } }));
  const apply = post(`${first.url}/api/v1/apply`, JSON.stringify({ items }));
  // and writers that keep writing through the stop, each until it is refused
  const acknowledged: { name: string; rv: string }[] = [];
  const refusals: string[] = [];
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; i < 100_000; i++) {
      const name = `w${w}-${i}`;
      const r = await api('PUT', `/api/v1/namespaces/default/services/${name}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } })
        .catch((e: Error) => ({ status: 0, body: undefined, text: String(e.cause ?? e) }));
      if (r.status === 201) acknowledged.push({ name, rv: r.body.metadata.resourceVersion });
      else return refusals.push(`${r.status} ${r.text.slice(0, 200)}`);
    }
  });
  await apply.sent;
  await new Promise((r) => setTimeout(r, 100));
  const sigtermAt = Date.now();
  first.child.kill('SIGTERM');

  const timer = setTimeout(() => process.kill(-first.child.pid!, 'SIGKILL'), DOCKER_STOP_TIMEOUT_MS);
  const exit = await first.exited;
  clearTimeout(timer);
  // on its own, with node's clean exit passed on by tini: not docker's SIGKILL
  expect(exit, first.output()).toEqual({ code: 0, signal: null });
  expect(first.output()).toContain('switchyard stopped');

  const applied = await apply.answer;
  expect(applied.at).toBeGreaterThan(sigtermAt);
  expect(applied.status, applied.body).toBe(200);
  expect(JSON.parse(applied.body).results).toHaveLength(3000);
  const polled = await longPoll;
  expect(polled.at).toBeGreaterThan(sigtermAt);
  expect(polled.status).toBe(304);
  await Promise.all(writers);
  expect(acknowledged.length).toBeGreaterThan(0);
  // a write after the stop began is refused whole (503 while draining) or never connects: never cut off
  for (const r of refusals) expect(r).toMatch(/^(503 |0 .*(ECONNREFUSED|ECONNRESET|other side closed|SocketError))/);

  // the data folder is free: the next start takes it, and has every answer the first one gave
  const second = await startContainer(dir);
  const api2 = client(second.url, TOKEN);
  for (const a of acknowledged) {
    const got = await api2('GET', `/api/v1/namespaces/default/services/${a.name}`);
    expect(got.status, a.name).toBe(200);
    expect(got.body.metadata.resourceVersion).toBe(a.rv);
  }
  const bulk = await api2('GET', '/api/v1/namespaces/bulk/services?limit=3000');
  expect(bulk.body.items).toHaveLength(3000);
  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
}, 180_000);
