// A list's next version takes its map over (src/core/snapshot/part-map.ts): every earlier version
// must still read exactly as it did, through any number of later versions, while each version
// reads its own parts.
import { describe, expect, it } from 'vitest';
import { nextParts } from '../../src/core/snapshot/part-map';
import { part, type PartList } from '../../src/core/snapshot/table-parts';

const snapshot = (l: PartList) => ({
  size: l.parts.size,
  entries: [...l.parts].map(([id, p]) => [id, p.text]).sort(),
  reads: l.ids.map((id) => [l.parts.has(id), l.parts.get(id)?.text]),
});

describe('the parts of a list\'s next version', () => {
  it('leave every earlier version reading as it did', () => {
    let x = 3;
    const int = (n: number) => ((x = (x * 1103515245 + 12345) >>> 0) % n);
    const first: PartList = { ids: [], parts: new Map() };
    for (let i = 0; i < 30; i++) { first.ids.push(`p${i}`); first.parts.set(`p${i}`, part({ i })); }
    const versions: { list: PartList; seen: ReturnType<typeof snapshot> }[] = [{ list: first, seen: snapshot(first) }];
    for (let v = 0; v < 25; v++) {
      // each version is made from the newest, or now and then from an earlier one (a copy then)
      const from = int(5) === 0 ? versions[int(versions.length)].list : versions[versions.length - 1].list;
      const ids = from.ids.slice();
      const { next, edit } = nextParts(from, (parts) => ({ ids, parts }));
      for (let k = 1 + int(4); k > 0; k--) {
        const op = int(3);
        if (op === 0 && ids.length) { const [id] = ids.splice(int(ids.length), 1); edit.delete(id); }
        else if (op === 1) { const id = `n${v}-${k}`; ids.splice(int(ids.length + 1), 0, id); edit.set(id, part({ id })); }
        else if (ids.length) { const id = ids[int(ids.length)]; edit.set(id, part({ id, v })); }
      }
      versions.push({ list: next, seen: snapshot(next) });
      for (const { list, seen } of versions) expect(snapshot(list)).toEqual(seen);
    }
    // a copy of an earlier version is a plain map with the same entries
    expect([...new Map(first.parts)].map(([id, p]) => [id, p.text]).sort()).toEqual(versions[0].seen.entries);
  });

  it('refuses edits to an earlier version', () => {
    const l: PartList = { ids: ['a'], parts: new Map([['a', part({ a: 1 })]]) };
    nextParts(l, (parts) => ({ ids: ['a'], parts }));
    expect(() => l.parts.set('b', part({}))).toThrow(/earlier version/);
    expect(() => l.parts.delete('a')).toThrow(/earlier version/);
  });
});
