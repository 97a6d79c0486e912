// `npm run bench:mesh`: the mesh (GAMMA) with the API, the worker and an outbound proxy
// (`switchyard proxy --mesh NS`) as separate processes on the real PostgreSQL and Redis
// (DATABASE_URL, REDIS_URL; a fresh database and a Redis prefix of the run's own). It prints:
//   - a mesh route change -> the outbound proxy of the consumer namespace routing by it, p50/p99:
//     a consumer route (in the client's namespace, naming a Service of another) is changed to set a
//     new response header value, timed from just before its PUT to the first response through the
//     proxy that carries the new value (a client of the consumer namespace asks every millisecond);
//   - where that time goes (informational): the PUT's answer, the new table's arrival at an SSE
//     watcher of the consumer namespace's mesh snapshot, as the proxy's own watch gets it, and the
//     proxy's swap of the table (its log line): the rest is the asking client's own sampling.
// BENCH_MESH_CHANGES (default 100) sets how many changes are timed.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_TOKEN, dropRedisPrefix, freshDatabase, lightClient, percentile, report, sseWatch, startService, type SseWatch } from './support';
import { ROOT, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../test/support/process';

const CHANGES = Number(process.env.BENCH_MESH_CHANGES ?? 100);
const PRODUCER = 'bench-mesh';
const CONSUMER = 'bench-mesh-consumer';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One echo backend: answers every request with 200 and its name. */
function startBackend(): Promise<{ port: number; close(): void }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('echo\n'));
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as { port: number }).port, close: () => server.close() })));
}

function startMeshProxy(apiUrl: string, token: string): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/switchyard.js'), 'proxy', '--mesh', CONSUMER, '--mesh-port', '0', '--admin-port', '0', '--host', '127.0.0.1'], {
    cwd: ROOT, env: { ...process.env, SWITCHYARD_URL: apiUrl, SWITCHYARD_TOKEN: token, ACCESS_LOG: 'off', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const m = /"port":(\d+).*switchyard proxy started/.exec(out);
      if (m) {
        clearInterval(poll);
        resolve({
          child, port: Number(m[1]),
          stop: () => new Promise((r) => {
            if (child.exitCode !== null) return r();
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
        });
      } else if (child.exitCode !== null || Date.now() - started > 30_000) {
        clearInterval(poll);
        child.kill('SIGKILL');
        reject(new Error(`the mesh proxy did not start:\n${out}`));
      }
    }, 20);
  });
}

