// Runs the reference proxy as its own process, as `switchyard proxy` runs, and finds its admin port
// in its start-up log line.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './process';

export interface ProxyProcess {
  child: ChildProcess;
  admin: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startProxyProcess(apiUrl: string, token: string, args: string[], env: Record<string, string> = {}): Promise<ProxyProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/switchyard.js'), 'proxy', '--host', '127.0.0.1', '--admin-port', '0', ...args], {
    cwd: ROOT, env: { ...process.env, SWITCHYARD_URL: apiUrl, SWITCHYARD_TOKEN: token, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 30_000;
  let admin = '';
  while (!admin) {
    const m = out.match(/"adminPort":(\d+).*switchyard proxy started/);
    if (m) admin = `http://127.0.0.1:${m[1]}`;
    else if (child.exitCode !== null) throw new Error(`the proxy exited (${child.exitCode}):\n${out}`);
    else if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the proxy did not start:\n${out}`);
    } else await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child, admin, output: () => out,
    stop(signal = 'SIGTERM') {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode); // a process a signal ended has no exit code, and will not exit again
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}
