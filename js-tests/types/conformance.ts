// Type-level use of `credence/conformance`: Vitest's test functions fit its
// `test` option as they are (no cast), and a setup returns a ConformanceHandle.
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from 'credence';
import { claim, commit, ref, runStoreConformance, slot, type ConformanceHandle } from 'credence/conformance';

const setup = ({ scope }: { scope: string }): ConformanceHandle => {
  const store = new MemoryStore();
  void scope;
  return { store, reopen: () => store, teardown: () => undefined };
};
runStoreConformance('MemoryStore', setup, { test: { describe, it, expect, afterEach }, timeout: 10_000, writers: 2, writes: 8 });
runStoreConformance('MemoryStore, async setup', async () => ({ store: new MemoryStore() }));

const first = commit(ref('user', 'likes'), 0, slot(1, [claim('cl_1', 'tea')]));
const version: number = first.slot.version;
void version;
