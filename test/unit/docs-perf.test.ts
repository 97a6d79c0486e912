// The performance tables (docs/performance.md's, and the README's short one) are what
// `npm run docs:perf` makes from the benchmarks' records in bench/results/, every bench script is in
// them, and what the benchmarks record is what the script reads.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCHES, fullTable, madePages, parseRecord, readRecords } from '../../scripts/perf-table';
import { ROOT } from '../support/process';
import { tempDir } from '../support/temp-dir';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('the performance pages', () => {
  it('are what npm run docs:perf makes from bench/results/', () => {
    for (const p of madePages()) expect(p.now, `${p.path}: run npm run docs:perf`).toBe(p.made);
  });

  it('name every bench script, and no other', () => {
    const scripts = Object.keys(pkg.scripts).filter((s) => s.startsWith('bench:')).sort();
    expect(Object.keys(BENCHES).sort()).toEqual(scripts);
    const table = fullTable(readRecords());
    for (const s of scripts) expect(table).toContain(`\`npm run ${s}\``);
  });

  it('say when a bench has no record yet, and refuse a record of no bench', () => {
    expect(fullTable([], { 'bench:x': 'something' })).toContain('| `npm run bench:x` | something | (not recorded yet) |');
    const stray = parseRecord('stray', '# bench: bench:gone\n# date: 2026-12-07\n# commit: abc\n# machine: m\n\nx: 1 ms (target informational)\n');
    expect(() => fullTable([stray], { 'bench:x': 'something' })).toThrow(/bench:gone/);
  });
});

describe('a benchmark\'s record', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  });

  it('holds the lines it printed under its date, commit, machine and settings, as docs:perf reads them', async () => {
    const dir = tempDir('bench-record-');
    Object.assign(process.env, { BENCH_RECORD: 'roundtrip', BENCH_RESULTS_DIR: dir, BENCH_ROUTES: '123' });
    const { report, figureLine } = await import('../../bench/record');
    report('propagation_delta_p99', 12.345, 'ms', '<= 50 ms');
    report('burst_writes_per_second', 1074.25, 'writes/s', 'informational');
    figureLine('validate_httproute_16_rules: 0.0880 ms (target <= 0.25 ms)');
    report('kubectl get httproutes -A (10 routes) p50', 2.25, 's', '< 2 s');
    // a benchmark it starts (bench:reconcile runs bench:gateway's) writes to the same record
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', "const m = await import('./bench/record.ts'); m.report('child_figure', 7, 'ms', 'informational');"], { cwd: ROOT, env: process.env, encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    const file = join(dir, 'roundtrip.txt');
    expect(process.env.BENCH_RECORD_FILE).toBe(file);
    const r = parseRecord('roundtrip', readFileSync(file, 'utf8'));
    expect(r.date).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.commit).toMatch(/^[0-9a-f]{7,}/);
    expect(r.machine).toMatch(/^\d+ cores \(.*\), \d+ GiB, .*node v\d+/);
    expect(r.settings).toBe('BENCH_ROUTES=123');
    expect(r.figures).toEqual([
      { name: 'propagation_delta_p99', value: '12.3', unit: 'ms', target: '<= 50 ms' },
      { name: 'burst_writes_per_second', value: '1074.3', unit: 'writes/s', target: 'informational' },
      { name: 'validate_httproute_16_rules', value: '0.0880', unit: 'ms', target: '<= 0.25 ms' },
      { name: 'kubectl get httproutes -A (10 routes) p50', value: '2.25', unit: 's', target: '< 2 s' },
      { name: 'child_figure', value: '7', unit: 'ms', target: 'informational' },
    ]);
  });
});
