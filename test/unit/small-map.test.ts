import { describe, expect, it } from 'vitest';
import { SmallMap } from '../../src/core/model/small-map';

// a seeded generator, so that a failure can be run again
function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('SmallMap', () => {
  it('answers as a Map does through random sets, deletes and clears, below and past its array size', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = random(seed);
      const keys: unknown[] = [0, -0, NaN, 'a', 'b', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, {}, {}];
      const small = new SmallMap<unknown, number>();
      const map = new Map<unknown, number>();
      for (let step = 0; step < 60; step++) {
        const k = keys[Math.floor(rnd() * keys.length)];
        const op = rnd();
        if (op < 0.6) expect(small.set(k, step)).toBe(small), map.set(k, step);
        else if (op < 0.95) expect(small.delete(k)).toBe(map.delete(k));
        else small.clear(), map.clear();
        expect(small.size).toBe(map.size);
        expect([...small]).toEqual([...map]);
        expect([...small.keys()]).toEqual([...map.keys()]);
        expect([...small.values()]).toEqual([...map.values()]);
        for (const q of keys) {
          expect(small.has(q)).toBe(map.has(q));
          expect(small.get(q)).toBe(map.get(q));
        }
      }
    }
  });

  it('is built from entries, walks them with forEach, and names itself a Map', () => {
    const m = new SmallMap([['x', 1], ['y', 2], ['x', 3]]);
    const seen: [string, number][] = [];
    m.forEach((v, k, self) => { expect(self).toBe(m); seen.push([k, v]); });
    expect(seen).toEqual([['x', 3], ['y', 2]]);
    expect(Object.prototype.toString.call(m)).toBe('[object Map]');
  });

  it('walks the entries as they were when the walk began', () => {
    const m = new SmallMap([['a', 1], ['b', 2]]);
    const walked: string[] = [];
    for (const [k] of m) { walked.push(k); m.set(k, 9); m.set(`${k}2`, 0); }
    expect(walked).toEqual(['a', 'b']);
    expect([...m.keys()]).toEqual(['a', 'b', 'a2', 'b2']);
  });
});
