// patchSorted gives the list that inserting each added element in turn would (insertSorted), ties
// included: the ordering and the compiled table depend on where equal elements land.
import { describe, expect, it } from 'vitest';
import { insertSorted, patchSorted } from '../../src/core/model/sorted';

/** a small deterministic generator, so that a failing case can be run again */
function random(seed: number) {
  let s = seed >>> 0;
  return (n: number) => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % n);
}

describe('patchSorted', () => {
  it('inserts as insertSorted does, one at a time, after the kept ones', () => {
    // elements compare by key alone, and carry an id: equal keys tell where ties land
    const cmp = (a: { key: number }, b: { key: number }) => a.key - b.key;
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = random(seed);
      let id = 0;
      const item = () => ({ key: rnd(20), id: id++ });
      const previous = Array.from({ length: rnd(60) }, item).sort(cmp);
      const added = Array.from({ length: rnd(40) }, item);
      const keep = rnd(2) ? (x: { id: number }) => x.id % 3 !== 0 : undefined;
      const expected = keep ? previous.filter(keep) : previous.slice();
      for (const x of added) insertSorted(expected, x, cmp);
      expect(patchSorted(previous, keep, added, cmp), `seed ${seed}`).toEqual(expected);
    }
  });
});
