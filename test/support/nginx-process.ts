// Runs `switchyard nginx` as its own process (it runs nginx under a prefix of its own, in a
// temporary directory), and finds its admin port in its start-up log line.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './process';

export interface NginxAgentProcess {
  child: ChildProcess;
  admin: string;
  prefix: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startNginxAgentProcess(apiUrl: string, token: string, args: string[], env: Record<string, string> = {}): Promise<NginxAgentProcess> {
  const prefix = mkdtempSync(join(tmpdir(), 'sy-nginx-'));
  const child = spawn(process.execPath, [join(ROOT, 'bin/switchyard.js'), 'nginx', '--host', '127.0.0.1', '--admin-port', '0', '--prefix', prefix, '--worker-processes', '1', ...args], {
    cwd: ROOT, env: { ...process.env, SWITCHYARD_URL: apiUrl, SWITCHYARD_TOKEN: token, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 30_000;
  let admin = '';
  while (!admin) {
    const m = out.match(/"adminPort":(\d+).*switchyard nginx started/);
    if (m) admin = `http://127.0.0.1:${m[1]}`;
    else if (child.exitCode !== null) throw new Error(`switchyard nginx exited (${child.exitCode}):\n${out}`);
    else if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`switchyard nginx did not start:\n${out}`);
    } else await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child, admin, prefix, output: () => out,
    async stop(signal = 'SIGTERM') {
      const code = await new Promise<number | null>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (c) => resolve(c));
        child.kill(signal);
      });
      // a SIGKILLed agent leaves its nginx behind: the master's pid is in the prefix
      if (signal === 'SIGKILL') killNginx(prefix);
      if (!process.env.KEEP_NGINX_PREFIX) rmSync(prefix, { recursive: true, force: true });
      return code;
    },
  };
}

function killNginx(prefix: string): void {
  try {
    const pid = Number(readFileSync(join(prefix, 'nginx.pid'), 'utf8').trim());
    if (pid > 0) process.kill(pid, 'SIGTERM');
  } catch {
    // no nginx ran, or it is gone
  }
}
