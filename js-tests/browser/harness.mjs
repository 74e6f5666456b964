// Shared set-up for the Chromium tests: Debian's /usr/bin/chromium through
// playwright-core (never `npx playwright install`), a persistent profile in a
// temp dir, and the example's static server with the test pages mounted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../examples/browser-assistant/serve.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HERE = fileURLToPath(new URL('.', import.meta.url));

const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Starts the server and Chromium; `stop()` closes both and removes the profile. */
export async function start({ mounts = {} } = {}) {
  const server = await serve({ mounts: { '/tests/': HERE, ...mounts } });
  const profile = mkdtempSync(join(tmpdir(), 'credence-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
    viewport: { width: 1000, height: 800 },
  });
  const errors = [];
  context.on('page', (page) => watch(page, errors));
  for (const page of context.pages()) watch(page, errors);
  return {
    url: server.url,
    context,
    errors, // uncaught page errors, for tests to assert on
    async stop() {
      await context.close().catch(() => {});
      await server.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

function watch(page, errors) {
  page.on('pageerror', (err) => errors.push(`${page.url()}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`${page.url()}: console: ${msg.text()}`);
  });
}
