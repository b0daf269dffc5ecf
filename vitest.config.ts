import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite instances are ~300 MB each; two workers fit a 2-core machine without thrashing.
    maxWorkers: 2,
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
