// A list's chunk records (src/core/snapshot/chunk-records.ts) read as the plain lists of chunk ends
// and digests they stand for, version after version of runs taken from the version before and
// chunks cut anew, with blocks of four chunks so that every run crosses several.
import { describe, expect, it } from 'vitest';
import { ChunkRecordsBuilder, type ChunkRecords } from '../../src/core/snapshot/chunk-records';

const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);

interface Model { sizes: number[]; digests: string[] }

/** What the records answer against what the model says, as one list of mismatches (empty when they agree). */
function check(r: ChunkRecords, m: Model): void {
  const wrong: string[] = [];
  const is = (what: string, got: unknown, want: unknown) => void (got !== want && wrong.push(`${what}: ${String(got)}, not ${String(want)}`));
  is('count', r.count, m.sizes.length);
  let end = 0;
  for (let c = 0; c < m.sizes.length; c++) {
    is(`endOf(${c - 1})`, r.endOf(c - 1), end);
    // every position of the chunk finds it, and only its end is found as an end
    for (let p = end; p < end + m.sizes[c]; p++) is(`firstEndingAfter(${p})`, r.firstEndingAfter(p), c);
    is(`endingAt(${end + 1})`, r.endingAt(end + 1), m.sizes[c] === 1 ? c : -1);
    end += m.sizes[c];
    is(`endOf(${c})`, r.endOf(c), end);
    is(`endingAt(${end})`, r.endingAt(end), c);
    is(`digestOf(${c})`, r.digestOf(c), m.digests[c]);
  }
  is('firstEndingAfter(end)', r.firstEndingAfter(end), m.sizes.length);
  const joined: string[] = [];
  r.forEachJoined((j) => joined.push(j));
  is('joined', joined.join('\t'), m.digests.join('\t'));
  expect(wrong.slice(0, 5)).toEqual([]);
}

describe('chunk records', () => {
  it('read as the chunks they were made of, version after version of runs taken and chunks cut anew', () => {
    let made = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const r = rng(seed);
      const first = new ChunkRecordsBuilder(4);
      const model: Model = { sizes: [], digests: [] };
      for (let c = 0, n = Math.floor(r() * 60); c < n; c++) {
        const size = 1 + Math.floor(r() * 5);
        first.push(size, `d${seed}-${made++}`);
        model.sizes.push(size);
        model.digests.push(`d${seed}-${made - 1}`);
      }
      let records = first.done();
      let m = model;
      check(records, m);
      for (let step = 0; step < 40; step++) {
        // the next version: runs of this one between chunks cut anew (as an edit's cuts make them)
        const out = new ChunkRecordsBuilder(4);
        const next: Model = { sizes: [], digests: [] };
        let at = 0;
        while (at < m.sizes.length || r() < 0.2) {
          const run = Math.min(m.sizes.length - at, Math.floor(r() * 12));
          records.copyTo(out, at, at + run);
          next.sizes.push(...m.sizes.slice(at, at + run));
          next.digests.push(...m.digests.slice(at, at + run));
          at += run + (r() < 0.5 ? 1 : 0); // a chunk of this version left out, at times
          for (let k = 0, fresh = Math.floor(r() * 3); k < fresh; k++) {
            const size = 1 + Math.floor(r() * 5);
            out.push(size, `d${seed}-${made++}`);
            next.sizes.push(size);
            next.digests.push(`d${seed}-${made - 1}`);
          }
          expect(out.parts).toBe(next.sizes.reduce((a, b) => a + b, 0));
          if (at >= m.sizes.length && r() < 0.8) break;
        }
        records = out.done();
        m = next;
        check(records, m);
        // part full blocks left by the edits are merged again: never much more than full ones would be
        expect(records.blockCount).toBeLessThanOrEqual(2 * Math.ceil(m.sizes.length / 4) + 4);
      }
    }
  });

  it('keep the blocks of the chunks a version takes whole from the one before', () => {
    const first = new ChunkRecordsBuilder(4);
    for (let c = 0; c < 40; c++) first.push(2, `d${c}`);
    const base = first.done();
    const joinedOf = (r: ChunkRecords) => { const out: string[] = []; r.forEachJoined((j) => out.push(j)); return out; };
    const before = joinedOf(base);
    // one chunk remade in the middle: the blocks before and after it are the base's own
    const out = new ChunkRecordsBuilder(4);
    base.copyTo(out, 0, 20);
    out.push(2, 'new');
    base.copyTo(out, 21, 40);
    const next = out.done();
    const after = joinedOf(next);
    expect(after.join('\t')).toBe([...Array(40).keys()].map((c) => (c === 20 ? 'new' : `d${c}`)).join('\t'));
    // the blocks before the remade chunk and after the block it is in are the base's
    expect(after.slice(0, 5)).toEqual(before.slice(0, 5));
    expect(after[5]).toBe('new\td21\td22\td23');
    expect(after.slice(6)).toEqual(before.slice(6));
    expect(next.blockCount).toBe(base.blockCount);
  });
});
