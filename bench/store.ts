// `npm run bench:store`: single-object writes over HTTP, 8 concurrent clients, against the local
// PostgreSQL. Prints writes per second and the p50/p99 latency of a write.
import { readFileSync } from 'node:fs';
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

/**
 * CPU seconds the service's process has used (Linux /proc; NaN elsewhere). Per write it varies far
 * less than writes/s on a machine shared with other work, so it shows what a change costs.
 */
function serviceCpuSeconds(): number {
  try {
    const fields = readFileSync(`/proc/${svc.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return NaN;
  }
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
  const cpu0 = serviceCpuSeconds();
  const lat = await run(SECONDS);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = serviceCpuSeconds() - cpu0;
  lat.sort((a, b) => a - b);
  report('store_writes_per_second', Math.round(lat.length / elapsed), 'writes/s', '>= 1000 writes/s');
  report('store_write_latency_p50', percentile(lat, 50), 'ms', 'informational');
  report('store_write_latency_p99', percentile(lat, 99), 'ms', '<= 30 ms');
  report('store_service_cpu_per_write', Math.round((cpu / lat.length) * 1e6), 'µs', 'informational');
} finally {
  await svc.stop();
  await db.drop();
}
