import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // one file at a time: readers see the log below PostgreSQL's horizon, which is the whole
    // cluster's, so a transaction held open by a file next door delays what another file's reads
    // see (a cache's sync missed a write it had just made, in a run of two files at a time).
    // VITEST_MAX_WORKERS=2 runs two at a time: 549 s against some 900 for the Node 20 suite in CI.
    fileParallelism: Number(process.env.VITEST_MAX_WORKERS ?? 1) > 1,
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 1),
    reporters: ['default'],
    setupFiles: ['test/support/cleanup.ts'],
  },
});
