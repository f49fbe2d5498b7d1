import { defineConfig } from 'vitest/config';

/**
 * Whole-suite runs against the embedded target and the real limiters. Two files at a time and up to
 * three runs at once within a file (each run has a target and organizations of its own, so runs at
 * once never share a quota). The targets share the runs' event loops: at three files and four runs,
 * a loopback read's round trip reached 81 ms at the 90th percentile (227 ms at most) and CI saw
 * checks left undecided; at two and three, 16 ms (67 ms at most), for about 50 s more. Part of `npm test`.
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
