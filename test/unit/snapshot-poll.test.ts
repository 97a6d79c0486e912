// The poll of watched Gateways' versions (adapters/delivery/snapshots) loads a version from the store
// only when its notice has not come: a version committed a moment before its notice is left to the
// notice (a load of a 50,000-route table holds the API's loop for seconds), one whose notice was
// lost is loaded by the poll after the one that first saw it.
import { describe, expect, it } from 'vitest';
import { pollFinds } from '../../src/adapters/delivery/snapshots';

/**
 * Polls every `poll` ms over versions committed at `commits` (ms; version i + 1 at commits[i]),
 * whose notices reach this process `late` ms after (Infinity: lost); answers when each load came.
 */
function polled(commits: number[], late: (version: number) => number, poll: number, until: number): { loads: number[]; held: number } {
  let held = 0;
  let seen: number | null | undefined;
  const loads: number[] = [];
  const storedAt = (t: number) => commits.filter((c) => c <= t).length;
  for (let t = poll; t <= until; t += poll) {
    // the notices that have come by now bring the held version up
    for (let v = held + 1; v <= commits.length && commits[v - 1] + late(v) <= t; v++) held = v;
    const stored = storedAt(t);
    const found = pollFinds(held, stored, seen);
    if (found === 'same') seen = undefined;
    else if (found === 'wait') seen = stored;
    else {
      seen = undefined;
      loads.push(t);
      held = stored;
    }
  }
  return { loads, held };
}

describe('the poll of watched versions', () => {
  it('answers the same version, a first sighting and a lasting one', () => {
    expect(pollFinds(5, 5, undefined)).toBe('same');
    expect(pollFinds(5, 6, undefined)).toBe('wait');
    expect(pollFinds(5, 6, 6)).toBe('load');
    expect(pollFinds(5, 7, 6)).toBe('load');
    // the notice of the version seen before came: a newer one is ahead now
    expect(pollFinds(6, 7, 6)).toBe('wait');
    expect(pollFinds(8, 9, 6)).toBe('wait');
    // the Gateway went (no version stored), or came, with its notice lost
    expect(pollFinds(5, null, undefined)).toBe('wait');
    expect(pollFinds(5, null, null)).toBe('load');
    expect(pollFinds(null, 1, undefined)).toBe('wait');
    expect(pollFinds(null, 1, 1)).toBe('load');
    // a store behind what is held (restored from a backup) is read again too, a poll later
    expect(pollFinds(7, 6, undefined)).toBe('wait');
    expect(pollFinds(7, 6, 6)).toBe('load');
  });

  it('never loads while every notice comes within a poll, however the commits fall', () => {
    for (let seed = 1; seed <= 200; seed++) {
      let x = seed;
      const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const commits: number[] = [];
      for (let t = 0; commits.length < 300; ) commits.push((t += 1 + rand() * 60));
      const { loads, held } = polled(commits, () => rand() * 999, 1000, commits[commits.length - 1] + 3000);
      expect(loads, `seed ${seed}`).toEqual([]);
      expect(held).toBe(commits.length);
    }
  });

  it('loads a version whose notice was lost by the second poll that finds it, once', () => {
    const commits = [100, 200, 2500, 2600];
    // the notice of version 2 is lost; the others come 50 ms after their commits
    const { loads, held } = polled(commits, (v) => (v === 2 ? Infinity : 50), 1000, 8000);
    expect(loads).toEqual([2000]);
    expect(held).toBe(4);
    // every notice lost: each poll that finds the store ahead a second time loads it
    expect(polled(commits, () => Infinity, 1000, 8000).loads).toEqual([2000, 4000]);
  });
});
