// The CLI, MCP and node-service suites: they spawn the installed `credence`
// bin, so they run from scripts/test-extra-cli.sh after the package is packed
// and installed, not with the in-process suites of js-tests/vitest/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['js-tests/cli/**/*.test.js'],
    testTimeout: 60000,
    hookTimeout: 60000,
    maxWorkers: 2,
  },
});
