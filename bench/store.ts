// `npm run bench:store`: single-object writes over HTTP, 8 concurrent clients, against the local
// PostgreSQL. Prints writes per second and the p50/p99 latency of a write.
import { BENCH_TOKEN, freshDatabase, lightClient, percentile, report, startService } from './support';

const CLIENTS = 8;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;

const db = await freshDatabase();
const svc = await startService({ DATABASE_URL: db.url });
const request = lightClient(svc.url, BENCH_TOKEN, CLIENTS);

async function write(client: number, i: number): Promise<number> {
  const name = `svc-${client}-${i % 200}`;
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name, labels: { i: String(i) } }, spec: { ports: [{ port: 80 }] } });
  const t0 = performance.now();
  const res = await request('PUT', `/api/v1/namespaces/bench/services/${name}`, body);
  if (res.status !== 200 && res.status !== 201) throw new Error(`write failed: ${res.status} ${res.body}`);
  return performance.now() - t0;
}

async function run(seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = 0; performance.now() < end; i++) latencies.push(await write(c, i));
  }));
  return latencies;
}

try {
  await run(WARMUP_SECONDS);
  const t0 = performance.now();
  const lat = await run(SECONDS);
  const elapsed = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  report('store_writes_per_second', Math.round(lat.length / elapsed), 'writes/s', '>= 1000 writes/s');
  report('store_write_latency_p50', percentile(lat, 50), 'ms', 'informational');
  report('store_write_latency_p99', percentile(lat, 99), 'ms', '<= 30 ms');
} finally {
  await svc.stop();
  await db.drop();
}
