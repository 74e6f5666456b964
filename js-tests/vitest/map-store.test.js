// The README's store written from scratch over Maps (examples/map-store.mjs)
// passes the conformance suite every shipped store passes, and the README
// shows that file as it is.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runStoreConformance } from 'credence/conformance';
import { MapStore } from '../../examples/map-store.mjs';

const test = { describe, it, expect, afterEach };

runStoreConformance('MapStore (README example)', async ({ scope }) => ({
  store: new MapStore({ scope }),
  reopen: () => new MapStore({ scope }),
  raw: () => JSON.stringify([...new MapStore({ scope }).data.slots.values()]) + JSON.stringify([...new MapStore({ scope }).data.logs.values()]),
}), { test });

describe('the README', () => {
  it('shows examples/map-store.mjs whole', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const code = readFileSync(new URL('../../examples/map-store.mjs', import.meta.url), 'utf8');
    const body = code.slice(code.indexOf('const backing'));
    expect(readme).toContain(body.trim());
  });
});
