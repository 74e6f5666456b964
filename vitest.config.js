import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['js-tests/vitest/**/*.test.js'],
    testTimeout: 30000,
    hookTimeout: 60000,
    // Vitest's own default leaves a core idle (cores − 1: one worker on a
    // 2-core machine); its main process only waits, so every core runs a file.
    maxWorkers: availableParallelism(),
  },
});
