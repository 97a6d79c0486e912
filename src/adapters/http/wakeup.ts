// What a long-lived stream (the events feed, a Kubernetes watch) sleeps on between pages of the log:
// a notice, a timer or the stream's end pokes it. A poke that comes while a page is being read is
// kept, so the stream reads again at once instead of sleeping through it.
export class Wakeup {
  private wake: (() => void) | null = null;
  private poked = false;

  readonly poke = (): void => {
    this.poked = true;
    const w = this.wake;
    this.wake = null;
    w?.();
  };

  /** Call before reading: pokes from here on are the ones `sleep` answers to. */
  reset(): void {
    this.poked = false;
  }

  /** Resolves at the next poke, or at once when one came since `reset`. */
  sleep(): Promise<void> {
    return this.poked ? Promise.resolve() : new Promise<void>((resolve) => { this.wake = resolve; });
  }
}
