// Shared by the benchmark scripts: a fresh database, the service as its own process, percentiles.
import pg from 'pg';
import { readdirSync, readFileSync } from 'node:fs';
import { caughtUp } from '../src/adapters/store/checkpoints';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { scriptEnv, scriptNodeFlags, startProcess, type ServiceProcess } from '../test/support/process';

import { buildDist } from '../scripts/build';

export { scriptEnv, scriptNodeFlags, workerNodeFlags } from '../test/support/process';

// The service is measured as `npm start` runs it: the bundles of dist/, built once here (through tsx
// the process also held the compiler's hooks thread and every module's compiled text). With
// BENCH_FROM_SOURCE=1 it runs from the sources through tsx.
if (process.env.BENCH_FROM_SOURCE !== '1' && process.env.SERVICE_FROM_DIST !== '1') {
  await buildDist();
  process.env.SERVICE_FROM_DIST = '1';
}

export const BENCH_TOKEN = 'bench-admin-token-0123456789';

export async function freshDatabase(base = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres') {
  const name = `sy_bench_${randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const d = new pg.Client({ connectionString: base });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

// BENCH_LOG_LEVEL (default warn) is the service's LOG_LEVEL: info measures with every access log line written
/** The service with the node flags and environment of the npm script it stands for: `npm run api` with --role=api, else `npm start`. */
export async function startService(env: Record<string, string | undefined>, script?: string, args: string[] = []): Promise<ServiceProcess> {
  const npmScript = args.includes('--role=api') ? 'api' : 'start';
  return startProcess({ ...scriptEnv(npmScript), ADMIN_TOKEN: BENCH_TOKEN, LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', ...env }, script, args, 'PORT', scriptNodeFlags(npmScript));
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// `name: value unit (target ...)`, kept in bench/results/ with BENCH_RECORD set (bench/record.ts)
export { figureLine, report } from './record';

/** A keep-alive HTTP client that costs little CPU, so that the load generator does not starve the server. */
export function lightClient(baseUrl: string, token: string, sockets = 16) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const u = new URL(baseUrl);
  return (method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, method, path, agent, headers: {
        authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}), ...headers,
      } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
}

export interface TimedAnswer { status: number; body: string; at: number }

/**
 * The benchmarks' JSON client on a keep-alive agent: each answer with the wall-clock time (ms since
 * the epoch, comparable across processes) its head arrived, and a PUT that tries again on the
 * answers a busy service gives (409, 429, 5xx).
 */
export function timedClient(agent: http.Agent, auth = `Bearer ${BENCH_TOKEN}`) {
  const now = () => performance.timeOrigin + performance.now();
  const request = (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, a: http.Agent = agent): Promise<TimedAnswer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(base + path, {
        method, agent: a,
        headers: { authorization: auth, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}), ...headers },
      }, (res) => {
        const at = now();
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), at }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  const put = async (base: string, path: string, body: unknown): Promise<number> => {
    for (let attempt = 0; ; attempt++) {
      const r = await request(base, 'PUT', path, body);
      if (r.status === 200 || r.status === 201) return r.at;
      if (attempt >= 5 || (r.status !== 409 && r.status !== 429 && r.status < 500)) throw new Error(`PUT ${path}: ${r.status} ${r.body}`);
      await new Promise((res) => setTimeout(res, 50 * (attempt + 1)));
    }
  };
  return { request, put };
}

/** A process's /proc stat fields after its name, the first being its state (field 3). */
const statFields = (pid: number): string[] => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');

/** CPU time (user + system) process `pid` has used, in ms (Linux /proc; ticks of 1/100 s). */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * The minor page faults a process has taken (Linux /proc): memory it touched for the first time, or
 * again after giving it back, at some 18 µs a 4 KiB page on the 2-core machine.
 */
export function minorFaults(pid: number): number {
  return Number(statFields(pid)[7]);
}

/** CPU time every PostgreSQL process on this machine has used, with what its exited children used, in ms. */
export function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try { stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { continue; }
    if (!stat.includes('(postgres)')) continue;
    const f = stat.replace(/^.*\) /, '').split(' ');
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return (ticks * 1000) / 100;
}

/** Resident memory of process `pid`, in MB (Linux /proc). */
export function rssMB(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Waits until the worker has recomputed everything written so far (the checkpoints in PostgreSQL). */
export async function reconciled(client: pg.Client, timeoutMs = 120_000, pollMs = 50): Promise<void> {
  const runner = { $queryRawUnsafe: async (sql: string, ...params: unknown[]) => (await client.query(sql, params)).rows };
  const db = { prisma: runner, sql: runner } as never;
  const { rows } = await client.query('SELECT max(position) AS p FROM events');
  const target = Number(rows[0].p ?? 0);
  const deadline = Date.now() + timeoutMs;
  while (!(await caughtUp(db, target))) {
    if (Date.now() > deadline) throw new Error(`the worker did not catch up within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export interface SseWatch { close(): void }

/**
 * An SSE watch for the benchmarks: every event block with an id goes to onEvent with its event name
 * and the wall-clock time (ms since the epoch) its last chunk arrived; comments are skipped.
 */
export function sseWatch(
  base: string, path: string, opts: { agent?: http.Agent | false; headers?: Record<string, string>; auth?: string },
  onEvent: (id: number, event: string, block: string, at: number) => void, onError?: (e: Error) => void,
): Promise<SseWatch> {
  const now = () => performance.timeOrigin + performance.now();
  return new Promise((resolve, reject) => {
    const headers = { authorization: opts.auth ?? `Bearer ${BENCH_TOKEN}`, accept: 'text/event-stream', ...opts.headers };
    const req = http.get(base + path, { agent: opts.agent ?? false, headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`SSE ${path}: ${res.statusCode}`));
      }
      res.setEncoding('utf8');
      // an event's chunks are kept apart until its end arrives, and each chunk is searched once: a
      // buffer searched from its start on every chunk cost this process (on the service's cores)
      // seconds of CPU for each 6 MB whole snapshot
      let held: string[] = [];
      res.on('data', (chunk: string) => {
        const at = now();
        let rest = chunk;
        for (;;) {
          // an event's end may straddle two chunks: look from the last character held
          const last = held.length ? held[held.length - 1].slice(-1) : '';
          const found = (last + rest).indexOf('\n\n');
          if (found < 0) {
            held.push(rest);
            return;
          }
          // -1: the end's first newline is the last character held
          const i = found - last.length;
          const block = i === -1 ? held.join('').slice(0, -1) : held.join('') + rest.slice(0, i);
          rest = rest.slice(i + 2);
          held = [];
          const id = /^id: (\d+)$/m.exec(block.slice(0, 200))?.[1];
          if (id) onEvent(Number(id), /^event: (\w+)$/m.exec(block.slice(0, 200))?.[1] ?? 'message', block, at);
          if (!rest) return;
        }
      });
      res.on('error', (e) => onError?.(e));
      resolve({ close: () => req.destroy() });
    });
    req.on('error', (e) => { reject(e); onError?.(e); });
  });
}

/**
 * The one-large-Gateway figures (bench/one-gateway.ts: 5,000 routes, api and worker apart and in one
 * process), run after a benchmark's own so that bench:reconcile and bench:delivery print those
 * targets too; BENCH_ONE_GATEWAY=0 leaves them out. Its lines go to this process's output.
 */
export async function oneGatewayFigures(): Promise<void> {
  if (process.env.BENCH_ONE_GATEWAY === '0') return;
  const { spawn } = await import('node:child_process');
  const { join } = await import('node:path');
  const { ROOT } = await import('../test/support/process');
  console.log('# one Gateway with thousands of routes (bench:gateway; BENCH_ONE_GATEWAY=0 skips it)');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/one-gateway.ts')], { cwd: ROOT, stdio: 'inherit', env: process.env });
    child.on('exit', resolve);
  });
  if (code !== 0) process.exitCode = code ?? 1;
}

// a run leaves nothing behind on the shared Redis (see test/support/redis.ts)
export { dropRedisPrefix } from '../test/support/redis';
