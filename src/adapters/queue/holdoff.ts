// When to run a key's recompute. A change on its own runs at once. A key asked for again and again
// (a GitOps sync or a deploy writing hundreds of routes onto one Gateway), or asked for twice while
// the log takes a burst of writes, is held, so that it takes in the whole burst in one run instead of
// recomputing its Gateway after every write while the writes still arrive and compete with them
// for the CPU. Only timing depends on this: every request is still recorded, and a later run
// serves it.
//
// A held key runs once it drops out of the stream (the dispatcher's last `missedBatches` batches
// did not ask for it), once the stream pauses (no batch for `quietMs`, or for twice the spacing of
// its last two batches when that is longer), or `maxMs` after it was
// held, whichever comes first. Counting batches rather than time keeps a key held through the
// stream's hiccups (a pause of the writers, a slow batch), which would otherwise release it again
// and again.
//
// A held key whose last run took long (a Gateway of thousands of routes) is not released by a
// pause or a miss until twice that run's time has passed since it ended (its `maxMs` still
// holds): a run that blocks the process (api and worker in one) makes its own pause, and would
// otherwise be followed by the next at once, and the writes would get what is left between runs.

export interface HoldoffOptions {
  /** a key is hot when this many batches asked for it within `windowMs` before this one */
  burst: number;
  windowMs: number;
  missedBatches: number;
  quietMs: number;
  maxMs: number;
  /** keys remembered at most (the least recently asked are forgotten first) */
  maxKeys?: number;
}

export const DEFAULT_HOLDOFF: HoldoffOptions = { burst: 5, windowMs: 100, missedBatches: 3, quietMs: 40, maxMs: 1000 };

/** What to do with a request: run now, hold a new run (at most `maxMs` ms), or nothing (a held run takes it). */
export type HoldDecision = { run: 'now' } | { run: 'held'; maxMs: number } | { run: 'joined' };

interface KeyState {
  /** times of the last `burst` requests, oldest first */
  recent: number[];
  /** the number of the last batch that asked for it */
  lastBatch: number;
  held: { since: number; misses: number; timer: NodeJS.Timeout } | null;
  /** until when a pause or a miss does not release it (see ran) */
  coolUntil: number;
}

/** a pause of the stream is this many times the spacing of its last two batches (quietMs at least) */
const PAUSE_FACTOR = 2;

/** how many times its last run's duration a held key waits after that run before a pause releases it */
const COOL_FACTOR = 2;

export class Holdoff {
  private readonly keys = new Map<string, KeyState>();
  private readonly held = new Set<string>();
  private quiet: NodeJS.Timeout | null = null;
  private batches = 0;
  /** whether the log was streaming at the last batch, and when that batch came */
  private lastStreaming = false;
  private lastBatchAt = -Infinity;
  /** how long without a batch is a pause of the stream (see batch) */
  private quietFor: number;

  /** `release` is called when a held key's run should start. */
  constructor(
    private readonly release: (key: string) => void,
    private readonly opts: HoldoffOptions = DEFAULT_HOLDOFF,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.quietFor = opts.quietMs;
  }

  /**
   * One batch of the dispatcher: the keys it asks for (a decision for each), and whether the log
   * is streaming (a burst of writes is arriving): then a key asked for again is held at once.
   */
  batch(keys: readonly string[], streaming = false): HoldDecision[] {
    const t = this.now();
    this.batches++;
    // A pause is counted in batches' spacing, not in fixed time: a busy process (its recomputes
    // running, a collection) reads batches further apart than quietMs while the writes go on, and
    // the stream is not over because one batch was small.
    this.quietFor = Math.max(this.opts.quietMs, Math.min(PAUSE_FACTOR * (t - this.lastBatchAt), this.opts.maxMs / 4));
    streaming ||= this.lastStreaming && t - this.lastBatchAt <= this.quietFor;
    this.lastStreaming = streaming;
    this.lastBatchAt = t;
    const asked = new Set(keys);
    for (const k of [...this.held]) {
      if (asked.has(k)) continue;
      const h = this.keys.get(k)!.held!;
      if (++h.misses >= this.opts.missedBatches) this.fire(k);
    }
    const out = keys.map((k) => this.decide(k, t, streaming));
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = this.held.size > 0 ? setTimeout(() => this.releaseAll(), this.quietFor) : null;
    return out;
  }

