// Starting where something is already in the way: the embedded data folder of a running process, or
// a port another process listens on. Each is one line on stderr and exit code 1, and the process
// that was there first keeps working.
import { expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startProcess } from '../support/process';
import { client } from '../support/server';
import { tempDir } from '../support/temp-dir';

const TOKEN = 'startup-token-0123456789';

/** Runs `npm start`'s entry to its end: its exit code and what it wrote on stderr. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  delete clean.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
    cwd: ROOT, env: { ...clean, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_TOKEN: TOKEN, XDS_PORT: '0', ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.once('exit', (code) => {
    clearTimeout(timer);
    resolve({ code, stderr });
  }));
}

it('refuses a data folder in use and a port in use with one line each, and the first process keeps its data', async () => {
  const dir = tempDir('sy-lock-');
  const first = await startProcess({ SWITCHYARD_DATA_DIR: dir, ADMIN_TOKEN: TOKEN });
  try {
    const api = client(first.url, TOKEN);
    expect((await api('PUT', '/api/v1/namespaces/default/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } })).status).toBe(201);

    const port = String(30000 + Math.floor(Math.random() * 20000));
    const sameFolder = await runToExit({ SWITCHYARD_DATA_DIR: dir, PORT: port });
    expect(sameFolder.code).toBe(1);
    expect(sameFolder.stderr).toMatch(new RegExp(`^switchyard: the data folder .*pgdata is in use by process ${first.child.pid}: stop it, or give this one another SWITCHYARD_DATA_DIR\\n$`));

    const samePort = await runToExit({ SWITCHYARD_DATA_DIR: tempDir('sy-port-'), PORT: new URL(first.url).port });
    expect(samePort.code).toBe(1);
    expect(samePort.stderr).toBe(`switchyard: port ${new URL(first.url).port} on 127.0.0.1 is in use by another process: stop it, or set PORT\n`);

    expect((await api('GET', '/api/v1/namespaces/default/services/web')).status).toBe(200);
  } finally {
    expect(await first.stop('SIGTERM')).toBe(0);
  }

  // the lock goes with its process; one left by a process that is gone is taken over
  writeFileSync(join(dir, 'pgdata.lock'), '999999999');
  const again = await startProcess({ SWITCHYARD_DATA_DIR: dir, ADMIN_TOKEN: TOKEN });
  try {
    expect((await client(again.url, TOKEN)('GET', '/api/v1/namespaces/default/services/web')).status).toBe(200);
  } finally {
    expect(await again.stop('SIGTERM')).toBe(0);
  }
}, 120_000);
