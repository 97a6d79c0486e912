// An older commit's service beside ours in one benchmark run (BENCH_BASELINE=<commit>), so that a
// regression shows as a ratio of two figures taken in the same minutes on the same machine rather
// than against a figure of another day. The commit's tree is unpacked under the temporary
// directory, installed (npm ci) and, when it has scripts/build.ts, built: once per commit id, reused
// by later runs. Its processes run as its own package.json scripts ran them then (node flags,
// malloc settings, dist/ or tsx), from its own directory.
import { execFileSync, execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../test/support/process';

export interface BaselineTree {
  commit: string;
  root: string;
}

export interface BaselineProcess {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** The commit `ref` names, unpacked, installed and built under the temporary directory (cached by commit id). */
export function baselineTree(ref: string): BaselineTree {
  const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  const root = join(tmpdir(), 'switchyard-bench-baseline', commit);
  const ready = join(root, '.bench-ready');
  if (existsSync(ready)) return { commit, root };
  console.error(`# preparing baseline ${commit.slice(0, 7)} in ${root} (npm ci and build; kept for later runs)`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  execSync(`git -C '${ROOT}' archive ${commit} | tar -x -C '${root}'`, { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (existsSync(join(root, 'scripts/build.ts'))) execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return { commit, root };
}

/**
 * How the tree's npm script `name` starts node: the environment before the command, then node's
 * flags and entry (`node FLAGS dist/main.js`) or tsx's (`tsx src/main.ts` is node through tsx's loader).
 */
export function scriptCommand(tree: BaselineTree, name: 'api' | 'worker'): { env: Record<string, string>; argv: string[] } {
  const scripts = (JSON.parse(readFileSync(join(tree.root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const tokens = scripts[name].split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  while (tokens.length && /^[A-Z_][A-Z0-9_]*=/.test(tokens[0])) {
    const [k, v] = tokens.shift()!.split('=', 2);
    env[k] = v;
  }
  const command = tokens.shift();
  if (command === 'node') return { env, argv: tokens };
  if (command === 'tsx') return { env, argv: ['--import', 'tsx', ...tokens] };
  throw new Error(`the baseline's "${name}" script runs ${command}, which this benchmark cannot start`);
}

/** The tree's `npm run api` (or worker) as a process of its own; resolved once /healthz answers (the api) or it logs that it runs (the worker). */
export async function startBaseline(tree: BaselineTree, name: 'api' | 'worker', env: Record<string, string | undefined>): Promise<BaselineProcess> {
  const { env: scriptEnv, argv } = scriptCommand(tree, name);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  delete clean.SERVICE_FROM_DIST;
  const flags = (process.env.SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  // the entry is the first argument that is not a flag (a flag's value follows it with = or is the tsx loader)
  const entry = argv.findIndex((a, k) => !a.startsWith('-') && argv[k - 1] !== '--import');
  const child = spawn(process.execPath, [...argv.slice(0, entry), ...flags, ...argv.slice(entry)], {
    cwd: tree.root,
    env: { ...clean, ...scriptEnv, PORT: String(port), HOST: '127.0.0.1', WORKER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`baseline ${name} exited (${child.exitCode}):\n${out}`);
    if (name === 'worker' ? out.includes('worker running') : await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`baseline ${name} did not start within 120 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child, url,
    stop: () => new Promise((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
    }),
  };
}
