// V8 grows the heap during a burst of work (a GitOps sync writing thousands of routes) and, left
// alone, often keeps it long after: nothing prompts the full collection after which it would give
// memory back. A process marks its work here; once it has been quiet for a few seconds after some,
// one full collection runs, and the heap can shrink to what it holds.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const QUIET_MS = 5_000;

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
// them back. It costs the quiet process a longer pause, once per burst.
function collectCompacting(): void {
  const collect = collector();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

let busy = 0;
let timer: NodeJS.Timeout | undefined;

/** Work is happening; count enough of it and a collection follows the next quiet spell. */
export function markWork(weight = 1): void {
  busy += weight;
  if (timer) timer.refresh();
  else {
    timer = setTimeout(() => {
      timer = undefined;
      // a trickle of requests is not a burst: its garbage is collected as it goes
      if (busy >= 200) collectCompacting();
      busy = 0;
    }, QUIET_MS);
    timer.unref();
  }
}
