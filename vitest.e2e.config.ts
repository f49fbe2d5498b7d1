import { defineConfig } from 'vitest/config';

/**
 * Whole-suite runs against the embedded target: one file at a time, so a run's quota windows are
 * not squeezed by another file's load. The fault matrix runs a few faults at once (starter-only
 * runs are light). Part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    fileParallelism: false,
    maxConcurrency: 3,
    testTimeout: 120_000,
    hookTimeout: 30_000,
  },
});
