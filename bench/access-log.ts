// `npm run bench:access-log`: what the access log costs. Two API processes on one fresh database, one
// with ACCESS_LOG=off and one with ACCESS_LOG=all at LOG_LEVEL=info (every request written to a pipe
// the bench drains, as a container runtime does), take turns answering the same cheap read (an
// object GET, where a log line weighs most) from 16 keep-alive clients. Turns alternate so that both
// see the same machine; CPU per request, from /proc, is the figure that holds on a shared machine.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { BENCH_TOKEN, freshDatabase, lightClient, report, startService } from './support';

const CLIENTS = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in ticks of 1/100 s
}

const db = await freshDatabase();
// the baseline, then each way of running with the log on
const MODES = {
  off: { ACCESS_LOG: 'off' },
  all: { ACCESS_LOG: 'all' },
  sample10: { ACCESS_LOG: 'all', ACCESS_LOG_SAMPLE: '0.1' },
  errors: { ACCESS_LOG: 'errors' },
} as const;
type Mode = keyof typeof MODES;
const modes = Object.keys(MODES) as Mode[];
const services = Object.fromEntries(await Promise.all(modes.map(async (m) =>
  [m, await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'info', ...MODES[m] }, 'src/main.ts', ['--role=api'])] as const)));
try {
  const seed = lightClient(services.off.url, BENCH_TOKEN, 1);
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
  const put = await seed('PUT', '/api/v1/namespaces/bench/services/web', body);
  if (put.status >= 300) throw new Error(`seed failed: ${put.status} ${put.body}`);

  const totals = Object.fromEntries(modes.map((m) => [m, { requests: 0, seconds: 0, cpu: 0 }]));
  async function turn(mode: Mode, seconds: number, count: boolean): Promise<void> {
    const svc = services[mode];
    const request = lightClient(svc.url, BENCH_TOKEN, CLIENTS);
    const cpu0 = cpuSeconds(svc.child.pid!);
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    let n = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const res = await request('GET', '/api/v1/namespaces/bench/services/web');
        if (res.status !== 200) throw new Error(`read failed: ${res.status} ${res.body}`);
        n++;
      }
    }));
    if (!count) return;
    totals[mode].requests += n;
    totals[mode].seconds += (performance.now() - t0) / 1000;
    totals[mode].cpu += cpuSeconds(svc.child.pid!) - cpu0;
  }
  for (const m of modes) await turn(m, 1, false);
  for (let r = 0; r < ROUNDS; r++) {
    // rotate which goes first, so that none always follows another's garbage collection
    for (let i = 0; i < modes.length; i++) await turn(modes[(i + r) % modes.length], SECONDS, true);
  }
  const rate = (m: Mode) => totals[m].requests / totals[m].seconds;
  const cpuPer = (m: Mode) => (totals[m].cpu / totals[m].requests) * 1e6;
  report('access_log_off_throughput', Math.round(rate('off')), 'req/s', 'the baseline');
  report('access_log_off_cpu_per_request', Math.round(cpuPer('off')), 'µs', 'the baseline');
  for (const m of modes.filter((x) => x !== 'off')) {
    const target = m === 'all' ? 'none: every line written; the settings below are how throughput holds' : '≥ 0.95';
    report(`access_log_${m}_throughput_ratio`, rate(m) / rate('off'), 'x', target);
    report(`access_log_${m}_cpu_overhead`, ((cpuPer(m) / cpuPer('off')) - 1) * 100, '%', m === 'all' ? 'none' : '≤ 5 %');
  }
  const lines = (services.all.output().match(/"reqId"/g) ?? []).length;
  console.log(`(${lines} lines written by the ACCESS_LOG=all process; load average ${loadavg()[0].toFixed(1)} on the machine)`);
} finally {
  await Promise.all(Object.values(services).map((s) => s.stop()));
  await db.drop();
}
