import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Holdoff } from '../../src/adapters/queue/holdoff';

const OPTS = { burst: 3, windowMs: 100, quietMs: 30, maxMs: 1000 };

describe('holdoff: when a key runs', () => {
  let released: { key: string; at: number }[];
  let h: Holdoff;
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
      expect(h.request('Gateway/a/gw').run).toBe('now');
      vi.advanceTimersByTime(40); // 3 requests span 80 ms: within the window only with a 4th
    }
    expect(released).toEqual([]);
  });

  it('holds a key asked for again and again until its requests pause', () => {
    const start = Date.now();
    for (let i = 0; i < 3; i++) {
      expect(h.request('k').run).toBe('now');
      vi.advanceTimersByTime(10);
    }
    expect(h.request('k')).toEqual({ run: 'held', maxMs: 1000 });
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(20);
      expect(h.request('k').run).toBe('joined');
    }
    expect(released).toEqual([]);
    vi.advanceTimersByTime(29);
    expect(released).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(released).toEqual([{ key: 'k', at: start + 30 + 100 + 30 }]);
  });

  it('releases a key that never pauses at maxMs, then holds it again', () => {
    for (let i = 0; i < 3; i++) h.request('k');
    const heldAt = Date.now();
    expect(h.request('k').run).toBe('held');
    while (Date.now() < heldAt + 1000) {
      vi.advanceTimersByTime(10);
      if (released.length === 0) h.request('k');
    }
    expect(released.map((r) => r.at)).toEqual([heldAt + 1000]);
    expect(h.heldFor('k')).toBeNull();
    expect(h.request('k').run).toBe('held');
    expect(h.heldFor('k')).toBe(1000);
  });

  it('holds the first request while the log is streaming, and keeps other keys apart', () => {
    expect(h.request('a', true).run).toBe('held');
    expect(h.request('b').run).toBe('now');
    vi.advanceTimersByTime(30);
    expect(released.map((r) => r.key)).toEqual(['a']);
  });

  it('releases held keys it forgets, so that none is lost', () => {
    const small = new Holdoff((key) => released.push({ key, at: Date.now() }), { ...OPTS, maxKeys: 2 }, () => Date.now());
    small.request('a', true);
    small.request('b', true);
    small.request('c', true);
    expect(released.map((r) => r.key)).toEqual(['a']);
    small.close();
  });
});
