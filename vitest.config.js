import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['js-tests/vitest/**/*.test.js'],
    testTimeout: 30000,
    hookTimeout: 60000,
  },
});
