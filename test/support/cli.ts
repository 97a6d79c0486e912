// Runs the `switchyard` binary (bin/switchyard.js) as a separate process, as a user would.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './process';

const BIN = join(ROOT, 'bin/switchyard.js');

export interface Run { code: number | null; stdout: string; stderr: string }

export interface RunOptions { env?: Record<string, string>; stdin?: string; timeoutMs?: number }

/** `base` is the environment of every run (the server's URL and token); `opts.env` adds to it. */
export function runCli(base: () => Record<string, string>, args: string[], opts: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: tmpdir(),
      env: { ...process.env, ...base(), ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`switchyard ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}
