// A reconcile job names what to recompute (see jobs.ts).
// Contract: jobs are idempotent (a recompute reads the latest state) and coalesced per key. A key
// runs again, once its current run ends, when a request for it came while it ran, or when the run
// itself says `again` (it found changes it may have missed); nothing else loops.
// `atLeast`: a log position the key was asked for at, where the queue knows it.
export interface Served {
  /** the log position the recompute read: every request at or below it is served */
  read: number;
  /** run the key once more: its result may already be stale */
  again?: boolean;
}

/** `queuedAt`: when the oldest request this run serves was made (epoch ms), where the queue knows it. */
export type Processor = (key: string, atLeast?: number, queuedAt?: number) => Promise<Served>;

/** The jobs a queue holds now: waiting to run, running, and held back (see Holdoff) or retried later. */
export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
}

export interface ReconcileQueue {
  /**
   * Ask for keys to be recomputed on account of the log up to `position`. `streaming`: events are
   * arriving in a burst, so the keys may be held a little to take in more of it (see Holdoff).
   */
  request(keys: string[], position: number, streaming?: boolean): Promise<void>;
  /**
   * Ask again for keys the store shows behind (see sweep.ts), each at its own wanted position: no
   * hold, and whatever the queue remembers of the key (a job given up, nothing at all) is no obstacle.
   */
  retry(entries: { key: string; position: number }[]): Promise<void>;
  /** start taking jobs (worker side) */
  start(processor: Processor): void;
  /** true when nothing is waiting or running */
  idle(): Promise<boolean>;
  counts(): Promise<QueueCounts>;
  /** taking jobs: started and not closed (and, on Redis, its worker not stopped) */
  isRunning(): boolean;
  close(): Promise<void>;
}
