// The rendered configuration on disk. Every file is written to a temporary name and renamed into
// place (a reader sees the old file or the new one, never half of one); files named by the digest of
// their content are written only when absent, so an unchanged part is not touched. Certificates and
// keys get mode 0600. nginx.conf is written last, as nginx.conf.next, checked with `nginx -t`, and
// renamed over nginx.conf only when nginx accepts it. Files no configuration uses any more are removed.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NginxRender } from '../core/nginx';

export const CONF = 'nginx.conf';
const DIRS = ['logs', 'run', 'tmp', 'certs', 'ca'];

export function prepareDir(dir: string): void {
  // nginx's workers (user nobody when the master runs as root) connect to the sockets under run/:
  // the prefix must let them through; certs/ stays the master's, which reads certificates itself
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const d of DIRS) mkdirSync(join(dir, d), { recursive: true, mode: d === 'certs' ? 0o700 : 0o755 });
}

function atomicWrite(path: string, content: string, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, path);
}

/** Writes the files the candidate (`conf`.next) includes, then the candidate itself; returns its path. */
export function writeCandidate(dir: string, r: NginxRender, conf = join(dir, CONF)): string {
  prepareDir(dir);
  for (const f of r.files) {
    const path = join(dir, f.name);
    if (!existsSync(path)) atomicWrite(path, f.content, f.secret ? 0o600 : 0o644);
  }
  const next = `${conf}.next`;
  atomicWrite(next, r.main, 0o644);
  return next;
}

/** The candidate becomes the configuration nginx runs. */
export function promote(conf: string): void {
  renameSync(`${conf}.next`, conf);
}

/** Removes the rendered files neither of these configurations uses. */
export function collect(dir: string, keep: readonly NginxRender[]): void {
  const used = new Set(keep.flatMap((r) => r.files.map((f) => f.name)));
  for (const top of readdirSync(dir)) {
    if (/^(table|http|stream|stream-upstreams|upstreams)-[0-9a-f]{16}\.(js|conf)$/.test(top) && !used.has(top)) rmSync(join(dir, top), { force: true });
  }
  for (const sub of ['certs', 'ca']) {
    if (!existsSync(join(dir, sub))) continue;
    for (const f of readdirSync(join(dir, sub))) if (!used.has(`${sub}/${f}`)) rmSync(join(dir, sub, f), { force: true });
  }
}

export interface CommandResult {
  ok: boolean;
  output: string;
}

export function runNginx(bin: string, args: string[], timeoutMs = 60_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(bin, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ ok: !err, output: `${stdout}${stderr}`.trim() });
    });
  });
}

/** `nginx -t` on a configuration file; its message when nginx refuses it. */
export async function nginxTest(bin: string, dir: string, conf: string): Promise<string | undefined> {
  const r = await runNginx(bin, ['-t', '-q', '-p', dir, '-c', conf]);
  return r.ok ? undefined : r.output.split('\n').filter((l) => !/test failed/.test(l)).join('\n') || 'nginx -t failed';
}
