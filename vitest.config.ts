import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The shipped scenarios import 'tiergate': in the tests, the sources (the package's exports name dist/).
  resolve: { alias: [{ find: /^tiergate$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }] },
  test: {
    globalSetup: ['test/helpers/scratch-root.ts'],
    include: ['test/**/*.test.ts'],
    // Whole-suite runs (test/e2e) go in their own pass after these (vitest.e2e.config.ts), so their
    // quota windows are not squeezed by these files' load; the soaks are opt-in (test/soak, npm run test:soak).
    exclude: ['test/e2e/**', 'test/soak/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
