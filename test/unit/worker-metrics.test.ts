// The worker's snapshot gauges as a scrape reads them: a body's size measured at the scrape, a size
// known without the body set as it is, and a compaction finishing late never setting an older size.
import { describe, expect, it } from 'vitest';
import { WorkerMetrics } from '../../src/adapters/metrics/worker';

const sizeOf = async (m: WorkerMetrics) => {
  const g = (await m.registry.getSingleMetric('switchyard_snapshot_bytes')!.get()).values;
  return g.find((v) => v.labels.namespace === 'infra' && v.labels.name === 'edge')?.value;
};

describe('the snapshot size gauge', () => {
  it('keeps the size of the newest version it was told of', async () => {
    const m = new WorkerMetrics({ processMetrics: false });
    m.snapshot('infra', 'edge', { version: 1, body: '{"é":1}' });
    expect(await sizeOf(m)).toBe(Buffer.byteLength('{"é":1}'));
    // a body that did not travel with its notice: made when the gauge is read, and only then
    let made = 0;
    m.snapshot('infra', 'edge', { version: 2, body: () => (made++, '{"é":22}') });
    expect(made).toBe(0);
    expect(await sizeOf(m)).toBe(Buffer.byteLength('{"é":22}'));
    expect(await sizeOf(m)).toBe(Buffer.byteLength('{"é":22}'));
    expect(made).toBe(1);
    // a large table: its size, without its body
    m.snapshot('infra', 'edge', { version: 5, bytes: 2_000_000 });
    expect(await sizeOf(m)).toBe(2_000_000);
    // a delta: the size stays the last one made whole
    m.snapshot('infra', 'edge', { version: 6 });
    expect(await sizeOf(m)).toBe(2_000_000);
    // the compaction of version 4, finishing after version 5 was stored whole: not taken
    m.snapshotStored('infra', 'edge', 4, 1_900_000);
    expect(await sizeOf(m)).toBe(2_000_000);
    // the compaction of version 6: taken
    m.snapshotStored('infra', 'edge', 6, 2_100_000);
    expect(await sizeOf(m)).toBe(2_100_000);
    // gone: no series, and a late compaction does not bring it back
    m.snapshot('infra', 'edge', null);
    m.snapshotStored('infra', 'edge', 7, 2_200_000);
    expect(await sizeOf(m)).toBeUndefined();
  });
});
