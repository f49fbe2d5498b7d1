import { defineConfig } from 'vitest/config';

/** The soaks: ten clean runs in a row, and 60 s windows. `npm run test:soak`; not part of `npm test` or CI. */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/scratch-root.ts'],
    include: ['test/soak/**/*.test.ts'],
    testTimeout: 900_000,
  },
});
