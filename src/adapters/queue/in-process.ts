// The embedded mode's queue: a set of pending keys drained by a few async loops in this process.
// A key that fails five times in a row is dropped here; the sweep (sweep.ts) asks for it again
// once the store shows it still behind (after a PostgreSQL outage, say).
import type { Processor, QueueCounts, ReconcileQueue } from './types';
import { Holdoff, type HoldoffOptions } from './holdoff';

export class InProcessQueue implements ReconcileQueue {
  private pending = new Set<string>();
  private running = new Set<string>();
  private again = new Set<string>();
  private wanted = new Map<string, number>();
  private processor: Processor | null = null;
  private active = 0;
  private closed = false;
  private waiters: (() => void)[] = [];
  /** keys whose run is held back while they are hot, or spaced from their last run */
  private held = new Set<string>();
  private spaced = new Set<NodeJS.Timeout>();
  /** when the oldest request not yet taken by a run was made, per key */
  private since = new Map<string, number>();
  private readonly holdoff: Holdoff;

  constructor(private readonly concurrency = 2, private readonly onError: (key: string, err: unknown) => void = () => undefined, holdoff?: HoldoffOptions) {
    this.holdoff = new Holdoff((key) => {
      this.held.delete(key);
      if (this.running.has(key)) this.again.add(key);
      else this.pending.add(key);
      this.pump();
    }, holdoff);
  }

  async request(keys: string[], position: number, streaming = false): Promise<void> {
    const decisions = this.holdoff.batch(keys, streaming);
    const now = Date.now();
    keys.forEach((k, i) => {
      this.wanted.set(k, Math.max(this.wanted.get(k) ?? -1, position));
      if (!this.since.has(k)) this.since.set(k, now);
      const d = decisions[i];
      if (d.run !== 'now') this.held.add(k);
      else if (this.running.has(k)) this.again.add(k);
      else this.pending.add(k);
    });
    this.pump();
  }

  async retry(entries: { key: string; position: number }[]): Promise<void> {
    for (const { key, position } of entries) {
      this.wanted.set(key, Math.max(this.wanted.get(key) ?? -1, position));
      if (this.running.has(key)) this.again.add(key);
      else if (!this.held.has(key)) this.pending.add(key);
    }
    this.pump();
  }

  start(processor: Processor): void {
    this.processor = processor;
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.processor && this.active < this.concurrency) {
      const next = [...this.pending].find((k) => !this.running.has(k));
      if (!next) break;
      this.pending.delete(next);
      this.running.add(next);
      this.active++;
      const queuedAt = this.since.get(next);
      this.since.delete(next);
      void this.run(next, queuedAt);
    }
    if (this.active === 0 && this.pending.size === 0 && this.held.size === 0) for (const w of this.waiters.splice(0)) w();
  }

  private async run(key: string, queuedAt: number | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const started = performance.now();
        const served = await this.processor!(key, this.wanted.get(key), queuedAt);
        this.holdoff.ran(key, performance.now() - started);
        if (served.again) this.again.add(key);
        break;
      } catch (err) {
        this.onError(key, err);
        if (attempt >= 4 || this.closed) break;
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
    this.running.delete(key);
    this.active--;
    // a request that came while it ran: again now, when the key's hold ends, or spaced from this
    // run while the log streams with the key in it
    if (this.again.delete(key) && !this.held.has(key)) {
      if (!this.since.has(key)) this.since.set(key, Date.now());
      const delay = this.holdoff.rerunDelay(key);
      if (delay > 0) this.later(key, delay);
      else this.pending.add(key);
    }
    this.pump();
  }

  /** Runs the key after `delay` ms, counted as held until then. */
  private later(key: string, delay: number): void {
    this.held.add(key);
    const timer = setTimeout(() => {
      this.spaced.delete(timer);
      if (!this.held.delete(key) || this.closed) return;
      if (this.running.has(key)) this.again.add(key);
      else this.pending.add(key);
      this.pump();
    }, delay);
    this.spaced.add(timer);
  }

  async idle(): Promise<boolean> {
    return this.active === 0 && this.pending.size === 0 && this.held.size === 0;
  }

  async counts(): Promise<QueueCounts> {
    return { waiting: this.pending.size, active: this.running.size, delayed: this.held.size };
  }

  isRunning(): boolean {
    return !this.closed && this.processor !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.holdoff.close();
    for (const t of this.spaced) clearTimeout(t);
    this.spaced.clear();
    this.held.clear();
    if (this.active > 0) await new Promise<void>((r) => this.waiters.push(r));
  }
}
