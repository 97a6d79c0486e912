// Run by test/unit/idle-gc.test.ts in a process of its own, with `npm start`'s young generation:
// work that leaves a large heap, the quiet spell that brings a collection, then work that keeps
// what it makes. Prints how far the heap grew past what that collection left before the engine
// started a full collection of its own.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { markWork } from '../../src/runtime/idle-gc';

const MB = 1024 * 1024;
const used = () => getHeapStatistics().used_heap_size;
const chunk = () => Array.from({ length: 10_000 }, (_, i) => ({ i, s: `item ${i}` }));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let forced = 0;
let engine = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const d = (e as unknown as { detail?: { kind: number; flags: number } }).detail;
    if (d?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
    if (d.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced++;
    else engine++;
  }
}).observe({ entryTypes: ['gc'] });

const live: unknown[] = [];
while (used() < 200 * MB) live.push(chunk());
markWork(600);
for (let waited = 0; forced === 0 && waited < 20_000; waited += 100) await pause(100);
await pause(200);
const left = used();
engine = 0;
const kept: unknown[] = [];
while (engine === 0 && used() < left * 1.6) {
  kept.push(chunk());
  markWork(0);
  for (let k = 0; k < 3; k++) await new Promise((r) => setImmediate(r));
}
console.log(JSON.stringify({ forced, grownPercent: ((used() - left) / left) * 100, held: live.length + kept.length }));
