// `switchyard` in a checkout runs the bundle when dist/ is the build of the files as they are, and the
// sources through tsx otherwise, saying nothing about it; `npm start`s started at the same moment in one
// checkout build dist/ once between them and all come up. Each case works on a copy of the checkout
// (its own dist/, node_modules linked), so the worktree's dist/ is never touched.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/process';
import { tempDir } from '../support/temp-dir';

const COPIED = ['src', 'console', 'workers', 'scripts', 'bin', 'prisma', 'package.json', 'package-lock.json', 'tsconfig.json', 'prisma.config.ts'];

function checkout(): string {
  const dir = tempDir('sy-checkout-');
  for (const p of COPIED) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** The environment of a process started here: no database or Redis of the test run's, no tsx loader. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'NODE_OPTIONS', 'SWITCHYARD_URL', 'SWITCHYARD_TOKEN']) delete env[k];
  return { ...env, ...extra };
}

function build(dir: string): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: dir, env: cleanEnv(), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the build failed:\n${r.stdout}\n${r.stderr}`);
}

function switchyard(dir: string, args: string[]) {
  const r = spawnSync(process.execPath, [join(dir, 'bin/switchyard.js'), ...args], { cwd: tempDir('sy-cwd-'), env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the switchyard launcher in a checkout', () => {
  let dir: string;
  beforeAll(() => {
    dir = checkout();
    build(dir);
    // the outputs are not in the stamp: a bundle that says where it runs from, and is still current
    writeFileSync(join(dir, 'dist/cli.js'), "process.stdout.write('ran dist/cli.js ' + process.argv.slice(2).join(' ') + '\\n');\n");
  }, 180_000);

  it('runs the bundle when dist/ is current', () => {
    const r = switchyard(dir, ['get', 'gateways']);
    expect(r).toEqual({ code: 0, stdout: 'ran dist/cli.js get gateways\n', stderr: '' });
  });

  it('runs the sources, silently, once a source changed since the build', () => {
    appendFileSync(join(dir, 'src/cli/kinds.ts'), '\n// edited after the build\n');
    const r = switchyard(dir, ['--help']);
    expect(r.stdout).not.toContain('ran dist/cli.js');
    expect(r.stdout).toContain('Usage: switchyard COMMAND');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  it('runs the sources, silently, for a user who never built', () => {
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    const r = switchyard(dir, ['--help']);
    expect(r.stdout).toContain('Usage: switchyard COMMAND');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);
});

describe('two `npm start`s at the same moment in one checkout', () => {
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((r) => c.once('exit', r));
      try {
        process.kill(-c.pid!, 'SIGTERM'); // npm, its shell and node: the group this test started
      } catch {
        /* gone */
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    }
  }, 60_000);

  it('build dist/ once between them, and both come up', async () => {
    const dir = checkout(); // never built: both starts find dist/ stale
    expect(existsSync(join(dir, 'dist'))).toBe(false);
    const outputs = ['', ''];
    const start = (i: number) => {
      const c = spawn('npm', ['start'], {
        cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
        env: cleanEnv({ PORT: '0', XDS_PORT: '0', WORKER_PORT: '0', HOST: '127.0.0.1', SWITCHYARD_DATA_DIR: tempDir('sy-data-'), ADMIN_TOKEN: 'test-admin-token-0123456789', LOG_LEVEL: 'info' }),
      });
      c.stdout!.on('data', (d) => (outputs[i] += d));
      c.stderr!.on('data', (d) => (outputs[i] += d));
      children.push(c);
      return c;
    };
    const both = [start(0), start(1)];
    const ports = await Promise.all(both.map(async (c, i) => {
      const deadline = Date.now() + 240_000;
      for (;;) {
        const m = outputs[i].match(/"port":(\d+)[^\n]*switchyard listening/);
        if (m) return Number(m[1]);
        if (c.exitCode !== null) throw new Error(`npm start ${i} exited (${c.exitCode}):\n${outputs[i]}`);
        if (Date.now() > deadline) throw new Error(`npm start ${i} did not come up:\n${outputs[i]}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }));
    for (const port of ports) {
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        status = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
        if (status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status, outputs.join('\n----\n')).toBe(200);
    }
    const builds = outputs.join('\n').match(/^built dist\//gm) ?? [];
    expect(builds.length, outputs.join('\n----\n')).toBe(1);
    expect(outputs.join('\n')).not.toMatch(/Cannot find module|ENOENT|ENOTEMPTY/);
  }, 360_000);
});
