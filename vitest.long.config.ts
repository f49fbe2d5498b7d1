import { defineConfig } from 'vitest/config';

/** The long tests (60 s windows): `npm run test:long`. Not part of `npm test` or CI. */
export default defineConfig({
  test: {
    include: ['test/long/**/*.test.ts'],
    testTimeout: 900_000,
  },
});
