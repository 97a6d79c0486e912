// Group commit for statements that many requests send at once. A request that finds `maxInflight`
// batches already on their way waits, and the next batch takes every request that waited: under
// load, one statement (and one commit) serves several requests; a request on its own goes at once.
// A batch still on its way after `stallMs` (waiting for a lock another transaction holds, say) no
// longer holds the others back: its slot goes to the next batch.

/** What a batch answers for one of its items. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

export class Batcher<I, O> {
  private waiting: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inflight = 0;

  /** `run` answers each item of a batch, in order. */
  constructor(
    private readonly run: (items: I[]) => Promise<Settled<O>[]>,
    private readonly maxInflight = 2,
    private readonly maxBatch = 100,
    private readonly stallMs = 50,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inflight < this.maxInflight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.inflight++;
      let holding = true;
      const letGo = () => {
        if (!holding) return;
        holding = false;
        this.inflight--;
        this.pump();
      };
      const stalled = setTimeout(letGo, this.stallMs);
      this.run(batch.map((b) => b.item))
        .then(
          (out) => batch.forEach((b, i) => {
            const r = out[i];
            if (!r) b.reject(new Error('the batch gave no answer for this item'));
            else if (r.ok) b.resolve(r.value);
            else b.reject(r.error);
          }),
          (err) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          clearTimeout(stalled);
          letGo();
        });
    }
  }
}
