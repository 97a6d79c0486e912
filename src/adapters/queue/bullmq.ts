// The reconcile queue on Redis (BullMQ). One job id per key coalesces requests while a job waits.
// A request that arrives while the key's job runs is added but ignored by BullMQ (same id), so the
// wanted position is kept in a hash and compared with the done position when the job completes:
// the key runs again if it fell behind.
//
// Faults: a job whose worker died is taken back within a few seconds (short lock, frequent stalled
// check); a job that keeps failing (PostgreSQL away) gives up after a few attempts and is removed,
// so that its id never blocks a later request; and what Redis forgets (a restart empty, a job given
// up) the store still knows: the sweep (sweep.ts) asks again, through `retry`, for every key the
// store shows behind.
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullmq, ioredis } from '../../runtime/redis-libraries';
import type { Processor, QueueCounts, ReconcileQueue } from './types';
import { Holdoff, type HoldoffOptions } from './holdoff';
import { bullJobId, positionHashes } from './redis-keys';

const MAX_SCRIPT = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if (not cur) or (tonumber(cur) < tonumber(ARGV[2])) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1`;

// A live worker renews its jobs' locks every LOCK_MS / 2; a dead one's lock expires after LOCK_MS,
// and the next stalled check (every STALLED_CHECK_MS, by any worker) after that puts its job back in
// the queue: within LOCK_MS + 2 * STALLED_CHECK_MS of the death. A recompute that blocks its event
// loop for longer than LOCK_MS / 2 may be taken over and run twice, which is harmless (the write is
// guarded by the Gateway's gate row; in the same process the second run waits for the first, see
// Reconciler.recomputeGateway).
const LOCK_MS = 2000;
const STALLED_CHECK_MS = 1000;
const MAX_STALLED = 2;
// Attempts cover a blip (a lost race, a restarting connection); a longer outage is the sweep's.
const ATTEMPTS = 3;

export interface BullQueueOptions {
  url: string;
  name?: string;
  /** the deployment's Redis prefix (see redis-keys.ts) */
  prefix: string;
  concurrency?: number;
  onError?: (key: string, err: unknown) => void;
  /** how long a request may wait for Redis before it fails (the dispatcher then retries from the log) */
  requestTimeoutMs?: number;
  holdoff?: HoldoffOptions;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<T>((_, rej) => { t = setTimeout(() => rej(new Error(`${what} timed out after ${ms} ms`)), ms); }),
  ]);
}

export class BullReconcileQueue implements ReconcileQueue {
  private readonly queue: Queue;
  private readonly client: Redis;
  private worker: Worker | null = null;
  private readonly name: string;
  private readonly prefix: string;
  private readonly wantKey: string;
  private readonly doneKey: string;
  private readonly holdoff: Holdoff;
  private closed = false;
  /** keys whose run asked to run again */
  private readonly rerun = new Set<string>();

  constructor(private readonly opts: BullQueueOptions) {
    this.name = opts.name ?? 'reconcile';
    this.prefix = opts.prefix;
    const hashes = positionHashes(this.prefix, this.name);
    this.wantKey = hashes.want;
    this.doneKey = hashes.done;
    // A held key's job waits in Redis as a delayed job (due at the hold's end at the latest, so a
    // process that dies holding it loses nothing); when its requests pause, it is promoted.
    this.holdoff = new Holdoff((key) => void this.release(key), opts.holdoff);
    // Fail fast while Redis is away: the log is the outbox, nothing needs buffering here.
    this.client = new (ioredis().Redis)(opts.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.client.on('error', () => undefined);
    this.client.defineCommand('hsetmax', { numberOfKeys: 1, lua: MAX_SCRIPT });
    this.queue = new (bullmq().Queue)(this.name, { connection: { url: opts.url, maxRetriesPerRequest: 1, enableOfflineQueue: false } as never, prefix: this.prefix });
    this.queue.on('error', () => undefined);
  }

  private jobId(key: string): string {
    return bullJobId(key);
  }

  private jobOpts(key: string, delay = 0) {
    // a failed job is removed at once: kept under its id, it would swallow every later request for the key
    return { jobId: this.jobId(key), removeOnComplete: true, removeOnFail: true, attempts: ATTEMPTS, backoff: { type: 'exponential', delay: 200 }, ...(delay > 0 ? { delay: Math.ceil(delay) } : {}) } as const;
  }

  /**
   * A held key's requests paused: its delayed job starts now. Its add may have been ignored (the
   * key's job was running then, and it finished without seeing the later requests), so where no job
   * is left and the key is behind, one is added.
   */
  private async release(key: string, attempt = 0): Promise<void> {
    try {
      const job = await bullmq().Job.fromId(this.queue, this.jobId(key));
      if (job) {
        if (await job.isDelayed()) await job.promote();
        return; // waiting or running: it (or its 'completed' check) serves the requests
      }
      await this.againIfBehind(key, 0);
    } catch {
      // Redis away: a delayed job still runs when due; try again for the case where there is none
      if (attempt < 20 && !this.closed) setTimeout(() => void this.release(key, attempt + 1), 500).unref();
    }
  }

  /** Adds the key's job (after `delay` ms) when its wanted position is above its done one. */
  private async againIfBehind(key: string, delay: number): Promise<void> {
    const [want, done] = await Promise.all([this.client.hget(this.wantKey, key), this.client.hget(this.doneKey, key)]);
    if (want && (!done || Number(done) < Number(want))) await this.queue.add('recompute', { key, position: Number(want) }, this.jobOpts(key, delay));
  }

  async request(keys: string[], position: number, streaming = false): Promise<void> {
    const decisions = this.holdoff.batch(keys, streaming);
    if (keys.length === 0) return;
    const timeout = this.opts.requestTimeoutMs ?? 2000;
    const pipe = this.client.pipeline();
    for (const k of keys) (pipe as any).hsetmax(this.wantKey, k, position);
    // Both at once, one round trip: a job that starts before its wanted position is recorded reads
    // an older one, so it is marked done at that one and runs again (see 'completed'); if either
    // fails the dispatcher asks again from the same checkpoint.
    const jobs = keys.flatMap((k, i) => {
      const d = decisions[i];
      // a joined request is served by the held job (its wanted position is recorded above)
      return d.run === 'joined' ? [] : [{ name: 'recompute', data: { key: k, position }, opts: this.jobOpts(k, d.run === 'held' ? d.maxMs : 0) }];
    });
    await Promise.all([
      withTimeout(pipe.exec(), timeout, 'recording reconcile requests'),
      jobs.length === 0 ? undefined : withTimeout<unknown>(jobs.length === 1
        ? this.queue.add(jobs[0].name, jobs[0].data, jobs[0].opts)
        : this.queue.addBulk(jobs), timeout, 'enqueueing reconcile jobs'),
    ]);
  }

  /**
   * Keys the store shows behind, asked for again as they are: no hold, and a job left failed under
   * the key's id (by a version that kept failed jobs) is removed first, else the add would be ignored.
   * A key whose job still waits or runs is left to it (the add is ignored; its want is recorded).
   */
  async retry(entries: { key: string; position: number }[]): Promise<void> {
    if (entries.length === 0) return;
    const timeout = this.opts.requestTimeoutMs ?? 2000;
    const pipe = this.client.pipeline();
    for (const e of entries) (pipe as any).hsetmax(this.wantKey, e.key, e.position);
    await withTimeout(pipe.exec(), timeout, 'recording reconcile requests');
    await withTimeout(Promise.all(entries.map(async (e) => {
      const job = await bullmq().Job.fromId(this.queue, this.jobId(e.key));
      if (job && (await job.isFailed())) await job.remove().catch(() => undefined);
    })), timeout, 'clearing failed reconcile jobs');
    await withTimeout<unknown>(this.queue.addBulk(entries.map((e) => ({ name: 'recompute', data: { key: e.key, position: e.position }, opts: this.jobOpts(e.key) }))),
      timeout, 'enqueueing reconcile jobs');
  }

  start(processor: Processor): void {
    const connection = { url: this.opts.url, maxRetriesPerRequest: null } as never;
    this.worker = new (bullmq().Worker)(this.name, async (job: Job<{ key: string; position?: number }>) => {
      const key = job.data.key;
      // read beside the recompute, not before it: what it served is what it read, up to the wanted
      // position; a request above that (or one recorded after this read) runs the key again
      const wanted = this.client.hget(this.wantKey, key);
      wanted.catch(() => undefined);
      const started = performance.now();
      const served = await processor(key, job.data.position, job.timestamp);
      this.holdoff.ran(key, performance.now() - started);
      if (served.again) this.rerun.add(key);
      const covered = await wanted;
      if (covered) await (this.client as any).hsetmax(this.doneKey, key, Math.min(Number(covered), served.read));
    }, {
      connection, prefix: this.prefix, concurrency: this.opts.concurrency ?? 4,
      lockDuration: LOCK_MS, stalledInterval: STALLED_CHECK_MS, maxStalledCount: MAX_STALLED,
    });
    this.worker.on('error', () => undefined);
    this.worker.on('failed', (job, err) => job && this.opts.onError?.(job.data.key, err));
    this.worker.on('completed', async (job) => {
      try {
        // behind: a request came while this job ran (BullMQ ignored its add), or the run asked to run
        // again; once the key's hold ends, or spaced from this run while the log streams with the key in it
        const key = job.data.key;
        const delay = this.holdoff.rerunDelay(key);
        if (this.rerun.delete(key)) await this.queue.add('recompute', { key, position: job.data.position }, this.jobOpts(key, delay));
        else await this.againIfBehind(key, delay);
      } catch {
        /* Redis away: the dispatcher re-requests from the log once it is back */
      }
    });
  }

  async idle(): Promise<boolean> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return Object.values(counts).every((n) => n === 0);
  }

  async counts(): Promise<QueueCounts> {
    const c = await this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0 };
  }

  isRunning(): boolean {
    return !this.closed && this.worker !== null && this.worker.isRunning();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.holdoff.close();
    await this.worker?.close();
    await this.queue.close();
    this.client.disconnect();
  }
}
