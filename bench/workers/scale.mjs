// Section 9 (scale), in its own process: each operation's cost on one store
// at several sizes, printed as one JSON line.
//
//   node bench/workers/scale.mjs <memory|okf|indexeddb|postgres> <sizes, e.g. 1000,10000> <reps> <tmpdir>
//   (postgres: on DATABASE_URL, one fresh scope per size)
//
// Each size gets a fresh store filled by copying the slots of a template the
// engine wrote (claims, conflicts, idempotency records, log) under fresh
// subjects and ids through commitSlot, as section 3 does. The slots memory
// keeps for itself (one per org entity, with its key rows, and the calibration
// record) are copied once, as they are: they grow with distinct names, not
// with copies. Copies come
// reviewed and with their conflicts closed, so the answers of conflicts() and
// review() stay the same size at every store size: what grows is only what
// the answer does not depend on.
import { Memory } from 'credence';
import { isReservedText, medianOf, nsSince, now } from '../lib.mjs';
import { closeStores, openStore as openKindOf, templateSlots } from './stores.mjs';
import { workload } from '../workload.mjs';

const [kind, sizesArg, repsArg, tmp] = process.argv.slice(2);
const sizes = sizesArg.split(',').map(Number);
const reps = Number(repsArg);
const judge = { findPairs: () => [], confirmPair: () => ({ sameThing: false, newerInvalidatesEarlier: false, reason: '' }) };

const openStore = (size) => openKindOf(kind, `scale-${size}`, tmp);

// The template, written by the engine once.
const slots = await templateSlots(workload(1000, { seed: 1000, prefix: 't_' }));
const plain = slots.filter((s) => !isReservedText(s));
const reserved = slots.filter(isReservedText);

async function fill(store, target) {
  let claims = 0;
  for (const text of reserved) {
    const { ref, slot, log, index } = JSON.parse(text);
    await store.commitSlot({ ref, expectedVersion: 0, slot, log, index, changedClaims: slot.claims.map((c) => c.id), changedConflicts: slot.conflicts.map((c) => c.id) });
  }
  let sample = null;
  for (let k = 0; claims < target; k++) {
    for (const text of plain) {
      const { ref, slot, log } = JSON.parse(text.replaceAll('"t_', `"c${k}_`).replaceAll('"cl_', `"cl_${k}x`).replaceAll('"cf_', `"cf_${k}x`));
      slot.reviewed = slot.claims.length;
      for (const c of slot.conflicts) if (c.status === 'open') c.status = 'moot';
      await store.commitSlot({ ref, expectedVersion: 0, slot, log, changedClaims: slot.claims.map((c) => c.id), changedConflicts: slot.conflicts.map((c) => c.id) });
      sample ??= { subject: ref.subject, claimId: slot.claims[0].id };
      claims += slot.claims.length;
      if (claims >= target) break;
    }
  }
  return { claims, sample };
}

const timeOf = (fn) => medianOf(reps, fn);

const out = { store: kind, reps, sizes: {} };
// A first, unrecorded size warms the JIT, so the smallest size is not the coldest.
for (const size of [Math.min(300, sizes[0]), ...sizes]) {
  const warmUp = out.warm === undefined;
  const store = await openStore(warmUp ? 'warm-up' : size);
  const t0 = now();
  const { claims, sample } = await fill(store, size);
  const fillSeconds = nsSince(t0) / 1e9;
  const memory = new Memory({ store });
  // A few open conflicts, the same at every size.
  for (let i = 0; i < 3; i++) {
    await memory.remember({ subject: `probe_cf_${i}`, predicate: 'preferences.theme', object: 'dark' });
    await memory.remember({ subject: `probe_cf_${i}`, predicate: 'preferences.theme', object: 'light' }, { strategy: 'ask_user' });
  }
  const ops = {
    rememberNewSlot: await timeOf((i) => memory.remember({ subject: `probe_new_${i}`, predicate: 'likes', object: 'green tea' })),
    rememberHotSlot: await timeOf(() => memory.remember({ subject: 'probe_hot', predicate: 'located_in', object: 'Paris' })),
    rememberEntityTyped: await timeOf((i) => memory.remember({ subject: `probe_org_${i}`, predicate: 'works_at', object: `Probe Org ${i + 2}` })),
    recall: await timeOf(() => memory.recall(sample.subject)),
    why: await timeOf(() => memory.why(sample.claimId)),
    conflicts: await timeOf(() => memory.conflicts({ status: 'open' })),
  };
  await memory.review({ judge, budget: 100_000 }); // the probe writes' slots
  ops.reviewNothingNew = await timeOf(() => memory.review({ judge }));
  if (warmUp) {
    out.warm = claims;
    store.close?.();
    continue;
  }
  out.sizes[size] = { claims, fillSeconds, ops };
  store.close?.();
  process.stderr.write(`scale ${kind} ${size}: ${JSON.stringify(ops)}\n`);
}
await closeStores();
console.log(JSON.stringify(out));
