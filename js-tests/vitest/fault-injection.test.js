// Issue 11: a store that fails at the Nth call — throwing, rejecting, timing
// out, or returning malformed data — for every N of every operation. After
// each failure memory equals its state before the operation, and the
// operation succeeds when retried.
import { describe, expect, it } from 'vitest';
import { Memory, MemoryStore, CredenceError } from 'credence';

const METHODS = ['loadSlot', 'loadSlotToWrite', 'commitSlot', 'findClaim', 'findConflict', 'listSlots', 'readLog', 'listConflicts', 'dirtySlots'];
const READS = new Set(['loadSlot', 'loadSlotToWrite', 'findClaim', 'findConflict', 'listSlots', 'readLog', 'listConflicts', 'dirtySlots']);

function faultyStore(inner) {
  const state = { calls: 0, failAt: 0, mode: 'throw' };
  const store = { state };
  for (const m of METHODS) {
    store[m] = (...args) => {
      state.calls += 1;
      if (state.failAt === state.calls) {
        const mode = state.mode === 'malformed' && !READS.has(m) ? 'throw' : state.mode;
        if (mode === 'throw') throw new Error(`injected throw in ${m}`);
        if (mode === 'reject') return Promise.reject(new Error(`injected rejection in ${m}`));
        if (mode === 'timeout') return new Promise((_, reject) => setTimeout(() => reject(new Error(`${m} timed out`)), 2));
        if (mode === 'malformed') return Promise.resolve(['listSlots', 'listConflicts', 'dirtySlots'].includes(m) ? [{ key: 7 }] : { version: 'seven', claims: 'none' });
      }
      // A store that holds snapshots (ClaimStore.loadSlotToWrite): here always the slot as it is.
      if (m === 'loadSlotToWrite') return Promise.resolve(inner.loadSlot(...args)).then((slot) => ({ slot, held: true }));
      return inner[m](...args);
    };
  }
  return store;
}

// What memory says, without ids and clocks: comparable across runs.
async function shape(inner) {
  const out = [];
  for (const ref of await inner.listSlots({})) out.push([ref.key, (await inner.loadSlot(ref)).claims.map((c) => `${c.object}:${c.status}`)]);
  return JSON.stringify(out);
}

async function dump(inner) {
  const out = [];
  for (const ref of await inner.listSlots({})) out.push([ref.key, await inner.loadSlot(ref), await inner.readLog(ref)]);
  return JSON.stringify(out);
}

const judge = {
  findPairs: (claims) => [{ earlier: claims[0].id, newer: claims[claims.length - 1].id }],
  confirmPair: () => ({ sameThing: true, newerInvalidatesEarlier: true, reason: 'changed' }),
};

const OPS = [
  ['remember (add)', (m) => m.remember({ predicate: 'located_in', object: 'NYC' })],
  ['remember (supersede)', (m) => m.remember({ predicate: 'located_in', object: 'SF' })],
  ['remember (idempotent add)', (m) => m.remember({ predicate: 'born_on', object: '1990-01-01', provenance: { sourceId: 'a' }, id: 'w1' })],
  ['remember (dispute)', (m) => m.remember({ predicate: 'born_on', object: '1990-02-01', provenance: { sourceId: 'b' }, id: 'w2' })],
  ['settle', async (m) => m.settle((await m.conflicts({ status: 'open' }))[0].id, 'keep_newer', { by: 't' })],
  ['undo', async (m) => m.undo((await m.conflicts({ status: 'settled' }))[0].id)],
  ['rememberMany', (m) => m.rememberMany([{ predicate: 'experience.log', object: 'a', id: 'b1' }, { predicate: 'experience.log', object: 'b', id: 'b2' }, { predicate: 'likes', object: 'tea', id: 'b3' }])],
  ['review', (m) => m.review({ judge })],
  ['why', async (m) => m.why((await m.recall('user', { predicate: 'located_in' }))[0].id)],
];

/** A clock a second further on each call: writes never share an instant (SPEC §3 weighs same-instant reports together). */
const ticking = () => {
  let t = Date.parse('2026-01-01T00:00:00Z');
  return () => new Date((t += 1000)).toISOString();
};

describe('fault injection at every call', () => {
  for (const mode of ['throw', 'reject', 'timeout', 'malformed']) {
    it(`leaves memory unchanged on a ${mode} at any call, and succeeds on retry`, async () => {
      let injected = 0;
      const clean = [];
      {
        const inner = new MemoryStore();
        const memory = new Memory({ store: inner, now: ticking() });
        for (const [, op] of OPS) {
          await op(memory);
          clean.push(await shape(inner));
        }
      }
      for (let i = 0; i < OPS.length; i++) {
        for (let n = 1; ; n++) {
          const inner = new MemoryStore();
          const store = faultyStore(inner);
          const memory = new Memory({ store, now: ticking() });
          for (const [, setup] of OPS.slice(0, i)) await setup(memory);
          const before = await dump(inner);
          store.state.calls = 0;
          store.state.failAt = n;
          store.state.mode = mode;
          const [name, op] = OPS[i];
          let failed = null;
          try {
            await op(memory);
          } catch (e) {
            failed = e;
          }
          const called = store.state.calls;
          store.state.failAt = 0;
          if (!failed) {
            expect(called, `${name}: the failure at call ${n} was never reached`).toBeLessThan(n);
            break;
          }
          injected += 1;
          expect(failed, `${name} @${n}`).toBeInstanceOf(CredenceError);
          expect(['STORE_FAILED', 'MALFORMED_STORE_DATA', 'CONFLICT_NOT_FOUND', 'CLAIM_NOT_FOUND']).toContain(failed.code);
          if (name === 'rememberMany' || name === 'review') {
            // Per-slot atomic: earlier slots may be committed; the error says so.
            if ((await dump(inner)) !== before) expect(failed.message).toMatch(/already committed/);
          } else {
            expect(await dump(inner), `${name} failing at call ${n} (${mode}) changed memory`).toBe(before);
          }
          await expect(op(memory), `${name} retried`).resolves.toBeDefined();
          expect(await shape(inner), `${name} retried after a failure at call ${n}`).toBe(clean[i]);
        }
      }
      expect(injected).toBeGreaterThan(30);
    });
  }
});
