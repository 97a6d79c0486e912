// What bench:proxy and bench:nginx share: Debian's packages installed where missing, a hand-written
// nginx (a fixed-answer backend and a reverse proxy to it) to compare against, a GET that only reads
// the status, and wrk's figures.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Installs Debian's packages that provide `commands` when one of them is missing. */
export function ensureDebian(commands: Record<string, string>): void {
  const missing = Object.entries(commands).filter(([cmd]) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status !== 0).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  console.error(`installing ${missing.join(', ')} with apt-get`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

const probe = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** A GET whose body is read and dropped: its status. */
export function get(url: string, agent: http.Agent | false = probe): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
  });
}

export interface ReferenceNginx {
  /** the fixed-answer backend's port */
  backend: number;
  /** the hand-written reverse proxy's port */
  proxy: number;
  pid: number;
  stop(): void;
}

/**
 * One nginx: the backend (a fixed answer) and, written by hand, a reverse proxy to it with keep-alive
 * upstream connections, whose `location` block is the caller's (upstream `echo` is the backend).
 * Answers once `probePath` through the proxy is a 200.
 */
export async function startReferenceNginx(location: string, probePath: string): Promise<ReferenceNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'sy-bench-nginx-'));
  const backend = await freePort();
  const proxy = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  upstream echo { server 127.0.0.1:${backend}; keepalive 128; }
  server { listen 127.0.0.1:${backend}; location / { default_type text/plain; return 200 "ok\\n"; } }
  server {
    listen 127.0.0.1:${proxy};
    ${location}
  }
}
`);
  // master_process off: one process that is the worker, so that nginx serves from one core as the proxy under test does
  const child = spawn('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (await get(`http://127.0.0.1:${proxy}${probePath}`).then((r) => r.status === 200, () => false)) break;
    await sleep(50);
  }
  return { backend, proxy, pid: child.pid!, stop: () => void child.kill('SIGTERM') };
}

/** wrk's requests/s, p99 latency (ms) and errors (non-2xx/3xx answers and socket errors) for `seconds` at `connections`. */
export function wrk(url: string, connections: number, seconds: number): { rps: number; p99: number; errors: number } {
  const out = execFileSync('wrk', ['-t', '2', '-c', String(connections), '-d', `${seconds}s`, '--latency', url], { encoding: 'utf8' });
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1]);
  const m = out.match(/\s99%\s+([\d.]+)(us|ms|s)\b/);
  const p99 = m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : NaN;
  const errs = out.match(/Non-2xx or 3xx responses:\s+(\d+)/);
  const sock = out.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const errors = Number(errs?.[1] ?? 0) + (sock ? sock.slice(1).reduce((n, x) => n + Number(x), 0) : 0);
  return { rps, p99, errors };
}
