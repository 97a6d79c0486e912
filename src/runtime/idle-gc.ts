// V8 grows the heap during a burst of work (a GitOps sync writing thousands of routes, a whole
// table joined for a reader) and, left alone, often keeps it long after: nothing prompts the full
// collection after which it would give memory back. A process marks its work here, with how long
// it took; once it has been quiet for a few seconds after enough of it, or after its heap grew
// well past what the last full collection (the engine's or one made here) left, one full
// collection runs, and the heap can shrink to what it holds.
//
// Work is counted by its time, not its number: a worker counting jobs took a 50,000-route burst
// recomputed in a few runs of seconds each for a trickle, and kept a heap of 980 MB whose own
// collection then landed on the changes after it; and the collection pauses the process for as
// long as marking and moving everything it holds takes (two seconds at 50,000 routes), so a
// trickle of changes brings one after half a second of their work, not after every ten of them.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const QUIET_MS = 5_000;
/** the work, in ms, after which the next quiet spell brings a collection */
const WORK_MS = 500;
/** the growth past the heap left by the last full collection that is worth the pause (at 50,000 routes, some 80 MB) */
const GROWTH = 1.15;
const SLACK_BYTES = 32 * 1024 * 1024;
/**
 * How much a heap may grow past what a collection made here left before the engine starts its own
 * (V8's `--heap-growing-percent`): the growth the engine itself allowed the worker's heap under load
 * at 50,000 routes (390 to 534 MB).
 */
const HEADROOM_PERCENT = 35;
/** how long work goes on before the engine's allocation rate no longer counts the quiet spell (V8 averages it over 5 s) */
const RATE_WINDOW_MS = 6_000;

/**
 * Whether a quiet spell after `workMs` of work, with a heap (less its young generation) of
 * `committed` bytes where the last collection here left `after`, is worth a forced collection.
 */
export function worthCollecting(workMs: number, committed: number, after: number): boolean {
  return workMs >= WORK_MS || committed >= after * GROWTH + SLACK_BYTES;
}

let collect: (() => void) | undefined;
function collector(): () => void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

// The full collection compacts the heap as well: a burst leaves its pages partly empty (the
// worker at 50,000 routes held 454 MB of heap for 405 MB of objects), and only a compaction gives
// them back.
function collectCompacting(): void {
  const collect = collector();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

// After a quiet spell the engine measures the process as allocating next to nothing: a collection
// then sets the heap's limit to a tenth past what it holds, and while the measured rate stays low
// the engine lowers the limit to that at every young collection. So the first changes after a
// quiet spell met a full collection of the whole heap once it grew by a tenth: some 130 changes in
// at 50,000 routes, 330 MB marked on the worker's thread among them (changes of 62-467 ms, against
// 15). The headroom the engine allows under load is kept from the quiet spell (and the collection
// made then, if any) until the work that follows has gone on long enough for the engine to
// measure it. It is a flag of the process: both threads of `npm start` set and clear it, each
// after its own quiet spell, and those come together. It is not kept for good: a fixed growth
// brought the API's heap, small and busy, to a full collection five times as often during a burst
// (8% fewer writes a second at 5,000 routes).
let headroom = false;
/** when work resumed after the quiet spell that set the headroom */
let resumed: number | undefined;
function setHeadroom(on: boolean): void {
  headroom = on;
  resumed = undefined;
  setFlagsFromString(`--heap-growing-percent=${on ? HEADROOM_PERCENT : 0}`);
}
function workResumed(): void {
  if (!headroom) return;
  const now = performance.now();
  if (resumed === undefined) resumed = now;
  else if (now - resumed >= RATE_WINDOW_MS) setHeadroom(false);
}

/**
 * The heap's committed bytes less its young generation: a full collection empties that but does not
 * shrink it, and after a burst it stays at its largest (32 MB on Node 22's defaults), which alone
 * passed the growth worth a collection in a small process that had done next to nothing since the
 * engine's own.
 */
export function heapLessYoung(): number {
  let young = 0;
  for (const s of getHeapSpaceStatistics()) if (s.space_name === 'new_space') young = s.space_size;
  return getHeapStatistics().total_heap_size - young;
}
/** what the heap held after the last full collection, the engine's or one made here (at first: as the process started) */
let after = heapLessYoung();
let work = 0;
let timer: NodeJS.Timeout | undefined;
/** when the last full collection, the engine's own or one made here, ended (performance.now()) */
let lastFull = -Infinity;

// A full collection the engine made since the work has collected its garbage already: what was
// counted before it is let go, and so is the part of a piece of work that ran before it ended. A
// change that such a collection slowed (its marking on the thread for 600 ms at 50,000 routes)
// counted as work, and brought a forced collection of the whole heap (1.8 s) at the next quiet
// spell, which the next change then waited for.
// What it left is what it held: the heap grown well past that by the time of a quiet spell holds
// the garbage of the work after it, or the pages it did not compact (the worker at 50,000 routes
// held 546 MB for some 14 s after an engine's collection among its last changes, until the
// engine's memory reducer compacted it to 495 MB).
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if ((e as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
    work = 0;
    lastFull = Math.max(lastFull, e.startTime + e.duration);
    after = Math.min(after, getHeapStatistics().used_heap_size);
  }
}).observe({ entryTypes: ['gc'] });

/** Work that took `ms` up to now has been done: a collection may follow the next quiet spell. */
export function markWork(ms: number): void {
  work += Math.max(0, Math.min(ms, performance.now() - lastFull));
  workResumed();
  untilQuiet();
}

/**
 * Something large was let go (a table held for readers): the next quiet spell brings a collection.
 * Unlike work, it is not let go by a full collection that ended before now: that one found it held.
 */
export function markLetGo(): void {
  work = Math.max(work, WORK_MS);
  untilQuiet();
}

function untilQuiet(): void {
  if (timer) timer.refresh();
  else {
    timer = setTimeout(() => {
      timer = undefined;
      const worth = worthCollecting(work, heapLessYoung(), after);
      work = 0;
      setHeadroom(true);
      if (!worth) return;
      collectCompacting();
      after = heapLessYoung();
    }, QUIET_MS);
    timer.unref();
  }
}
