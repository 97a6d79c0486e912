import { describe, expect, it } from 'vitest';
import { Batcher, type Settled } from '../../src/adapters/store/batcher';

/** A run whose batches finish when the test says so. */
function controlled() {
  const batches: { items: number[]; finish: (out?: Settled<string>[]) => void }[] = [];
  const run = (items: number[]) => new Promise<Settled<string>[]>((resolve) => {
    batches.push({ items, finish: (out) => resolve(out ?? items.map((i) => ({ ok: true, value: `done ${i}` }))) });
  });
  return { batches, run };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('batcher: group commit', () => {
  it('sends a request on its own at once', async () => {
    const c = controlled();
    const b = new Batcher(c.run, 1);
    const p = b.submit(1);
    expect(c.batches.map((x) => x.items)).toEqual([[1]]);
    c.batches[0].finish();
    expect(await p).toBe('done 1');
  });

  it('sends the requests that waited for a batch in flight as one batch, each with its own answer', async () => {
    const c = controlled();
    const b = new Batcher(c.run, 1);
    const first = b.submit(1);
    const rest = [2, 3, 4].map((i) => b.submit(i).then((v) => v, (e: Error) => `failed: ${e.message}`));
    expect(c.batches).toHaveLength(1);
    c.batches[0].finish();
    await first;
    await tick();
    expect(c.batches.map((x) => x.items)).toEqual([[1], [2, 3, 4]]);
    c.batches[1].finish([{ ok: true, value: 'two' }, { ok: false, error: new Error('conflict') }, { ok: true, value: 'four' }]);
    expect(await Promise.all(rest)).toEqual(['two', 'failed: conflict', 'four']);
  });

  it('lets the next batch go when one is stalled', async () => {
    const c = controlled();
    const b = new Batcher(c.run, 1, 100, 20);
    void b.submit(1);
    const second = b.submit(2);
    await new Promise((r) => setTimeout(r, 10));
    expect(c.batches).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(c.batches.map((x) => x.items)).toEqual([[1], [2]]);
    c.batches[1].finish();
    expect(await second).toBe('done 2');
    c.batches[0].finish();
  });

  it('rejects every request of a batch whose run fails', async () => {
    const b = new Batcher<number, string>(async () => { throw new Error('store away'); }, 1);
    await expect(b.submit(1)).rejects.toThrow('store away');
  });
});
