// Follows one Gateway's snapshot from the API: the SSE watch, resumed with Last-Event-ID, and a
// long-poll GET when the watch cannot be had while the API answers (an intermediary that buffers
// streams, an API that refuses the watch). It reconnects forever, with jittered backoff, so that a
// fleet of proxies does not come back in step after an API restart. An API that is away (no
// connection, 502/503/504: restarting, starting, behind a front that has no replica) is no reason to
// give up the watch: the feed keeps trying it, at most BACKOFF_CAP_MS apart, so it is back on the watch
// within that long of the API answering again.
// The watch asks for deltas (?delta=true): after the first whole snapshot each change comes as what
// changed, applied to the table held and checked against the new snapshot's hash; a delta that does
// not fit is dropped for a fetch of the whole snapshot (see ./deltas).
import { sseEvents } from '../core/snapshot/sse-events';
import type { Snapshot } from '../core/compile/types';
import type { SnapshotDelta } from '../core/snapshot/delta';
import { appliedSnapshot, DeltaMismatch, heldOf, type Held } from './deltas';

export interface FeedOptions {
  url: string;
  token: string;
  namespace: string;
  name: string;
  onSnapshot: (snapshot: Snapshot) => void;
  onState?: (state: FeedState) => void;
  /** first and largest reconnect delay, ms */
  backoffMs?: [number, number];
  /** how long a long-poll is held by the API, seconds */
  waitSeconds?: number;
  /** false: ask for whole snapshots only (default true) */
  deltas?: boolean;
  /** a delta was applied, or did not fit and the whole snapshot was fetched instead */
  onDelta?: (outcome: { version: number; applied: boolean; error?: string }) => void;
}

export interface FeedState {
  connected: boolean;
  mode: 'watch' | 'poll';
  lastError?: string;
  /** when the API was last heard from (an event, a heartbeat, a poll's answer), epoch ms */
  lastContact?: number;
}

/** Watch refusals in a row (the API answered, but no stream came) after which the feed long-polls for a while. */
const WATCH_FAILURES_BEFORE_POLL = 3;
/** The longest wait between two attempts: how long after the API answers again the feed may take to notice. */
export const BACKOFF_CAP_MS = 3_000;
const POLL_ROUNDS_BEFORE_WATCH = 10;
/** The API sends a heartbeat at least every 15 s: a watch silent for longer is dead. */
const WATCH_SILENCE_MS = 35_000;

export class SnapshotFeed {
  private version: number | null = null;
  private held: Held | null = null;
  private stopped = false;
  private abort: AbortController | null = null;
  private sleeper: (() => void) | null = null;
  private state: FeedState = { connected: false, mode: 'watch' };
  private running: Promise<void> | null = null;

