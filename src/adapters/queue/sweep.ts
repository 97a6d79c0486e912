// What the queue forgets, the store still knows. A request lives in Redis (or in this process)
// until its recompute runs; Redis restarted empty, a job given up during a PostgreSQL outage, or a
// request lost between a hold and its run leave nothing there, while the store still shows the key
// wanted above what its last recompute read. The sweep reads those keys every SWEEP_MS and asks
// again for each that made no progress since the sweep before (its wanted position unchanged and
// still unserved): a key in a burst or in a queue that is merely busy is left alone, and a lost one
// runs again within two sweeps. A key that stays behind however often it is asked (a recompute
// that fails on every run) is asked for less and less often, down to once every MAX_PAUSE_MS.
import type { Database } from '../store/database';
import { keysBehind, type KeyBehind } from '../store/keys-behind';
import type { ReconcileQueue } from './types';

const SWEEP_MS = 1000;
const MAX_PAUSE_MS = 60_000;
/** keys read per sweep, oldest wanted first: a larger backlog is taken a page at a time */
const PAGE = 1000;

interface Seen {
  position: number;
  /** when it may next be asked for, and the pause after that */
  next: number;
  pause: number;
}

export interface SweepOptions {
  scope: string;
  onRetry?: (keys: KeyBehind[]) => void;
  onError?: (err: unknown) => void;
}

export class BehindSweep {
  private readonly seen = new Map<string, Seen>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly db: Database, private readonly queue: ReconcileQueue, private readonly opts: SweepOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().then(() => undefined, (e: unknown) => this.opts.onError?.(e)).finally(() => (this.running = null));
    }, SWEEP_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep: the keys asked for again. */
  async sweep(now = performance.now()): Promise<KeyBehind[]> {
    const behind = await keysBehind(this.db, this.opts.scope, PAGE);
    const due: KeyBehind[] = [];
    const still = new Set<string>();
    for (const b of behind) {
      still.add(b.key);
      const s = this.seen.get(b.key);
      if (!s || s.position !== b.position) {
        // new, or asked for again since: its requests are moving
        this.seen.set(b.key, { position: b.position, next: now, pause: SWEEP_MS });
        continue;
      }
      if (now >= s.next) due.push(b);
    }
    // caught up (or beyond the page: it is seen afresh when it comes back into it)
    for (const k of this.seen.keys()) if (!still.has(k)) this.seen.delete(k);
    if (due.length === 0) return due;
    // only a request the queue took counts towards the pause (while Redis is away, none does)
    await this.queue.retry(due);
    for (const b of due) {
      const s = this.seen.get(b.key)!;
      s.next = now + s.pause;
      s.pause = Math.min(MAX_PAUSE_MS, s.pause * 2);
    }
    this.opts.onRetry?.(due);
    return due;
  }
}
