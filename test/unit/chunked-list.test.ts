// The chunked list reads as the array it stands for after any sequence of edits, and an edit
// leaves every earlier version as it was.
import { describe, expect, it } from 'vitest';
import { ChunkedList } from '../../src/core/model/chunked-list';

/** a small deterministic generator, so that a failing sequence can be run again */
function random(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

describe('ChunkedList', () => {
  it('reads as the array after random edits, every version kept', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = random(seed);
      let array = Array.from({ length: rnd(3000) }, (_, i) => i);
      let list = ChunkedList.from(array);
      const versions: [ChunkedList<number>, number[]][] = [[list, array.slice()]];
      let next = 100_000;
      for (let step = 0; step < 30; step++) {
        const edit = list.edit();
        const expected = array.slice();
        for (let k = 0, n = 1 + rnd(6); k < n; k++) {
          if (expected.length && rnd(2) === 0) {
            const at = rnd(expected.length);
            const count = 1 + rnd(Math.min(expected.length - at, rnd(4) === 0 ? 1500 : 3));
            expected.splice(at, count);
            edit.remove(at, count);
          } else {
            const at = rnd(expected.length + 1);
            const items = Array.from({ length: 1 + rnd(rnd(4) === 0 ? 1200 : 3) }, () => next++);
            expected.splice(at, 0, ...items);
            edit.insert(at, items);
          }
          expect(edit.length).toBe(expected.length);
          const probe = rnd(expected.length + 1);
          expect(edit.at(probe)).toBe(expected[probe]);
        }
        list = edit.done();
        array = expected;
        versions.push([list, array.slice()]);
        expect(list.toArray()).toEqual(array);
      }
      for (const [v, a] of versions) {
        expect(v.length).toBe(a.length);
        expect([...v]).toEqual(a);
        for (let k = 0; k < 20; k++) {
          const i = rnd(a.length + 2) - 1;
          expect(v.at(i)).toBe(a[i]);
        }
        if (a.length) {
          const x = a[rnd(a.length)];
          expect(v.indexOf(x)).toBe(a.indexOf(x));
        }
        expect(v.indexOf(-5)).toBe(-1);
        const wanted = new Set([-5, ...Array.from({ length: 1 + rnd(8) }, () => a[rnd(a.length)])].filter((x) => x !== undefined));
        expect(v.positionsOf(wanted)).toEqual(new Map(a.flatMap((x, i) => (wanted.has(x) ? [[x, i] as const] : []))));
        const from = rnd(a.length + 1);
        const to = from + rnd(a.length - from + 2);
        expect(v.positionsOf(wanted, new Map(), from, to)).toEqual(new Map(a.flatMap((x, i) => (wanted.has(x) && i >= from && i < to ? [[x, i] as const] : []))));
      }
    }
  });

  it('refuses edits outside the list', () => {
    const edit = ChunkedList.from([1, 2, 3]).edit();
    expect(() => edit.remove(2, 2)).toThrow(RangeError);
    expect(() => edit.insert(4, [9])).toThrow(RangeError);
  });

  it('copies only the chunks an edit touches', () => {
    const base = ChunkedList.from(Array.from({ length: 150_000 }, (_, i) => i));
    const edit = base.edit();
    edit.insert(70_000, [-1]);
    edit.remove(10, 1);
    const next = edit.done();
    const shared = (a: ChunkedList<number>, b: ChunkedList<number>) => {
      const ca = (a as unknown as { chunks: unknown[] }).chunks;
      const cb = new Set((b as unknown as { chunks: unknown[] }).chunks);
      return ca.filter((c) => cb.has(c)).length;
    };
    expect(shared(base, next)).toBe(Math.ceil(150_000 / 512) - 2);
  });
});

describe('ChunkedList.indexOf within a stretch', () => {
  it('finds the first position of an item in [from, to) alone', () => {
    const a = Array.from({ length: 5000 }, (_, i) => i % 700);
    const list = ChunkedList.from(a);
    const rnd = random(7);
    for (let k = 0; k < 500; k++) {
      const x = rnd(700);
      const from = rnd(5200) - 100;
      const to = from + rnd(3000);
      const expected = a.findIndex((y, i) => y === x && i >= from && i < to);
      expect(list.indexOf(x, from, to), `${x} in [${from}, ${to})`).toBe(expected);
    }
  });
});

describe('ChunkedEdit.set and indexOf', () => {
  it('replace and find items in the version being edited, leaving the base alone', () => {
    const a = Array.from({ length: 3000 }, (_, i) => i);
    const base = ChunkedList.from(a);
    const edit = base.edit();
    edit.set(1500, -1);
    edit.insert(10, [-2]);
    expect(edit.indexOf(-1)).toBe(1501);
    expect(edit.indexOf(-2)).toBe(10);
    expect(edit.indexOf(1500)).toBe(-1);
    expect(() => edit.set(3001, 0)).toThrow(RangeError);
    const next = edit.done();
    expect(next.at(1501)).toBe(-1);
    expect(base.at(1500)).toBe(1500);
    expect(base.toArray()).toEqual(a);
  });
});

describe('ChunkedList.mapped', () => {
  it('reads as the mapped array does, in order and as JSON, and stays the version it was made from', () => {
    const a = Array.from({ length: 2500 }, (_, i) => ({ i, parents: [`p${i}`] }));
    const base = ChunkedList.from(a);
    const view = base.mapped((x) => x.parents);
    expect(view.length).toBe(2500);
    expect([...view]).toEqual(a.map((x) => x.parents));
    // read twice, the same items (an iterator each time)
    expect([...view][1234]).toBe([...view][1234]);
    expect(JSON.stringify(view)).toBe(JSON.stringify(a.map((x) => x.parents)));
    const edit = base.edit();
    edit.remove(0, 1);
    edit.insert(2000, [{ i: -1, parents: ['new'] }]);
    const next = edit.done().mapped((x) => x.parents);
    expect([...view]).toEqual(a.map((x) => x.parents));
    expect([...next][2000]).toEqual(['new']);
    expect([...next][0]).toEqual(['p1']);
    expect(next.length).toBe(2500);
    expect([...ChunkedList.empty<{ parents: string[] }>().mapped((x) => x.parents)]).toEqual([]);
  });
});
