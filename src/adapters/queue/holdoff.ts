// When to run a key's recompute. A change on its own runs at once. A key asked for again and again
// (a GitOps sync or a deploy writing hundreds of routes onto one Gateway) is "hot": its run is then
// held until the requests pause for `quietMs`, but never longer than `maxMs`, so that it takes in
// the whole burst once instead of recomputing the Gateway after every write while the writes are
// still arriving and competing with them for the CPU. Only timing depends on this: every request is
// still recorded, and a later run serves it.

export interface HoldoffOptions {
  /** a key is hot when this many requests for it came within `windowMs` before this one */
  burst: number;
  windowMs: number;
  /** a held run starts once no request for its key came for this long */
  quietMs: number;
  /** and at the latest this long after it was held */
  maxMs: number;
  /** keys remembered at most (the least recently asked are forgotten first) */
  maxKeys?: number;
}

export const DEFAULT_HOLDOFF: HoldoffOptions = { burst: 3, windowMs: 100, quietMs: 30, maxMs: 1000 };

/** What to do with a request: run now, hold a new run (at most `maxMs` ms), or nothing (a held run takes it). */
export type HoldDecision = { run: 'now' } | { run: 'held'; maxMs: number } | { run: 'joined' };

interface KeyState {
  /** times of the last `burst` requests, oldest first */
  recent: number[];
  held: { since: number; timer: NodeJS.Timeout } | null;
}

export class Holdoff {
  private readonly keys = new Map<string, KeyState>();

  /** `release` is called when a held key's run should start. */
  constructor(
    private readonly release: (key: string) => void,
    private readonly opts: HoldoffOptions = DEFAULT_HOLDOFF,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `streaming`: the log is taking a burst of writes, so any key is held as if hot. */
  request(key: string, streaming = false): HoldDecision {
    const t = this.now();
    let s = this.keys.get(key);
    if (s) this.keys.delete(key); // re-inserted: the map stays in least-recently-asked order
    else s = { recent: [], held: null };
    this.keys.set(key, s);
    this.forget();
    const hot = streaming || (s.recent.length >= this.opts.burst && t - s.recent[0] <= this.opts.windowMs);
    s.recent.push(t);
    if (s.recent.length > this.opts.burst) s.recent.shift();
    if (s.held) {
      this.arm(key, s, t);
      return { run: 'joined' };
    }
    if (!hot) return { run: 'now' };
    s.held = { since: t, timer: undefined as unknown as NodeJS.Timeout };
    this.arm(key, s, t);
    return { run: 'held', maxMs: this.opts.maxMs };
  }

  /** How long until a held key's run is due at the latest, or null when it is not held. */
  heldFor(key: string): number | null {
    const h = this.keys.get(key)?.held;
    return h ? Math.max(0, h.since + this.opts.maxMs - this.now()) : null;
  }

  close(): void {
    for (const s of this.keys.values()) if (s.held) clearTimeout(s.held.timer);
    this.keys.clear();
  }

  private arm(key: string, s: KeyState, t: number): void {
    const h = s.held!;
    clearTimeout(h.timer);
    const wait = Math.max(0, Math.min(t + this.opts.quietMs, h.since + this.opts.maxMs) - t);
    h.timer = setTimeout(() => this.fire(key), wait);
  }

  private fire(key: string): void {
    const s = this.keys.get(key);
    if (!s?.held) return;
    s.held = null;
    this.release(key);
  }

  private forget(): void {
    const max = this.opts.maxKeys ?? 10_000;
    for (const [k, s] of this.keys) {
      if (this.keys.size <= max) break;
      this.keys.delete(k);
      if (s.held) {
        clearTimeout(s.held.timer);
        this.release(k);
      }
    }
  }
}
