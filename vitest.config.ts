import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Long tests (60 s windows) are opt-in: npm run test:long
    exclude: ['test/long/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
