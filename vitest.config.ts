import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // two files at a time: each makes its own database, Redis prefix and ports, and the suite has
    // outgrown one core's half hour in CI (VITEST_MAX_WORKERS=1 runs them one at a time)
    fileParallelism: true,
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 2),
    reporters: ['default'],
    setupFiles: ['test/support/cleanup.ts'],
  },
});
