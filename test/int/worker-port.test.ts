// Several `npm run worker`s on one machine all start: with WORKER_PORT not set, a worker whose default
// port (9091) another process holds serves /healthz, /readyz and /metrics on the next free port and
// says which; a WORKER_PORT that is set is that port, or a one-line error and exit 1.
import { afterAll, describe, expect, it } from 'vitest';
import { startWorkerProcess, type WorkerProcess } from '../support/process';
import { tempDir } from '../support/temp-dir';

const started: WorkerProcess[] = [];

// the worker binds its port before it opens its database, and logs the port it took
const BOUND = /"port":(\d+)[^\n]*serving \/healthz, \/readyz and \/metrics/;

/** A worker on an embedded database of its own (the port is what is under test), WORKER_PORT as given. */
async function worker(workerPort: string): Promise<{ w: WorkerProcess; port: number }> {
  const w = await startWorkerProcess({ WORKER_PORT: workerPort, SWITCHYARD_DATA_DIR: tempDir('sy-worker-port-') }, BOUND);
  started.push(w);
  const m = BOUND.exec(w.output());
  if (!m) throw new Error(`no port in the worker's log:\n${w.output()}`);
  return { w, port: Number(m[1]) };
}

afterAll(async () => {
  for (const w of started) await w.stop();
});

describe("the worker's port on a machine with several workers", () => {
  it('takes the next free port after 9091 when WORKER_PORT is not set, and logs it', async () => {
    const a = await worker('');
    const b = await worker('');
    expect(a.port).toBeGreaterThanOrEqual(9091);
    expect(b.port).toBeGreaterThan(9091);
    expect(b.port).toBeLessThan(9191);
    expect(b.port).not.toBe(a.port);
    // b did not get 9091 (a or another process holds it): it says so, and where it went
    expect(b.w.output()).toContain(`port 9091 is in use (another worker on this machine?): serving /healthz, /readyz and /metrics on ${b.port}; set WORKER_PORT to choose the port`);
    for (const { port } of [a, b]) {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ status: 'ok' });
    }
  }, 120_000);

  it('refuses a WORKER_PORT that is set and in use, in one line, exit 1', async () => {
    const held = BOUND.exec(started[0].output())![1];
    const e = await worker(held).then(() => null, (err: Error) => err);
    expect(e?.message).toMatch(/worker exited \(1\)/);
    expect(e?.message).toMatch(new RegExp(`switchyard worker: port ${held}( on \\S+)? is in use by another process: stop it, or set WORKER_PORT\\n`));
  }, 60_000);
});