  constructor(private readonly o: FeedOptions) {}

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    this.sleeper?.();
    await this.running;
  }

  private base(): string {
    return `${this.o.url.replace(/\/+$/, '')}/api/v1/namespaces/${encodeURIComponent(this.o.namespace)}/gateways/${encodeURIComponent(this.o.name)}/snapshot`;
  }

  private set(over: Partial<FeedState>): void {
    this.state = { ...this.state, ...over };
    this.o.onState?.(this.state);
  }

  private accept(text: string): void {
    const snap = JSON.parse(text) as Snapshot;
    if (typeof snap?.version !== 'number' || !snap.table) throw new Error('the API sent something that is not a snapshot');
    if (this.version !== null && snap.version <= this.version) return;
    this.version = snap.version;
    this.held = this.o.deltas === false ? null : heldOf(snap);
    this.o.onSnapshot(snap);
  }

  /** A delta from the version held; one that does not fit makes the feed fetch the whole snapshot. */
  private async acceptDelta(text: string): Promise<void> {
    const d = JSON.parse(text) as SnapshotDelta;
    if (typeof d?.version !== 'number' || !Array.isArray(d.changes)) throw new Error('the API sent something that is not a snapshot delta');
    if (this.version !== null && d.version <= this.version) return;
    let next;
    try {
      next = appliedSnapshot(this.held, d);
    } catch (e) {
      if (!(e instanceof DeltaMismatch)) throw e;
      this.o.onDelta?.({ version: d.version, applied: false, error: e.message });
      return this.fetchWhole();
    }
    this.version = d.version;
    this.held = next.held;
    this.o.onDelta?.({ version: d.version, applied: true });
    this.o.onSnapshot(next.snapshot);
  }

  /** The whole current snapshot, by a plain GET (what a client that never asks for deltas gets). */
  private async fetchWhole(): Promise<void> {
    const res = await fetch(this.base(), { headers: this.headers(), signal: this.abort?.signal });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`the snapshot GET answered ${res.status}`);
    this.version = null; // the whole snapshot replaces whatever was held, even at the same version
    this.accept(body);
  }

  private async loop(): Promise<void> {
    let refusals = 0; // watches in a row the API answered without a stream
    let away = 0; // attempts in a row that did not reach a working API
    let pollRounds = 0;
    const [first, cap] = this.o.backoffMs ?? [200, BACKOFF_CAP_MS];
    while (!this.stopped) {
      const mode = refusals >= WATCH_FAILURES_BEFORE_POLL && pollRounds < POLL_ROUNDS_BEFORE_WATCH ? 'poll' : 'watch';
      if (mode === 'watch') pollRounds = 0;
      this.set({ mode });
      try {
        if (mode === 'watch') await this.watchOnce();
        else {
          pollRounds++;
          // right after the API was away, a plain GET (no long-poll): it answers at once, and the
          // watch is tried again straight after, the API having perhaps restarted in a better state
          await this.pollOnce(away > 0);
          if (away > 0) refusals = 0;
          away = 0;
          continue; // a poll answered: ask again at once
        }
        refusals = 0;
        away = 0;
        await this.sleep(jitter(first)); // the watch ran and ended (the API went away in order): come back soon
      } catch (e) {
        if (this.stopped) break;
        if (e instanceof ApiAway) away++;
        else if (mode === 'watch') refusals++;
        this.set({ connected: false, lastError: (e as Error).message });
        await this.sleep(jitter(Math.min(cap, first * 2 ** Math.min(Math.max(refusals, away), 10))));
      }
    }
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.o.token}`, ...extra };
  }

  private async watchOnce(): Promise<void> {
    const abort = (this.abort = new AbortController());
    let silence: NodeJS.Timeout | undefined;
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => abort.abort(new Error('the watch went silent')), WATCH_SILENCE_MS);
      this.set({ connected: true, lastContact: Date.now(), lastError: undefined });
    };
    let streaming = false;
    try {
      const res = await reach(`${this.base()}/watch${this.o.deltas === false ? '' : '?delta=true'}`, {
        headers: this.headers({ accept: 'text/event-stream', ...(this.version !== null ? { 'last-event-id': String(this.version) } : {}) }),
        signal: abort.signal,
      });
      if (res.status !== 200 || !res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        await res.body?.cancel();
        throw awayOr(res.status, `the watch answered ${res.status}`);
      }
      alive();
      streaming = true;
      for await (const ev of sseEvents(res.body, alive)) {
        alive();
        if (ev.event === 'snapshot') this.accept(ev.data);
        else if (ev.event === 'delta') await this.acceptDelta(ev.data);
      }
    } catch (e) {
      // a stream cut off (the API killed, a connection reset) is the API gone, not a watch refused
      if (streaming && e instanceof TypeError) throw new ApiAway(`the watch was cut off: ${causeOf(e)}`);
      throw e;
    } finally {
      clearTimeout(silence);
      this.abort = null;
    }
    this.set({ connected: false });
  }

  /** `now`: a plain conditional GET, answered at once, instead of a long-poll. */
  private async pollOnce(now = false): Promise<void> {
    const abort = (this.abort = new AbortController());
    const wait = now ? 0 : this.o.waitSeconds ?? 25;
    const t = setTimeout(() => abort.abort(new Error('the long-poll got no answer')), (wait + 10) * 1000);
    try {
      const res = await reach(now ? this.base() : `${this.base()}?wait=${wait}`, {
        headers: this.headers(this.version !== null ? { 'if-none-match': `"${this.version}"` } : {}),
        signal: abort.signal,
      });
      const body = await res.text();
      if (res.status === 304) return this.set({ connected: true, lastContact: Date.now(), lastError: undefined });
      if (res.status !== 200) throw awayOr(res.status, `the snapshot GET answered ${res.status}`);
      this.set({ connected: true, lastContact: Date.now(), lastError: undefined });
      this.accept(body);
    } finally {
      clearTimeout(t);
      this.abort = null;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(t);
        self.sleeper = null;
        r();
      }
      this.sleeper = done;
    });
  }
}

/** A delay between half and all of `ms`. */
function jitter(ms: number): number {
  return ms / 2 + Math.random() * (ms / 2);
}

/** The API could not be reached, or answered that it cannot serve now: no reason to give up the watch. */
class ApiAway extends Error {}

/** 502, 503 and 504 say the API (or the front before it) is away or starting, not that it refuses. */
function awayOr(status: number, message: string): Error {
  return status === 502 || status === 503 || status === 504 ? new ApiAway(message) : new Error(message);
}

/** fetch, with a connection that cannot be made told as the API being away (fetch throws a TypeError). */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    if (e instanceof TypeError) throw new ApiAway(`cannot reach the API: ${causeOf(e)}`);
    throw e;
  }
}

function causeOf(e: Error): string {
  const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? e.message;
}
