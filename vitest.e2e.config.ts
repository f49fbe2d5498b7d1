import { defineConfig } from 'vitest/config';

/**
 * Whole-suite runs against the embedded target and the real limiters. Two files at a time and up to
 * three runs at once within a file (each run has a target and organizations of its own, so runs at
 * once never share a quota; the targets share the runs' event loops, so more at once slows every
 * round trip). Part of `npm test`. Why these figures: docs/decisions/e2e-parallelism.md
 */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/scratch-root.ts'],
    include: ['test/e2e/**/*.test.ts'],
    fileParallelism: true,
    maxWorkers: 2,
    maxConcurrency: 3,
    testTimeout: 120_000,
    hookTimeout: 30_000,
  },
});
