import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // integration tests share one PostgreSQL database and one Redis; files run one at a time
    fileParallelism: false,
    reporters: ['default'],
    setupFiles: ['test/support/cleanup.ts'],
  },
});
