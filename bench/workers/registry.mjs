// Section 9 (scale), entities: an entity-typed write's cost as the number of
// entities of its type grows, on one store, printed as one JSON line. Each
// entity is a slot of its own and the store answers a name by its keys
// (findEntities), so a write depends on the entities of its type only through
// that look-up. Each size gets a fresh memory filled by the engine itself
// (rememberMany, one new org per write, names that share no word), then two
// probes are timed, medians of `reps`:
//   a write naming a new org (its exact and near keys looked up, its entity slot committed),
//   a write naming a known org (the common case: the look-up and its entity's slot),
//   and (stores other processes share) a new org written by a second store
//   object on the same data after the first wrote one: it finds the first's org
//   by key like any other, nothing to reload.
//
//   node bench/workers/registry.mjs <sizes, e.g. 1000,10000> <reps> [memory|okf|indexeddb|postgres] [tmpdir]
//   (postgres: on DATABASE_URL, one fresh scope per size)
//   The file keeps its name from the per-type registry it measured before issue #44.
import { Memory } from 'credence';
import { median, medianOf, now, nsSince, orgName as org } from '../lib.mjs';
import { closeStores, openStore as openKindOf } from './stores.mjs';

const [sizesArg, repsArg, kind = 'memory', tmp] = process.argv.slice(2);
const sizes = sizesArg.split(',').map(Number);
const reps = Number(repsArg);
const openStore = (size) => openKindOf(kind, `registry-${size}`, tmp);

const timeOf = (fn) => medianOf(reps, fn);

const out = { store: kind, reps, sizes: {} };
// A first, unrecorded size warms the JIT.
for (const size of [Math.min(300, sizes[0]), ...sizes]) {
  const warmUp = out.warm === undefined;
  const memory = new Memory({ store: await openStore(size) });
  for (let i = 0; i < size; i += 500) {
    await memory.rememberMany(Array.from({ length: Math.min(500, size - i) }, (_, k) => ({ subject: `p${i + k}`, predicate: 'works_at', object: org(i + k) })));
  }
  const entities = size;
  const ops = {
    newEntity: await timeOf((i) => memory.remember({ subject: `probe_new_${i}`, predicate: 'works_at', object: org(10_000_000 + i + 2) })),
    knownEntity: await timeOf((i) => memory.remember({ subject: `probe_known_${i}`, predicate: 'works_at', object: org((i + 2) * 7919 % size) })),
  };
  if (kind !== 'memory') {
    const other = new Memory({ store: await openKindOf(kind, `registry-${size}`, tmp, true) });
    const runs = [];
    for (let i = -1; i < reps; i++) {
      await memory.remember({ subject: `probe_a_${i}`, predicate: 'works_at', object: org(20_000_000 + i * 2) });
      const t0 = now();
      await other.remember({ subject: `probe_b_${i}`, predicate: 'works_at', object: org(20_000_001 + i * 2) });
      if (i >= 0) runs.push(nsSince(t0));
    }
    ops.newEntityAfterOther = median(runs);
  }
  if (warmUp) out.warm = { entities };
  else out.sizes[size] = { entities, ops };
}
console.log(JSON.stringify(out));
await closeStores();
