import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { noteReplaced, replacedPositions } from '../../src/core/model/replaced-items';
import { sameItems } from '../../src/core/model/same-items';
import { MemorySource } from '../../src/adapters/store/memory-source';
import type { K8sObject } from '../../src/core/model/objects';

/** What comparing item by item answers. */
function scanned(before: readonly unknown[], next: readonly unknown[], limit: number): number[] | undefined {
  if (before.length !== next.length) return undefined;
  const out: number[] = [];
  for (let i = 0; i < next.length; i++) if (next[i] !== before[i]) out.push(i);
  return out.length <= limit ? out : undefined;
}

describe('replacedPositions', () => {
  it('answers what comparing every item answers, noted or not, near or far apart', () => {
    let seed = 11;
    const rnd = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    for (let run = 0; run < 200; run++) {
      const items = Array.from({ length: 1 + rnd(300) }, (_, i) => ({ i }));
      const versions: unknown[][] = [items];
      for (let step = 0; step < 12; step++) {
        const from = versions[versions.length - 1];
        const next = from.slice();
        const at: number[] = [];
        for (let k = rnd(6); k > 0; k--) {
          const i = rnd(next.length);
          // sometimes an item is put back as it was in an earlier version
          next[i] = rnd(4) === 0 ? versions[rnd(versions.length)][i] : { i, step };
          at.push(i);
        }
        // a list without a note is compared item by item
        if (rnd(5) !== 0) noteReplaced(next, from, at);
        versions.push(next);
      }
      for (let a = 0; a < versions.length; a++) for (let b = a; b < versions.length; b++) {
        for (const limit of [0, 3, 64]) {
          expect(replacedPositions(versions[a], versions[b], limit)).toEqual(scanned(versions[a], versions[b], limit));
        }
        expect(sameItems(versions[b], versions[a])).toBe(scanned(versions[a], versions[b], 0) !== undefined);
      }
    }
  });

  it('keeps no list alive but the one before the newest', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let cur: unknown[] = Array.from({ length: 1000 }, (_, i) => ({ i }));
    const first = new WeakRef(cur);
    for (let k = 0; k < 10; k++) {
      const next = cur.slice();
      next[k] = { k };
      noteReplaced(next, cur, [k]);
      cur = next;
    }
    await new Promise((r) => setImmediate(r)); // a WeakRef keeps its target until the job ends
    gc();
    expect(first.deref()).toBeUndefined();
    expect(cur).toHaveLength(1000);
  });

  it('tells lists of another length apart, and a list from itself', () => {
    const a = [1, 2, 3];
    expect(replacedPositions(a, a, 0)).toEqual([]);
    expect(replacedPositions(a, [1, 2], 5)).toBeUndefined();
    expect(replacedPositions(a, [1, 2, 4], 0)).toBeUndefined();
    expect(replacedPositions(a, [1, 2, 4], 1)).toEqual([2]);
  });

  it('knows which of a Gateway\'s routes a write replaced from the object source\'s note', () => {
    const route = (i: number, path: string) => ({
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { namespace: 'team', name: `r-${String(i).padStart(4, '0')}`, generation: 1 },
      spec: { parentRefs: [{ name: 'gw', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }] }] },
    }) as unknown as K8sObject;
    const source = new MemorySource(Array.from({ length: 2000 }, (_, i) => route(i, `/a-${i}`)));
    const before = source.routesNaming('infra', 'gw');
    expect(before).toHaveLength(2000);
    source.put(route(1234, '/changed'));
    source.put(route(7, '/changed'));
    const after = source.routesNaming('infra', 'gw');
    expect(after).not.toBe(before);
    expect(replacedPositions(before, after, 64)).toEqual([7, 1234]);
    // the list before is left as it was
    expect((before.at(7) as unknown as { spec: { rules: { matches: { path: { value: string } }[] }[] } }).spec.rules[0].matches[0].path.value).toBe('/a-7');
  });
});
