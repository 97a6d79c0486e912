// `npm run bench:startup`: from spawning the built service (the image's own command lines, read from
// the Dockerfile and docker-compose.yml) to its first /readyz 200. On the embedded default (no
// DATABASE_URL, no REDIS_URL, PGlite in a data folder) after the first start, which creates the
// database; and, with DATABASE_URL and REDIS_URL set, the api and worker halves apart on a fresh
// database of their own. Each figure is the median of a few starts, with the CPU time each took.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildDist } from '../scripts/build';
import { ROOT } from '../test/support/process';
import { imageArgv, localArgv } from '../test/support/image-command';
import { BENCH_TOKEN, dropRedisPrefix, freshDatabase, report } from './support';

const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const TARGET = '≤ 2000 ms';

/**
 * CPU time (user + system, every thread) that the node process under `pid` (itself, or tini's child)
 * has used so far, from /proc: on a machine shared with other work the wall time to ready mostly
 * measures the wait for a core, this what the start costs.
 */
function nodeCpuMs(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
  const target = /tini/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]) && children.length ? children[0] : pid;
  const fields = readFileSync(`/proc/${target}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux)
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Start { wallMs: number; cpuMs: number }

/** Starts argv, waits for `ready`, stops it with SIGTERM: ms from spawn to ready, and the CPU it took. */
async function timeToReady(argv: string[], env: Record<string, string>, ready: (out: string) => Promise<boolean>): Promise<Start> {
  const run = localArgv(argv);
  if (!('argv' in run)) throw new Error(run.missing);
  const [cmd, ...args] = run.argv;
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...clean, NODE_ENV: 'production', HOST: '127.0.0.1', LOG_LEVEL: 'info', ADMIN_TOKEN: BENCH_TOKEN, TINI_SUBREAPER: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    for (const deadline = Date.now() + 120_000; ;) {
      if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}):\n${out}`);
      if (await ready(out)) return { wallMs: performance.now() - t0, cpuMs: nodeCpuMs(child.pid!) };
      if (Date.now() > deadline) throw new Error(`not ready within 120 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const readyz = (port: number) => async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200;
const freePort = () => 20000 + Math.floor(Math.random() * 20000);

async function starts(argv: string[], env: () => Record<string, string>, ready: (env: Record<string, string>) => (out: string) => Promise<boolean>): Promise<Start[]> {
  const runs: Start[] = [];
  for (let i = 0; i < RUNS; i++) {
    const e = env();
    runs.push(await timeToReady(argv, e, ready(e)));
  }
  return runs;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function print(name: string, runs: Start[]): void {
  const wall = runs.map((r) => Math.round(r.wallMs));
  const cpu = runs.map((r) => Math.round(r.cpuMs));
  report(`startup_ready_${name}`, median(wall), 'ms', `${TARGET}; median of ${runs.length}: ${wall.join(', ')} ms; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`);
  report(`startup_cpu_${name}`, median(cpu), 'ms', `the service's CPU until ready, about its wall time on an idle machine: ${cpu.join(', ')} ms`);
}

await buildDist();

// embedded: one data folder; the first start creates the database (initdb), the later ones are timed
const dataDir = mkdtempSync(join(tmpdir(), 'sy-bench-startup-'));
const embeddedEnv = () => ({ SWITCHYARD_DATA_DIR: dataDir, PORT: String(freePort()) });
const main = imageArgv();
const firstEnv = embeddedEnv();
report('startup_ready_embedded_first', Math.round((await timeToReady(main, firstEnv, readyz(Number(firstEnv.PORT)))).wallMs), 'ms', 'none: it creates the database');
print('embedded', await starts(main, embeddedEnv, (e) => readyz(Number(e.PORT))));

if (process.env.DATABASE_URL && process.env.REDIS_URL) {
  const db = await freshDatabase();
  const prefix = `sy-bench-startup-${randomBytes(4).toString('hex')}`;
  try {
    const shared = { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: prefix };
    const api = imageArgv('api');
    // the first start applies the migrations
    const firstApi = { ...shared, PORT: String(freePort()) };
    await timeToReady(api, firstApi, readyz(Number(firstApi.PORT)));
    print('api', await starts(api, () => ({ ...shared, PORT: String(freePort()) }), (e) => readyz(Number(e.PORT))));
    // the worker is ready when its /readyz (WORKER_PORT) answers 200, or, where it serves none, when it logs that it runs
    const worker = imageArgv('worker');
    print('worker', await starts(worker, () => ({ ...shared, WORKER_PORT: String(freePort()) }), (e) => {
      const probe = readyz(Number(e.WORKER_PORT));
      return async (out) => out.includes('switchyard worker running') || probe();
    }));
  } finally {
    await db.drop();
    await dropRedisPrefix(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  }
} else {
  console.log('startup_ready_api, startup_ready_worker: skipped (set DATABASE_URL and REDIS_URL)');
}
