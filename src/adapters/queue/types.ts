// A reconcile job names what to recompute: "Gateway/<ns>/<name>" or "GatewayClass//<name>".
// Contract: jobs are idempotent (a recompute reads the latest state), coalesced per key, and a
// request made while that key's job runs is never lost (the key runs again afterwards).
// `atLeast`: a log position the key was asked for at, where the queue knows it. The processor
// answers with the log position its recompute read (every request at or below it is served).
export type Processor = (key: string, atLeast?: number) => Promise<number>;

export interface ReconcileQueue {
  /**
   * Ask for keys to be recomputed on account of the log up to `position`. `streaming`: events are
   * arriving in a burst, so the keys may be held a little to take in more of it (see Holdoff).
   */
  request(keys: string[], position: number, streaming?: boolean): Promise<void>;
  /** start taking jobs (worker side) */
  start(processor: Processor): void;
  /** true when nothing is waiting or running */
  idle(): Promise<boolean>;
  close(): Promise<void>;
}
