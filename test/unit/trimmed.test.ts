import { describe, expect, it } from 'vitest';
import { noItems, sharedIndices, trimmed } from '../../src/core/model/trimmed';

describe('arrays a memo keeps', () => {
  it('trimmed copies to the items\' own length, and every empty one is the one frozen array', () => {
    const src = [1, 2, 3];
    const t = trimmed(src);
    expect(t).toEqual(src);
    expect(t).not.toBe(src);
    expect(trimmed([])).toBe(noItems());
    expect(Object.isFrozen(noItems())).toBe(true);
  });

  it('sharedIndices: short lists alike are one frozen array, longer ones copied', () => {
    const a = sharedIndices([0]);
    expect(sharedIndices([0])).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(sharedIndices([0, 1])).toEqual([0, 1]);
    expect(sharedIndices([0, 1])).toBe(sharedIndices([0, 1]));
    expect(sharedIndices([1, 0])).not.toBe(sharedIndices([0, 1]));
    expect(sharedIndices([])).toBe(noItems());
    // 10 and [1, 0] are not told apart by their digits alone
    expect(sharedIndices([10])).not.toBe(sharedIndices([1, 0]));
    const long = [0, 1, 2, 3, 4];
    expect(sharedIndices(long)).toEqual(long);
    expect(sharedIndices(long)).not.toBe(long);
    // many distinct lists: still right after the table is emptied
    for (let i = 0; i < 3000; i++) expect(sharedIndices([i, i + 1])).toEqual([i, i + 1]);
  });
});
