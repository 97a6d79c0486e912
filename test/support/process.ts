// Runs the service as a separate process, as `npm start` would.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { ENTRIES } from '../../scripts/build';

export const ROOT = join(import.meta.dirname, '../..');

/**
 * The node flags an npm script starts node with (package.json), so that a benchmark's service runs
 * as a deployed one does: `npm start` and `npm run worker` give a young generation of 4 MB, which
 * keeps resident memory near what the heap holds (with V8's default of 16 MB the heap grown in a
 * burst was not given back), and every script one thread for V8's background work (README, "The
 * engine's background threads").
 */
export function scriptNodeFlags(script: 'start' | 'api' | 'worker'): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return nodeFlagsOf(pkg.scripts[script].split(' '));
}

/** The flags a command line gives node itself: those between `node` and the script it runs. */
export function nodeFlagsOf(argv: readonly string[]): string[] {
  const rest = argv.slice(argv.indexOf('node') + 1);
  const script = rest.findIndex((a) => !a.startsWith('--'));
  return rest.slice(0, script < 0 ? rest.length : script);
}

export const workerNodeFlags = (): string[] => scriptNodeFlags('worker');

/**
 * The environment an npm script sets before node (package.json): glibc's malloc settings, which
 * keep resident memory near what the process holds (see the Dockerfile).
 */
export function scriptEnv(script: 'start' | 'api' | 'worker'): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const tokens = pkg.scripts[script].split(' ');
  return Object.fromEntries(tokens.slice(0, tokens.indexOf('node')).map((t) => t.split('=', 2) as [string, string]));
}

/**
 * How node is told to run `script`: through tsx from the sources, or with SERVICE_FROM_DIST=1 the
 * bundle `npm run build` made of it (dist/), as `npm start` and `npm run worker` run it (no
 * compiler in the process: the benchmarks measure what is deployed).
 */
function entryArgs(script: string): string[] {
  const bundle = Object.entries(ENTRIES).find(([, source]) => source === script)?.[0];
  if (process.env.SERVICE_FROM_DIST === '1' && bundle) return [join(ROOT, 'dist', `${bundle}.js`)];
  return ['--import', 'tsx', join(ROOT, script)];
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A port to try: from TEST_PORTS ("<first>-<last>") when set, for a machine whose users share out
 * port ranges, else from 20000-39999.
 */
export function randomPort(): number {
  const m = /^(\d+)-(\d+)$/.exec(process.env.TEST_PORTS ?? '');
  const [first, last] = m ? [Number(m[1]), Number(m[2])] : [20000, 39999];
  return first + Math.floor(Math.random() * (last - first + 1));
}

/** `portVariable`: the setting that names the port /healthz is answered on (WORKER_PORT for the worker). */
export async function startProcess(env: Record<string, string | undefined>, script = 'src/main.ts', args: string[] = [], portVariable = 'PORT', nodeFlags: string[] = []): Promise<ServiceProcess> {
  // a random port may be taken by something else on the machine: try a few
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOnce(env, script, args, randomPort(), portVariable, nodeFlags);
    } catch (e) {
      if (attempt >= 4 || !/EADDRINUSE|is in use by another process/.test(String((e as Error).message))) throw e;
    }
  }
}

async function startOnce(env: Record<string, string | undefined>, script: string, args: string[], port: number, portVariable: string, nodeFlags: string[]): Promise<ServiceProcess> {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  // SERVICE_NODE_FLAGS (for example --cpu-prof) reach the service's node, which NODE_OPTIONS may not
  const flags = (process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlags, ...flags, ...entryArgs(script), ...args], {
    cwd: ROOT,
    // XDS_PORT 0: several services run at once; a test that wants the xDS server names a port
    env: { ...clean, [portVariable]: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', XDS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      // a service left starting would outlive the test (three did, on a machine loaded past 15)
      child.kill('SIGKILL');
      throw new Error(`service did not start within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child, url, output: () => out,
    stop(signal = 'SIGTERM') {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode); // a process a signal ended has no exit code, and will not exit again
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * `npm run worker` as its own process (node flags as package.json gives them), resolved once it
 * logs that it runs (or, with `started`, once its output matches that).
 */
export async function startWorkerProcess(env: Record<string, string | undefined>, started: RegExp = /switchyard worker running/): Promise<WorkerProcess> {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  const flags = (process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...workerNodeFlags(), ...flags, ...entryArgs('workers/reconcile.ts')], {
    // WORKER_PORT 0: several workers run at once, and none needs its metrics port here
    cwd: ROOT, env: { ...clean, ...scriptEnv('worker'), LOG_LEVEL: 'info', WORKER_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!started.test(out)) {
    if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child, output: () => out,
    stop(signal = 'SIGTERM') {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}
