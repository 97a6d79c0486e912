// The reconcile queue on Redis (BullMQ). One job id per key coalesces requests while a job waits.
// A request that arrives while the key's job runs is added but ignored by BullMQ (same id), so the
// wanted position is kept in a hash and compared with the done position when the job completes:
// the key runs again if it fell behind.
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Processor, ReconcileQueue } from './types';

const MAX_SCRIPT = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if (not cur) or (tonumber(cur) < tonumber(ARGV[2])) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1`;

export interface BullQueueOptions {
  url: string;
  name?: string;
  prefix?: string;
  concurrency?: number;
  onError?: (key: string, err: unknown) => void;
  /** how long a request may wait for Redis before it fails (the dispatcher then retries from the log) */
  requestTimeoutMs?: number;
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

  constructor(private readonly opts: BullQueueOptions) {
    this.name = opts.name ?? 'reconcile';
    this.prefix = opts.prefix ?? 'switchyard';
    this.wantKey = `${this.prefix}:${this.name}:want`;
    this.doneKey = `${this.prefix}:${this.name}:done`;
    // Fail fast while Redis is away: the log is the outbox, nothing needs buffering here.
    this.client = new Redis(opts.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.client.on('error', () => undefined);
    this.client.defineCommand('hsetmax', { numberOfKeys: 1, lua: MAX_SCRIPT });
    this.queue = new Queue(this.name, { connection: { url: opts.url, maxRetriesPerRequest: 1, enableOfflineQueue: false } as never, prefix: this.prefix });
    this.queue.on('error', () => undefined);
  }

  private jobOpts(key: string) {
    return { jobId: key.replaceAll(':', '_'), removeOnComplete: true, removeOnFail: 1000, attempts: 8, backoff: { type: 'exponential', delay: 100 } } as const;
  }

  async request(keys: string[], position: number): Promise<void> {
    if (keys.length === 0) return;
    const timeout = this.opts.requestTimeoutMs ?? 2000;
    const pipe = this.client.pipeline();
    for (const k of keys) (pipe as any).hsetmax(this.wantKey, k, position);
    // Both at once, one round trip: a job that starts before its wanted position is recorded reads
    // an older one, so it is marked done at that one and runs again (see 'completed'); if either
    // fails the dispatcher asks again from the same checkpoint.
    await Promise.all([
      withTimeout(pipe.exec(), timeout, 'recording reconcile requests'),
      withTimeout<unknown>(keys.length === 1
        ? this.queue.add('recompute', { key: keys[0], position }, this.jobOpts(keys[0]))
        : this.queue.addBulk(keys.map((k) => ({ name: 'recompute', data: { key: k, position }, opts: this.jobOpts(k) }))), timeout, 'enqueueing reconcile jobs'),
    ]);
  }

  start(processor: Processor): void {
    const connection = { url: this.opts.url, maxRetriesPerRequest: null } as never;
    this.worker = new Worker(this.name, async (job: Job<{ key: string; position?: number }>) => {
      const key = job.data.key;
      // read beside the recompute, not before it: what it served is what it read, up to the wanted
      // position; a request above that (or one recorded after this read) runs the key again
      const wanted = this.client.hget(this.wantKey, key);
      wanted.catch(() => undefined);
      const read = await processor(key, job.data.position);
      const covered = await wanted;
      if (covered) await (this.client as any).hsetmax(this.doneKey, key, Math.min(Number(covered), read));
    }, { connection, prefix: this.prefix, concurrency: this.opts.concurrency ?? 4 });
    this.worker.on('error', () => undefined);
    this.worker.on('failed', (job, err) => job && this.opts.onError?.(job.data.key, err));
    this.worker.on('completed', async (job) => {
      try {
        const key = job.data.key;
        const [want, done] = await Promise.all([this.client.hget(this.wantKey, key), this.client.hget(this.doneKey, key)]);
        if (want && (!done || Number(done) < Number(want))) await this.queue.add('recompute', { key, position: Number(want) }, this.jobOpts(key));
      } catch {
        /* Redis away: the dispatcher re-requests from the log once it is back */
      }
    });
  }

  async idle(): Promise<boolean> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return Object.values(counts).every((n) => n === 0);
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    this.client.disconnect();
  }
}
