import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { heapLessYoung, markLetGo, markWork, worthCollecting } from '../../src/runtime/idle-gc';

const MB = 1024 * 1024;

/** The forced full collections made while `fn` runs. */
async function forcedCollections(fn: () => Promise<void>): Promise<number> {
  let forced = 0;
  const seen = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const d = (e as unknown as { detail?: { kind: number; flags: number } }).detail;
      if (d && d.kind === constants.NODE_PERFORMANCE_GC_MAJOR && d.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced++;
    }
  });
  seen.observe({ entryTypes: ['gc'] });
  try {
    await fn();
    // gc entries are delivered after the collection (and setTimeout is faked here)
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
  } finally {
    seen.disconnect();
  }
  return forced;
}

describe('idle collection', () => {
  afterEach(() => vi.useRealTimers());

  it('is worth its pause after half a second of work, or once the heap grew well past what the last one left', () => {
    // a worker at 50,000 routes: a few changes (25 ms each) that grew it by their garbage
    expect(worthCollecting(5 * 25, 460 * MB, 410 * MB)).toBe(false);
    expect(worthCollecting(0, 410 * MB, 410 * MB)).toBe(false);
    // twenty of them
    expect(worthCollecting(20 * 25, 460 * MB, 410 * MB)).toBe(true);
    // the same worker right after a burst, however little of the work was counted since the last collection
    expect(worthCollecting(100, 980 * MB, 410 * MB)).toBe(true);
    // a small process: the slack keeps it from collecting for a few MB
    expect(worthCollecting(10, 40 * MB, 20 * MB)).toBe(false);
    expect(worthCollecting(10, 60 * MB, 20 * MB)).toBe(true);
  });

  it('follows a quiet spell after work that grew the heap or took long, and not after a little work', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // a little work that leaves the heap as it was: a quiet spell brings no collection
    const trickle = await forcedCollections(async () => {
      for (let k = 0; k < 40; k++) markWork(2);
      vi.advanceTimersByTime(6_000);
    });
    expect(trickle).toBe(0);
    // more of it, and the next quiet spell brings one
    const longer = await forcedCollections(async () => {
      for (let k = 0; k < 40; k++) markWork(20);
      vi.advanceTimersByTime(6_000);
    });
    expect(longer).toBe(1);

    // a burst that grows the heap by a few hundred MB, then lets it all go
    let held: unknown[] | undefined = [];
    const before = heapLessYoung();
    while (heapLessYoung() < before * 1.5 + 64 * MB) {
      held.push(Array.from({ length: 10_000 }, (_, i) => ({ i, s: `item ${i}` })));
      markWork(0);
    }
    held = undefined;
    expect(held).toBeUndefined();
    const grown = heapLessYoung();
    // work goes on: the quiet spell starts again with each mark
    const early = await forcedCollections(async () => {
      vi.advanceTimersByTime(4_000);
      markWork(0);
      vi.advanceTimersByTime(4_000);
    });
    expect(early).toBe(0);
    const burst = await forcedCollections(async () => {
      vi.advanceTimersByTime(2_000);
    });
    expect(burst).toBe(1);
    // the heap gives back at least half of what the burst grew it by
    expect(heapLessYoung()).toBeLessThan(before + (grown - before) / 2);

    // right after it, the same work again brings none: the heap is back where it was left
    const again = await forcedCollections(async () => {
      markWork(1);
      vi.advanceTimersByTime(6_000);
    });
    expect(again).toBe(0);
  });

  it('lets go of the work a full collection of the engine\'s own came after', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    setFlagsFromString('--expose-gc');
    const engineCollects = runInNewContext('gc') as () => void;
    // work, then a full collection before the quiet spell: nothing left to collect for
    for (let k = 0; k < 40; k++) markWork(20);
    engineCollects();
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    expect(await forcedCollections(async () => void vi.advanceTimersByTime(6_000))).toBe(0);
    // work during which the collection ran: only what ran after it counts (here, next to nothing)
    const started = performance.now();
    engineCollects();
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    markWork(performance.now() - started + 800);
    expect(await forcedCollections(async () => void vi.advanceTimersByTime(6_000))).toBe(0);
    // and work with no collection in it brings one, as before
    const until = performance.now() + 600;
    while (performance.now() < until) await new Promise((r) => setImmediate(r));
    markWork(600);
    expect(await forcedCollections(async () => void vi.advanceTimersByTime(6_000))).toBe(1);
  });

  it('follows a quiet spell after something large was let go, even right after the engine\'s own full collection', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    setFlagsFromString('--expose-gc');
    const engineCollects = runInNewContext('gc') as () => void;
    // a table let go of just after the engine's collection, which lets go of the work counted
    // before it (markWork's would count as nothing here): the next quiet spell brings one
    engineCollects();
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    markLetGo();
    expect(await forcedCollections(async () => void vi.advanceTimersByTime(6_000))).toBe(1);
  });

  it('measures the heap\'s growth from what the engine\'s own full collection left, not only from its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    setFlagsFromString('--expose-gc');
    const engineCollects = runInNewContext('gc') as () => void;
    const settle = async () => { for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r)); };
    const grow = (target: number, into: unknown[]) => {
      while (heapLessYoung() < target) {
        into.push(Array.from({ length: 10_000 }, (_, i) => ({ i, s: `item ${i}` })));
        markWork(0);
      }
    };
    // a large heap held through a collection made here: that is what it left
    const base = heapLessYoung();
    let live: unknown[] | undefined = [];
    grow(base + 300 * MB, live);
    expect(await forcedCollections(async () => void vi.advanceTimersByTime(6_000))).toBe(1);
    // most of it let go, and the engine collects it on its own: it left far less
    live = undefined;
    expect(live).toBeUndefined();
    engineCollects();
    await settle();
    const left = getHeapStatistics().used_heap_size;
    // garbage well past what the engine's collection left, if short of what the one here had left
    let garbage: unknown[] | undefined = [];
    grow(left * 1.5 + 96 * MB, garbage);
    garbage = undefined;
    expect(garbage).toBeUndefined();
    expect(await forcedCollections(async () => void vi.advanceTimersByTime(6_000))).toBe(1);
  });

  it('leaves the heap room to grow after a quiet spell, as the engine does under load, not a tenth', async () => {
    // a process of its own: the engine's measure of how fast it allocates is the whole process's
    const child = join(import.meta.dirname, '../support/idle-gc-child.ts');
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-semi-space-size=4', '--import', 'tsx', child], { timeout: 60_000 });
    const out = JSON.parse(stdout) as { forced: number; grownPercent: number };
    expect(out.forced).toBe(1);
    // the engine's own limit let it grow by 22-25% (a tenth of the old generation, and the young one)
    expect(out.grownPercent).toBeGreaterThan(35);
  }, 90_000);
});
