import { defineConfig } from 'vitest/config';

/**
 * Whole-suite runs against the embedded target and the real limiters. A run mostly waits for quota
 * windows, so three files at a time, and up to four runs at once within a file (each run has a
 * target and organizations of its own, so runs at once never share a quota). Part of `npm test`.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/scratch-root.ts'],
    include: ['test/e2e/**/*.test.ts'],
    fileParallelism: true,
    maxWorkers: 3,
    maxConcurrency: 4,
    testTimeout: 120_000,
    hookTimeout: 30_000,
  },
});