/** One request through the proxy to Service echo of the producer namespace: the x-bench header it came back with. */
function ask(agent: http.Agent, proxyPort: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, agent, path: `http://echo.${PRODUCER}:80/`, headers: { host: 'echo' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers['x-bench'] as string | undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

async function main(): Promise<void> {
  const db = await freshDatabase();
  const prefix = `sy-bench-mesh-${randomBytes(4).toString('hex')}`;
  const common = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: prefix, XDS_PORT: '0' };
  let api: ServiceProcess | undefined;
  let worker: WorkerProcess | undefined;
  let proxy: Awaited<ReturnType<typeof startMeshProxy>> | undefined;
  let watch: SseWatch | undefined;
  const backend = await startBackend();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    api = await startService({ ...common }, 'src/main.ts', ['--role=api']);
    worker = await startWorkerProcess({ ...common, ADMIN_TOKEN: BENCH_TOKEN });
    const call = lightClient(api.url, BENCH_TOKEN, 8);
    const put = async (path: string, body: unknown) => {
      const r = await call('PUT', path, JSON.stringify(body));
      if (r.status !== 200 && r.status !== 201) throw new Error(`PUT ${path}: ${r.status} ${r.body}`);
    };
    for (const ns of [PRODUCER, CONSUMER]) await put(`/api/v1/namespaces/${ns}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await put(`/api/v1/namespaces/${PRODUCER}/services/echo`, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: PRODUCER },
      spec: { clusterIP: '10.96.0.10', selector: { app: 'echo' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    await put(`/api/v1/namespaces/${PRODUCER}/endpointslices/echo-1`, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'echo-1', namespace: PRODUCER, labels: { 'kubernetes.io/service-name': 'echo' } },
      addressType: 'IPv4', ports: [{ name: 'http', protocol: 'TCP', port: backend.port }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    });
    const token = JSON.parse((await call('POST', '/api/v1/tokens', JSON.stringify({ name: 'bench-mesh-proxy', role: 'proxy', mesh: CONSUMER }))).body).token as string;
    proxy = await startMeshProxy(api.url, token);
    // the consumer namespace's table exists once its proxy's first request is answered by the Service
    const waited = Date.now();
    while (!(await reachable(agent, proxy.port))) {
      if (Date.now() - waited > 30_000) throw new Error('the mesh proxy never routed to Service echo');
      await sleep(50);
    }
    // a watcher beside the proxy: when each change's table arrives (the value is in the table's text)
    const arrived = new Map<string, number>();
    const versionOf = new Map<string, number>();
    watch = await sseWatch(api.url, `/api/v1/namespaces/${CONSUMER}/mesh/snapshot/watch`, { auth: `Bearer ${token}` }, (id, _event, block, at) => {
      for (const [, v] of block.matchAll(/"value":"(v\d+)"/g)) {
        if (!arrived.has(v)) arrived.set(v, at);
        if (!versionOf.has(v)) versionOf.set(v, id);
      }
    });
    const epoch = () => performance.timeOrigin + performance.now();
    const routePath = `/api/v1/namespaces/${CONSUMER}/httproutes/bench-consumer`;
    const timings: number[] = [];
    // the moment the proxy swaps a table in, from its own log line (the clock is this machine's):
    // every request it takes from then on is routed by that table
    const swappedAt = new Map<number, number>();
    proxy.child.stdout!.on('data', (d: Buffer) => {
      for (const m of String(d).matchAll(/"time":(\d+)[^\n]*"version":(\d+)[^\n]*mesh table swapped in/g)) swappedAt.set(Number(m[2]), Number(m[1]));
    });
    const toSwap: number[] = [];
    const answered: number[] = [];
    const toWatcher: number[] = [];
    const watcherToProxy: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const value = `v${i}`;
      const started = performance.now();
      const startedAt = epoch();
      await put(routePath, {
        apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'bench-consumer', namespace: CONSUMER },
        spec: {
          parentRefs: [{ group: '', kind: 'Service', name: 'echo', namespace: PRODUCER, port: 80 }],
          rules: [{ filters: [{ type: 'ResponseHeaderModifier', responseHeaderModifier: { set: [{ name: 'x-bench', value }] } }], backendRefs: [{ name: 'echo', namespace: PRODUCER, port: 80 }] }],
        },
      });
      const putAt = epoch();
      for (;;) {
        if ((await ask(agent, proxy.port)) === value) break;
        if (performance.now() - started > 30_000) throw new Error(`change ${i} never reached the proxy`);
        await sleep(1);
      }
      timings.push(performance.now() - started);
      const seenAt = epoch();
      answered.push(putAt - startedAt);
      const version = versionOf.get(value);
      const swapped = version === undefined ? undefined : swappedAt.get(version);
      if (swapped !== undefined) toSwap.push(swapped - startedAt);
      const at = arrived.get(value);
      if (at !== undefined) {
        toWatcher.push(at - putAt);
        watcherToProxy.push(seenAt - at);
      }
      await sleep(20);
    }
    timings.sort((a, b) => a - b);
    report(`mesh route change to consumer outbound proxy p50 (${CHANGES} changes)`, percentile(timings, 50), 'ms', '<= 20 ms');
    report(`mesh route change to consumer outbound proxy p99 (${CHANGES} changes)`, percentile(timings, 99), 'ms', '<= 50 ms');
    for (const xs of [answered, toWatcher, watcherToProxy, toSwap]) xs.sort((a, b) => a - b);
    report(`mesh route change to the consumer proxy's table swapped in (its log line, ms clock) p50 (${toSwap.length} seen)`, percentile(toSwap, 50), 'ms', 'informational (routing by it from then on)');
    report('mesh route change to the consumer proxy\'s table swapped in p99', percentile(toSwap, 99), 'ms', 'informational');
    report('mesh route change: the PUT answered p50', percentile(answered, 50), 'ms', 'informational');
    report(`mesh route change: PUT answered to the table at an SSE watcher p50 (${toWatcher.length} seen)`, percentile(toWatcher, 50), 'ms', 'informational');
    report('mesh route change: PUT answered to the table at an SSE watcher p99', percentile(toWatcher, 99), 'ms', 'informational');
    report('mesh route change: table at the watcher to the proxy routing by it p50', percentile(watcherToProxy, 50), 'ms', 'informational');
  } finally {
    watch?.close();
    agent.destroy();
    await proxy?.stop();
    await worker?.stop();
    await api?.stop();
    backend.close();
    await dropRedisPrefix(common.REDIS_URL, prefix).catch(() => undefined);
    await db.drop();
  }
}

/** Whether a request through the proxy is answered 200 (by the Service's own endpoints, before any route). */
function reachable(agent: http.Agent, proxyPort: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, agent, path: `http://echo.${PRODUCER}:80/`, headers: { host: 'echo' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
