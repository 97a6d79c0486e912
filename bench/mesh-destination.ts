// `npm run bench:mesh-destination`: an EndpointSlice change's way to the Linkerd Destination.Get
// streams that follow its Service, with 1,000 streams open, against the service as its own process
// (API and worker, as `npm start`) on the local PostgreSQL and, when REDIS_URL is set, Redis.
// 100 Services of 2 endpoints each, 10 streams on each (over 20 connections, as 20 proxies would
// hold them); then BENCH_CHANGES slice writes, one Service at a time, each adding an endpoint. A
// sample is the time from the write being sent to one stream receiving the add of that endpoint.
import * as grpc from '@grpc/grpc-js';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { BENCH_TOKEN, dropRedisPrefix, freshDatabase, percentile, report, startService } from './support';
import { addrText, bearer, destinationClient, type Update } from '../test/support/linkerd-client';

const SERVICES = 100;
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const CONNECTIONS = 20;
const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);
const NS = 'bench';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const db = await freshDatabase();
const xdsPort = await freePort();
// the run's own Redis prefix, dropped at the end (the machine's Redis is shared)
const redisUrl = process.env.REDIS_URL;
const prefix = `sy-bench-mesh-destination-${randomBytes(4).toString('hex')}`;
const svc = await startService({ DATABASE_URL: db.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, XDS_PORT: String(xdsPort), ACCESS_LOG: 'off' });
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };
const clients: grpc.Client[] = [];
const calls: grpc.ClientReadableStream<Update>[] = [];

async function put(path: string, body: unknown): Promise<void> {
  const r = await fetch(`${svc.url}${path}`, { method: 'PUT', headers, body: JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${await r.text()}`);
}
const ip = (s: number, k: number) => `10.${100 + Math.floor(s / 250)}.${s % 250}.${k}`;
const slice = (s: number, ips: string[]) => put(`/api/v1/namespaces/${NS}/endpointslices/svc-${s}-1`, {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': `svc-${s}` } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: ips.map((a) => ({ addresses: [a] })),
});

try {
  const items = [];
  for (let s = 0; s < SERVICES; s++) {
    items.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${s}`, namespace: NS }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
    items.push({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `svc-${s}-1`, namespace: NS, labels: { 'kubernetes.io/service-name': `svc-${s}` } },
      addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: [1, 2].map((k) => ({ addresses: [ip(s, k)] })),
    });
  }
  const applied = await fetch(`${svc.url}/api/v1/apply`, { method: 'POST', headers, body: JSON.stringify({ items }) });
  if (applied.status !== 200) throw new Error(`apply: ${applied.status} ${(await applied.text()).slice(0, 500)}`);
  const tr = await fetch(`${svc.url}/api/v1/tokens`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench-mesh', role: 'proxy', mesh: 'client' }) });
  const { token } = (await tr.json()) as { token: string };

  // each connection its own, as separate proxies' would be
  for (let c = 0; c < CONNECTIONS; c++) clients.push(destinationClient(xdsPort));
  /** per Service: the waiters for an address, each resolved when one stream is sent its add */
  const waiting = new Map<string, ((at: number) => void)[]>();
  let opened = 0;
  const allOpen = new Promise<void>((resolve, reject) => {
    for (let i = 0; i < STREAMS; i++) {
      const s = i % SERVICES;
      const call = (clients[i % CONNECTIONS] as any).Get({ scheme: 'k8s', path: `svc-${s}.${NS}.svc.cluster.local:80`, context_token: '{"ns":"client"}' }, bearer(token)) as grpc.ClientReadableStream<Update>;
      calls.push(call);
      let first = true;
      call.on('data', (u: Update) => {
        const at = performance.now();
        if (first) {
          first = false;
          if (++opened === STREAMS) resolve();
        }
        if (u.update !== 'add') return;
        for (const a of u.add!.addrs) {
          const key = addrText(a.addr);
          const ws = waiting.get(key);
          const w = ws?.shift();
          if (w) w(at);
        }
      });
      call.on('error', (e: grpc.ServiceError) => {
        if (e.code !== grpc.status.CANCELLED) reject(new Error(`a stream ended: ${e.code} ${e.details}`));
      });
    }
  });
  const t0 = performance.now();
  await allOpen;
  console.log(`${STREAMS} streams open with their endpoints in ${(performance.now() - t0).toFixed(0)} ms`);

  const samples: number[] = [];
  const lasts: number[] = [];
  const puts: number[] = [];
  /** from the write's answer (it has committed) to the stream's update: the delivery alone */
  const afterCommit: number[] = [];
  const perService = STREAMS / SERVICES;
  const held = new Map<number, string[]>();
  for (let n = 0; n < CHANGES; n++) {
    const s = (n * 37) % SERVICES;
    const ips = held.get(s) ?? [ip(s, 1), ip(s, 2)];
    const added = ip(s, 3 + (n % 200));
    const next = [...ips.slice(-2), added];
    held.set(s, next);
    const key = `${added}:8080`;
    const arrivals = Array.from({ length: perService }, () => new Promise<number>((r) => {
      const ws = waiting.get(key) ?? [];
      ws.push(r);
      waiting.set(key, ws);
    }));
    const sent = performance.now();
    await slice(s, next);
    const answered = performance.now();
    puts.push(answered - sent);
    const times = await Promise.race([Promise.all(arrivals), new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`change ${n} did not reach its streams within 10 s`)), 10_000))]);
    waiting.delete(key);
    for (const t of times) {
      samples.push(t - sent);
      afterCommit.push(Math.max(0, t - answered));
    }
    lasts.push(Math.max(...times) - sent);
  }
  samples.sort((a, b) => a - b);
  lasts.sort((a, b) => a - b);
  report(`slice change to Destination.Get update p50 (${STREAMS} streams)`, percentile(samples, 50), 'ms', '≤ 20 ms');
  report(`slice change to Destination.Get update p99 (${STREAMS} streams)`, percentile(samples, 99), 'ms', '≤ 50 ms');
  puts.sort((a, b) => a - b);
  afterCommit.sort((a, b) => a - b);
  report('the slice write itself (PUT answered) p50', percentile(puts, 50), 'ms', 'informational');
  report('PUT answered to Destination.Get update p50', percentile(afterCommit, 50), 'ms', 'informational');
  report('PUT answered to Destination.Get update p99', percentile(afterCommit, 99), 'ms', 'informational');
  report(`slice change to the last of its Service's ${perService} streams p99`, percentile(lasts, 99), 'ms', 'informational');
} finally {
  for (const c of calls) c.cancel();
  for (const c of clients) c.close();
  await svc.stop();
  await db.drop();
  if (redisUrl) await dropRedisPrefix(redisUrl, prefix).catch(() => undefined);
}
