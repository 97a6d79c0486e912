// The reconcile queue under bursts (BullMQ on the real Redis, and the embedded in-process queue): a
// key asked for again and again is held and coalesced, yet the last request is always served, and
// a request on its own still runs at once.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { BullReconcileQueue } from '../../src/adapters/queue/bullmq';
import { InProcessQueue } from '../../src/adapters/queue/in-process';
import type { ReconcileQueue } from '../../src/adapters/queue/types';
import { dropRedisPrefix } from '../support/redis';

const REDIS_URL = process.env.REDIS_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A processor that takes `ms` per run and reads the newest position there is when it starts. */
function world(runMs: number) {
  const state = { latest: 0, runs: [] as { key: string; read: number }[] };
  const processor = async (key: string, _atLeast?: number) => {
    const read = state.latest;
    state.runs.push({ key, read });
    await sleep(runMs);
    return { read };
  };
  const servedUpTo = (key: string) => Math.max(0, ...state.runs.filter((r) => r.key === key).map((r) => r.read));
  return { state, processor, servedUpTo };
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(5);
  }
}

/** the Redis prefixes of the queues made, whose keys go when the queue is closed */
const prefixes: string[] = [];
const bullQueue = (concurrency = 4) => {
  const prefix = `sy-test-${randomBytes(4).toString('hex')}`;
  prefixes.push(prefix);
  return new BullReconcileQueue({ url: REDIS_URL!, prefix, name: 'holdoff', concurrency });
};
const kinds: [string, (concurrency?: number) => ReconcileQueue][] = [
  ['in-process', (concurrency = 2) => new InProcessQueue(concurrency)],
  ...(REDIS_URL ? [['BullMQ', bullQueue] as [string, (c?: number) => ReconcileQueue]] : []),
];

describe.each(kinds)('the %s queue under bursts', (_name, make) => {
  let queue: ReconcileQueue | null = null;
  afterEach(async () => {
    await queue?.close();
    queue = null;
    for (const prefix of prefixes.splice(0)) await dropRedisPrefix(REDIS_URL!, prefix);
  });

  it('serves the last of hundreds of requests for one key with a few runs, whatever the gaps', async () => {
    const w = world(20);
    queue = make();
    queue.start(w.processor);
    // gaps of 0 to 20 ms (a key asked for 5 times within 100 ms is hot), and every 15th a pause of
    // 60 ms, longer than the hold's quiet time: holds end and start again, some while a run is going
    let seed = 7;
    const gap = (n: number) => (n % 15 === 14 ? 60 : (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 21);
    let requests = 0;
    const end = performance.now() + 1500;
    while (performance.now() < end) {
      const position = ++w.state.latest;
      await queue.request(['Gateway/infra/hot'], position);
      const g = gap(requests++);
      if (g > 2) await sleep(g - 2);
    }
    await until('the last request served', () => w.servedUpTo('Gateway/infra/hot') === w.state.latest);
    expect(requests).toBeGreaterThan(60);
    expect(w.state.runs.length).toBeLessThan(requests / 3);
  });

  it('holds a burst on one key without delaying a request for another', async () => {
    const w = world(5);
    queue = make();
    queue.start(w.processor);
    // back to back: asked for five times within 100 ms whatever the load, the key is hot
    for (let i = 0; i < 30; i++) await queue.request(['Gateway/infra/hot'], ++w.state.latest);
    await queue.request(['Gateway/infra/calm'], ++w.state.latest);
    await until('the calm key ran', () => w.state.runs.some((r) => r.key === 'Gateway/infra/calm'));
    await until('the hot key caught up', () => w.servedUpTo('Gateway/infra/hot') >= w.state.latest - 1);
    // the calm key ran while the burst was held (a held run waits for 30 ms of quiet at least; a
    // request on its own runs at once): the run that serves the burst's last request comes after it
    const calmAt = w.state.runs.findIndex((r) => r.key === 'Gateway/infra/calm');
    const lastHot = w.state.latest - 1;
    expect(w.state.runs.slice(calmAt + 1).some((r) => r.key === 'Gateway/infra/hot' && r.read >= lastHot), JSON.stringify(w.state.runs)).toBe(true);
    expect(w.state.runs.filter((r) => r.key === 'Gateway/infra/hot').length).toBeLessThan(15);
  });

  it('serves a request that joined a hold whose job had already run', async () => {
    // one slot: the key's job waits behind another, so the add of the held request is a duplicate
    // of that waiting job, which then runs before the next request joins the hold
    const w = world(0);
    const slow = world(15);
    queue = make(1);
    queue.start((key, at) => (key === 'blocker' ? slow.processor(key) : w.processor(key, at)));
    await queue.request(['blocker'], 1);
    await sleep(3);
    await queue.request(['Gateway/infra/k'], ++w.state.latest);
    await queue.request(['Gateway/infra/k'], ++w.state.latest, true);
    await until('the waiting job ran', () => w.servedUpTo('Gateway/infra/k') === w.state.latest);
    await sleep(5);
    await queue.request(['Gateway/infra/k'], ++w.state.latest, true);
    await until('the request that joined the hold served', () => w.servedUpTo('Gateway/infra/k') === w.state.latest, 3000);
  });

  it('runs every key of a streaming batch once the stream pauses', async () => {
    const w = world(2);
    queue = make();
    queue.start(w.processor);
    const keys = Array.from({ length: 20 }, (_, i) => `Gateway/infra/gw-${i}`);
    await queue.request(keys, ++w.state.latest, true);
    await until('all ran', () => keys.every((k) => w.servedUpTo(k) === w.state.latest));
  });

  it('runs a key again when its run says so, and only then', async () => {
    const runs: string[] = [];
    let agains = 2;
    queue = make();
    queue.start(async (key) => {
      runs.push(key);
      return { read: 1, again: key === 'Gateway/infra/again' && agains-- > 0 };
    });
    await queue.request(['Gateway/infra/again', 'Gateway/infra/once'], 1);
    await until('the key ran three times', () => runs.filter((k) => k === 'Gateway/infra/again').length === 3);
    await sleep(100);
    expect(runs.filter((k) => k === 'Gateway/infra/again')).toHaveLength(3);
    expect(runs.filter((k) => k === 'Gateway/infra/once')).toHaveLength(1);
  });
});