  /** A run of `key` ended, having taken `ms`. */
  ran(key: string, ms: number): void {
    const s = this.keys.get(key);
    if (s) s.coolUntil = this.now() + ms * COOL_FACTOR;
  }

  /**
   * A run of `key` ended behind the log (requests came while it ran): how long to wait before the
   * next run, in ms (0: now). A held key waits for its hold. While the log streams and its last
   * batch asked for the key, the next run waits COOL_FACTOR times the run just ended (quietMs at
   * least, maxMs at most): followed at once, each run would find the writes that came during it and
   * the Gateway being written to would be recomputed back to back for as long as the writes last,
   * taking the CPU they need; spaced so, it still follows them, in larger steps.
   */
  rerunDelay(key: string): number {
    const s = this.keys.get(key);
    if (!s) return 0;
    if (s.held) return this.heldFor(key) ?? 0;
    const t = this.now();
    if (!this.lastStreaming || s.lastBatch !== this.batches || t - this.lastBatchAt > this.quietFor) return 0;
    return Math.min(this.opts.maxMs, Math.max(this.opts.quietMs, s.coolUntil - t));
  }

  /** How long until a held key's run is due at the latest, or null when it is not held. */
  heldFor(key: string): number | null {
    const h = this.keys.get(key)?.held;
    return h ? Math.max(0, h.since + this.opts.maxMs - this.now()) : null;
  }

  close(): void {
    if (this.quiet) clearTimeout(this.quiet);
    for (const k of this.held) clearTimeout(this.keys.get(k)!.held!.timer);
    this.held.clear();
    this.keys.clear();
  }

  private decide(key: string, t: number, streaming: boolean): HoldDecision {
    let s = this.keys.get(key);
    if (s) this.keys.delete(key); // re-inserted: the map stays in least-recently-asked order
    else s = { recent: [], lastBatch: -1, held: null, coolUntil: 0 };
    this.keys.set(key, s);
    this.forget();
    // while the log streams, a key asked for again within the window, or by the batch after the one
    // that last asked for it, is part of the stream (batches come further apart than the window when
    // recomputes of several Gateways share the CPU with the writes); a key asked for once (another
    // team's single change) is not held for someone else's burst
    const again = s.recent.length > 0 && (t - s.recent[s.recent.length - 1] <= this.opts.windowMs || s.lastBatch === this.batches - 1);
    s.lastBatch = this.batches;
    const hot = (streaming && again) || (s.recent.length >= this.opts.burst && t - s.recent[0] <= this.opts.windowMs);
    s.recent.push(t);
    if (s.recent.length > this.opts.burst) s.recent.shift();
    if (s.held) {
      s.held.misses = 0;
      return { run: 'joined' };
    }
    if (!hot) return { run: 'now' };
    s.held = { since: t, misses: 0, timer: setTimeout(() => this.fire(key, true), this.opts.maxMs) };
    this.held.add(key);
    return { run: 'held', maxMs: this.opts.maxMs };
  }

  /** Releases a held key; a pause or a miss (`due` false) only once it has cooled down. */
  private fire(key: string, due = false): void {
    const s = this.keys.get(key);
    if (!s?.held) return;
    const t = this.now();
    if (!due && t < s.coolUntil) {
      // released when cool, or when its maxMs is up, whichever is first
      clearTimeout(s.held.timer);
      s.held.timer = setTimeout(() => this.fire(key, true), Math.min(s.coolUntil, s.held.since + this.opts.maxMs) - t);
      return;
    }
    clearTimeout(s.held.timer);
    s.held = null;
    this.held.delete(key);
    this.release(key);
  }

  private releaseAll(): void {
    this.quiet = null;
    for (const k of [...this.held]) this.fire(k);
  }

  private forget(): void {
    const max = this.opts.maxKeys ?? 10_000;
    for (const k of this.keys.keys()) {
      if (this.keys.size <= max) break;
      this.fire(k, true);
      this.keys.delete(k);
    }
  }
}
