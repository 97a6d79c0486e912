// `npm start`'s reconcile worker on a thread of its own (src/worker-thread.ts), when PostgreSQL and
// Redis are set: a recompute no longer holds up the API's requests, and the two use the machine's
// cores side by side, as `npm run api` and `npm run worker` do. A thread that dies is started again
// (the queue and the dispatcher's checkpoint are in Redis and PostgreSQL: nothing is lost, what was
// in flight runs again).
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { spawnThread } from './threads';

export type ToThread = { type: 'metrics'; id: number } | { type: 'stop' };
export type FromThread = { type: 'ready' } | { type: 'metrics'; id: number; text: string } | { type: 'stopped' };

/** how long the worker's jobs in flight may take to finish when the process stops */
const STOP_GRACE_MS = 10_000;
/** how long an answer for metrics may take before /metrics goes on without the worker's */
const METRICS_TIMEOUT_MS = 2_000;
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;

export class ReconcileThread {
  private thread: Worker | null = null;
  private ready = false;
  private closing: Promise<void> | null = null;
  private nextId = 0;
  private readonly asked = new Map<number, (text: string) => void>();
  private restartMs = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | null = null;

  constructor(private readonly logger: Logger) {
    this.spawn();
  }

  /** The worker's metrics in the text format, or '' while it is not running. */
  metrics(): Promise<string> {
    const t = this.thread;
    if (!t || !this.ready) return Promise.resolve('');
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.asked.delete(id);
        resolve('');
      }, METRICS_TIMEOUT_MS);
      this.asked.set(id, (text) => {
        clearTimeout(timer);
        resolve(text);
      });
      t.postMessage({ type: 'metrics', id } satisfies ToThread);
    });
  }

  /** Lets the jobs in flight finish (at most STOP_GRACE_MS), then ends the thread. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.restartTimer) clearTimeout(this.restartTimer);
      const t = this.thread;
      if (!t) return;
      const exited = new Promise<void>((resolve) => t.once('exit', () => resolve()));
      t.postMessage({ type: 'stop' } satisfies ToThread);
      const grace = setTimeout(() => {
        this.logger.error({ graceMs: STOP_GRACE_MS }, 'the worker thread did not stop in time: ending it; unfinished jobs run again on the next start');
        void t.terminate();
      }, STOP_GRACE_MS);
      await exited;
      clearTimeout(grace);
    })();
    return this.closing;
  }

  private spawn(): void {
    const t = spawnThread('workerThread');
    this.thread = t;
    this.ready = false;
    t.on('message', (m: FromThread) => {
      if (m.type === 'ready') {
        this.ready = true;
        this.restartMs = RESTART_MIN_MS;
      } else if (m.type === 'metrics') {
        this.asked.get(m.id)?.(m.text);
        this.asked.delete(m.id);
      } else if (m.type === 'stopped') {
        void t.terminate();
      }
    });
    t.on('error', (err) => this.logger.error({ err }, 'the worker thread failed'));
    t.on('exit', (code) => {
      this.thread = null;
      this.ready = false;
      for (const answer of this.asked.values()) answer('');
      this.asked.clear();
      if (this.closing) return;
      this.logger.error({ code, restartInMs: this.restartMs }, 'the worker thread ended: starting it again');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.closing) this.spawn();
      }, this.restartMs);
      this.restartMs = Math.min(RESTART_MAX_MS, this.restartMs * 2);
    });
  }
}
