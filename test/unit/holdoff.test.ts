import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Holdoff } from '../../src/adapters/queue/holdoff';

const OPTS = { burst: 3, windowMs: 100, missedBatches: 3, quietMs: 40, maxMs: 1000 };

describe('holdoff: when a key runs', () => {
  let released: { key: string; at: number }[];
  let h: Holdoff;
  const runs = (keys: string[], streaming = false) => h.batch(keys, streaming).map((d) => d.run);
  beforeEach(() => {
    vi.useFakeTimers();
    released = [];
    h = new Holdoff((key) => released.push({ key, at: Date.now() }), OPTS, () => Date.now());
  });
  afterEach(() => {
    h.close();
    vi.useRealTimers();
  });

  it('runs a change on its own at once, and changes spaced wider than the window too', () => {
    for (let i = 0; i < 10; i++) {
      expect(runs(['Gateway/a/gw'])).toEqual(['now']);
      vi.advanceTimersByTime(40); // 3 requests span 80 ms: within the window only with a 4th
    }
    expect(released).toEqual([]);
  });

  it('holds a key asked for again and again until the batches stop asking for it', () => {
    for (let i = 0; i < 3; i++) {
      expect(runs(['k'])).toEqual(['now']);
      vi.advanceTimersByTime(10);
    }
    expect(h.batch(['k'])).toEqual([{ run: 'held', maxMs: 1000 }]);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(20);
      expect(runs(['k', `other-${i}`])).toEqual(['joined', 'now']);
    }
    // two batches without it: still held; the third releases it
    for (let i = 0; i < 2; i++) {
      vi.advanceTimersByTime(20);
      runs([`another-${i}`]);
    }
    expect(released).toEqual([]);
    vi.advanceTimersByTime(20);
    const at = Date.now();
    runs(['yet-another']);
    expect(released).toEqual([{ key: 'k', at }]);
  });

  it('keeps a key held through a pause of the stream shorter than quietMs, and releases it after a longer one', () => {
    for (let i = 0; i < 4; i++) runs(['k']);
    vi.advanceTimersByTime(15);
    runs(['k']);
    vi.advanceTimersByTime(39);
    expect(released).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(released.map((r) => r.key)).toEqual(['k']);
  });

  it('counts a pause in the batches\' spacing: twice the last one, when that is longer than quietMs', () => {
    // a busy process reads its batches 100 ms apart
    expect(runs(['k'], true)).toEqual(['now']);
    vi.advanceTimersByTime(100);
    expect(runs(['k'], true)).toEqual(['held']);
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(100);
      expect(runs(['k'], true)).toEqual(['joined']);
    }
    vi.advanceTimersByTime(199);
    expect(released).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(released.map((r) => r.key)).toEqual(['k']);
  });

  it('after a long run, releases a held key on a pause only once twice that run has passed, and at maxMs at the latest', () => {
    for (let i = 0; i < 4; i++) runs(['k']);
    // its last run took 300 ms (it blocked the process: no batch came meanwhile)
    h.ran('k', 300);
    const ended = Date.now();
    vi.advanceTimersByTime(40);
    expect(released).toEqual([]);
    vi.advanceTimersByTime(ended + 600 - Date.now() - 1);
    expect(released).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(released).toEqual([{ key: 'k', at: ended + 600 }]);
    // a run longer than maxMs allows: released at maxMs after it was held
    for (let i = 0; i < 4; i++) runs(['j']);
    const held = Date.now();
    h.ran('j', 2000);
    vi.advanceTimersByTime(999);
    expect(released.map((r) => r.key)).toEqual(['k']);
    vi.advanceTimersByTime(1);
    expect(released).toEqual([{ key: 'k', at: ended + 600 }, { key: 'j', at: held + 1000 }]);
  });

  it('releases a key that is asked for without pause at maxMs, then holds it again', () => {
    for (let i = 0; i < 3; i++) runs(['k']);
    const heldAt = Date.now();
    expect(runs(['k'])).toEqual(['held']);
    while (released.length === 0) {
      vi.advanceTimersByTime(10);
      if (released.length === 0) runs(['k']);
    }
    expect(released.map((r) => r.at)).toEqual([heldAt + 1000]);
    expect(h.heldFor('k')).toBeNull();
    expect(runs(['k'])).toEqual(['held']);
    expect(h.heldFor('k')).toBe(1000);
  });

  it('while the log streams, holds a key asked for again, not a lone change to another', () => {
    expect(runs(['a', 'b'], true)).toEqual(['now', 'now']);
    vi.advanceTimersByTime(20);
    expect(runs(['a', 'b', 'lone'], true)).toEqual(['held', 'held', 'now']);
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(20);
      runs(['b'], true);
    }
    expect(released.map((r) => r.key)).toEqual(['a']);
    // held since the second batch, 60 ms ago: released at maxMs (1000 ms) at the latest
    expect(h.heldFor('b')).toBe(940);
    expect(h.heldFor('lone')).toBeNull();
  });

  it('while the log streams, holds a key asked for by consecutive batches however far apart, not one a batch skipped', () => {
    expect(runs(['a', 'b'], true)).toEqual(['now', 'now']);
    vi.advanceTimersByTime(150); // wider than the window: the batches come slowly
    expect(runs(['a', 'other'], true)).toEqual(['held', 'now']);
    vi.advanceTimersByTime(150);
    // b was not in the batch before: a change of its own again, run at once
    expect(runs(['b'], true)).toEqual(['now']);
    // nor once the stream has paused (a pause: twice the batches' spacing)
    vi.advanceTimersByTime(301);
    expect(runs(['b'])).toEqual(['now']);
  });

  it('spaces a run that ended behind from the one before while the log streams with its key, runs it at once otherwise', () => {
    expect(runs(['a', 'b'], true)).toEqual(['now', 'now']);
    vi.advanceTimersByTime(30);
    h.ran('a', 30);
    h.ran('b', 300);
    // asked for by the last batch, and the log streams: twice its run (quietMs at least, maxMs at most)
    expect(h.rerunDelay('a')).toBe(60);
    expect(h.rerunDelay('b')).toBe(600);
    expect(h.rerunDelay('never-asked')).toBe(0);
    // a batch without b: b's writes are over, its run follows at once
    expect(runs(['a'], true)).toEqual(['held']);
    expect(h.rerunDelay('b')).toBe(0);
    // a held key waits for its hold
    expect(h.rerunDelay('a')).toBe(1000);
    // once the log has paused, at once
    vi.advanceTimersByTime(200);
    h.ran('a', 10);
    expect(h.rerunDelay('a')).toBe(0);
  });

  it('releases held keys it forgets, so that none is lost', () => {
    const small = new Holdoff((key) => released.push({ key, at: Date.now() }), { ...OPTS, maxKeys: 2 }, () => Date.now());
    small.batch(['a', 'b'], true);
    small.batch(['a', 'b'], true);
    small.batch(['a', 'b', 'c'], true);
    expect(released.map((r) => r.key)).toEqual(['a']);
    small.close();
  });
});
