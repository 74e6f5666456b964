// Model-based random test through the packed package (SPEC §6): random
// interleavings of remember (older / equal / newer / future valid times,
// several sources, idempotent re-sends, every strategy), rememberMany,
// settle, undo, importBlob (into empty and occupied slots, and a slot's own
// blob imported back), entity merges and their undo, retract and its
// undo, and review passes,
// on any store. After every step `memory.checkInvariants()` must report
// nothing, every acknowledged write must still be explained by `why`, a
// re-sent write must replay, and a refused settle/undo must write nothing.
// The same generator as tests/model_random.rs in spirit; seeds print and replay.
// `wide: true` draws from a wider generator (a separate family of seeds, so
// the plain generator's seeds keep their meaning): back-dated observations,
// stated validTo, a dependent predicate (work_location hangs on works_at),
// retractions at a past time, erase, calibrate, and two agents writing at
// once, the second with a clock up to two days off.
import { mulberry32 } from './mulberry32.mjs';

const SUBJECTS = ['ana', 'bo'];
const ENTITY_NAMES = ['Acme', 'Initech', 'Globex'];
const PREDICATES = ['timezone', 'born_on', 'likes', 'notes', 'works_at'];
// Drawn by the wide generator only: built in, it depends on works_at.
const DEPENDENT = 'work_location';
// Working memory (replace by its type): long bursts move its dead claims to the archive.
const WORKING = 'context.current.task';
const OBJECTS = ['Oslo', 'oslo', 'Oslo, Norway', 'Rome', 'Lima', 'CET'];
const SOURCES = [['a', 0.9], ['b', 0.8], ['c', 0.6], ['d', 0.3]];
const STRATEGIES = [undefined, undefined, undefined, undefined, 'reconcile', 'ask_user', 'append', 'replace', 'confidence_gated', 'llm_merge', 'merge_on_read', 'reject'];
const SETTLEMENTS = ['keep_newer', 'keep_earlier', 'keep_both'];
// A same_entity conflict asks whether two names are one entity.
const ENTITY_SETTLEMENTS = ['same', 'different'];
const DAY = 86_400_000;
// Writes before a memory first calibrates by itself (SPEC §4; default 500):
// small, so background calibrations and their `recalibrated` commits run
// several times a trace, interleaved with the trace's writes, settlements
// and undos. Replayed traces keep the default (they replay a failure as it was).
const BACKGROUND_CALIBRATION_AFTER = 6;

/** Says the first and last entries of a slot are the same thing, the later one newer. */
const eagerJudge = {
  findPairs: (claims) => (claims.length > 1 ? [{ earlier: claims[0].id, newer: claims[claims.length - 1].id }] : []),
  confirmPair: () => ({ sameThing: true, newerInvalidatesEarlier: true, reason: 'the judge says so' }),
};

function generator(rand, wide) {
  const below = (n) => Math.floor(rand() * n);
  const write = () => {
    const v = below(6);
    const valid = v < 2 ? null : v < 4 ? { year: 2023 + below(4) } : v === 4 ? { days: -below(400) } : { days: 1 + below(60) };
    const w = { s: below(2), p: below(5), o: below(6), src: below(4), valid, strat: below(STRATEGIES.length), key: below(3) === 0 ? below(200) : null, entity: below(5) === 0 };
    if (wide) {
      if (below(6) === 0) w.p = PREDICATES.length; // work_location
      if (below(2) === 0) w.obsDaysBack = below(9);
      if (below(8) === 0) w.validToDays = below(2) ? 1 + below(90) : -below(30);
    }
    return w;
  };
  const plain = () => {
    const k = below(23);
    if (k >= 20) return k === 22 ? { op: 'undoRetract', n: below(4) } : { op: 'retract', n: below(16) };
    if (k <= 8) return { op: 'write', w: write() };
    if (k === 9) return { op: 'resend', n: below(8) };
    if (k === 10) return { op: 'batch', ws: Array.from({ length: 1 + below(4) }, write) };
    if (k <= 13) return { op: 'settle', pick: below(8), how: below(3) };
    if (k === 14) return { op: 'undo', pick: below(8) };
    if (k === 15) {
      // Imports into occupied slots: values the slot may hold, at older or
      // newer times, some entries history (not written there), and a blob of
      // a slot exported and imported back (must write nothing).
      const kind = below(5);
      if (kind === 0) return { op: 'import', p: below(5), n: 1 + below(3) };
      if (kind === 1) return { op: 'reimport', s: below(2), p: below(5) };
      // A long run of log-like writes into one slot, free text mixed with values (working memory every turn).
      // One in four is long enough (150+) for working memory's replaced claims to move to the archive (SPEC §8).
      if (kind === 2) return below(4) === 0
        ? { op: 'burst', s: below(2), p: below(5), strat: below(3), n: 150 + below(30), working: true }
        : { op: 'burst', s: below(2), p: below(5), strat: below(3), n: 8 + below(17) };
      const entries = Array.from({ length: 1 + below(3) }, () => ({ o: below(6), conf: 1 + below(10), daysBack: below(400), active: below(5) !== 0 }));
      return { op: 'importValues', s: below(2), p: below(5), entries };
    }
    if (k === 16) return { op: 'review', budget: 3 + below(3) * 4 };
    if (k === 17) return { op: 'merge', a: below(3), b: below(3) };
    if (k === 18) return { op: 'undoMerge', n: below(4) };
    return { op: 'wait', days: 1 + below(200) };
  };
  if (!wide) return plain;
  return () => {
    const k = below(40);
    if (k === 0) return { op: 'erase', n: below(16), whole: below(2) === 0 };
    if (k === 1) return { op: 'calibrate', min: 1 + below(6) };
    if (k === 2) return { op: 'retract', n: below(16), daysBack: 1 + below(20) };
    if (k <= 5) return { op: 'race', ws: [write(), write()] };
    if (k <= 7) return { op: 'expect', w: write(), stale: below(3) === 0 };
    if (k === 8) return { op: 'skew', hours: below(97) - 48 };
    return plain();
  };
}

/** `answer` is `first`, or the copy an entity merge moved it to (merges chain). */
async function sameOrMoved(memory, first, answer) {
  let id = first;
  for (let hop = 0; hop <= ENTITY_NAMES.length; hop++) {
    if (id === answer) return true;
    id = (await memory.why(id)).claim.supersededBy;
    if (!id) return false;
  }
  return false;
}

/**
 * Runs `ops` random operations in traces of `traceLength`, each on a fresh
 * store from `openStore(traceIndex)`. Throws with the seed, the step and the
 * trace so far on the first violation (every violation fails); returns counts otherwise.
 */
export async function runModel({ openStore, seed, ops, traceLength = 50, merge, checkEvery = 1, wide = false, replay, asOf = false, calibrateAfter = replay ? undefined : BACKGROUND_CALIBRATION_AFTER }) {
  const rand = mulberry32(seed);
  // `replay`: one trace's operations as a failure printed them (for shrinking and regression tests).
  const next = replay ? ((queue) => () => queue.shift())([...replay]) : generator(rand, wide);
  if (replay) [ops, traceLength] = [replay.length, replay.length];
  let done = 0;
  let traces = 0;
  while (done < ops) {
    const store = await openStore(traces);
    let t = Date.UTC(2026, 0, 1);
    const config = { store, now: () => new Date(t).toISOString(), maxEntries: 3, merge, judge: eagerJudge, calibrateAfter };
    const memory = new Memory(config);
    // A second agent on the same store (the wide generator's `race`), its clock `skew` off.
    let skew = 0;
    const other = new Memory({ ...config, now: () => new Date(t + skew).toISOString() });
    const keyed = [];
    const acknowledged = [];
    let checkedUpTo = 0;
    const merges = [];
    const retractions = [];
    // The slot version each slot was last seen at (from outcomes), for `expect`.
    const seen = new Map();
    const trace = [];
    const fail = (step, message) => {
      const err = new Error(`model seed ${seed}, trace ${traces}, step ${step}: ${message}\ntrace: ${JSON.stringify(trace)}`);
      err.seed = seed;
      err.memory = memory; // for a debugger to look at the state that failed
      throw err;
    };
    const candidate = (w) => {
      const [sourceId, sourceTrust] = SOURCES[w.src];
      const observedAt = new Date(t - (w.obsDaysBack ?? 0) * DAY).toISOString();
      const c = { predicate: PREDICATES[w.p] ?? DEPENDENT, object: OBJECTS[w.o], provenance: { sourceId, sourceTrust, observedAt } };
      if (w.entity) Object.assign(c, { subject: ENTITY_NAMES[w.s % 3], subjectType: 'org' });
      else c.subject = SUBJECTS[w.s];
      if (w.valid?.year) c.validFrom = `${w.valid.year}-06-01`;
      if (w.valid?.days !== undefined) c.validFrom = new Date(t + w.valid.days * DAY).toISOString();
      if (w.validToDays !== undefined) {
        const from = c.validFrom ? Date.parse(c.validFrom) : t;
        const to = t + w.validToDays * DAY;
        // A stated validTo at or before validFrom is INVALID_TIME: keep the interval proper.
        c.validTo = new Date(Math.max(to, from + DAY)).toISOString();
      }
      if (w.key !== null) c.id = `w${w.key}`;
      return c;
    };
    const stored = (o) => o.action !== 'skipped' && o.action !== 'rejected';
    /** Notes the slot version an outcome left, and its claim if it stored one. */
    const acknowledge = (o) => {
      seen.set(`${o.claim.subject}\u001f${o.claim.predicate}`, o.slotVersion);
      if (stored(o)) acknowledged.push(o.claim.id);
    };
    // Taken with no background calibration running (either agent's): a
    // refused operation must write nothing, and a calibration's
    // `recalibrated` commits between two readings are not the refused operation's.
    const versions = async () => {
      await Promise.all([memory.idle(), other.idle()]);
      return JSON.stringify(await memory.conflicts());
    };
    // `other`: the key sent with other content (perhaps to another slot), which
    // must replay the first write all the same (SPEC §8: an id changes memory once).
    const resend = async (entry, step, other = null) => {
      const o = await memory.remember(other?.candidate ?? entry.candidate, other ? other.options : entry.options);
      if (entry.claimId && (!o.replayed || !(await sameOrMoved(memory, entry.claimId, o.claim.id)))) {
        fail(step, `re-sending ${entry.candidate.id} did not replay: ${o.claim.id} (first ${entry.claimId})`);
      } else if (!entry.claimId && stored(o)) {
        entry.claimId = o.claim.id;
        acknowledged.push(o.claim.id);
      }
    };
    for (let step = 0; step < Math.min(traceLength, ops - done); step++) {
      const op = next();
      trace.push(op);
      t += DAY / 4;
      try {
        switch (op.op) {
          case 'write': {
            const c = candidate(op.w);
            const options = STRATEGIES[op.w.strat] ? { strategy: STRATEGIES[op.w.strat] } : undefined;
            const same = c.id && keyed.find((k) => k.candidate.id === c.id);
            if (same) { await resend(same, step, same.claimId && op.w.key % 2 === 0 ? { candidate: c, options } : null); break; }
            const o = await memory.remember(c, options);
            acknowledge(o);
            if (c.id) keyed.push({ candidate: c, options, claimId: stored(o) ? o.claim.id : null });
            break;
          }
          case 'resend':
            if (keyed.length) await resend(keyed[op.n % keyed.length], step);
            break;
          case 'batch': {
            const cs = op.ws.map((w) => ({ ...candidate(w), id: undefined }));
            const strategy = STRATEGIES[op.ws[0].strat];
            const outs = await memory.rememberMany(cs, strategy ? { strategy } : undefined);
            outs.forEach(acknowledge);
            break;
          }
          case 'expect': {
            // A compare-and-swap write at the slot version last seen (or one behind it).
            const c = { ...candidate(op.w), id: undefined };
            const key = `${c.subject}\u001f${c.predicate}`;
            if (!seen.has(key)) break;
            const expectedVersion = Math.max(0, seen.get(key) - (op.stale ? 1 : 0));
            const before = await versions();
            const beforeSlot = JSON.stringify(await memory.recall(c.subject, { predicate: c.predicate, includeHistory: true }));
            try {
              acknowledge(await memory.remember(c, { expectedVersion }));
            } catch (e) {
              if (e.code !== 'CONCURRENCY') throw e;
              if ((await versions()) !== before) fail(step, `a refused compare-and-swap write to ${key} wrote a conflict`);
              const afterSlot = JSON.stringify(await memory.recall(c.subject, { predicate: c.predicate, includeHistory: true }));
              if (afterSlot !== beforeSlot) fail(step, `a refused compare-and-swap write to ${key} changed the slot`);
            }
            break;
          }
          case 'skew':
            skew = op.hours * 3_600_000;
            break;
          case 'race': {
            // Two agents write at once (different keys: a shared key is a re-send, above).
            const cs = op.ws.map((w) => ({ ...candidate(w), id: undefined }));
            const outs = await Promise.allSettled([memory.remember(cs[0]), other.remember(cs[1])]);
            for (const r of outs) {
              if (r.status === 'fulfilled') acknowledge(r.value);
              else if (r.reason?.code !== 'CONCURRENCY') throw r.reason;
            }
            break;
          }
          case 'settle': {
            // Listed with no calibration running: one could close a listed conflict as moot meanwhile.
            const before = await versions();
            const all = await memory.conflicts();
            if (!all.length) break;
            const c = all[op.pick % all.length];
            try {
              const how = c.kind === 'same_entity' ? ENTITY_SETTLEMENTS[op.how % 2] : SETTLEMENTS[op.how];
              await memory.settle(c.id, how, { by: 'model' });
              if (c.status === 'settled' || c.status === 'moot') fail(step, `settled closed conflict ${c.id} (${c.status})`);
            } catch (e) {
              if (e.code !== 'CONFLICT_ALREADY_SETTLED' || c.status === 'open') throw e;
              if ((await versions()) !== before) fail(step, `a refused settle of ${c.id} wrote something`);
            }
            break;
          }
          case 'undo': {
            const before = await versions();
            const settled = await memory.conflicts({ status: 'settled' });
            if (!settled.length) break;
            const id = settled[op.pick % settled.length].id;
            try {
              await memory.undo(id);
            } catch (e) {
              if (e.code !== 'UNDO_STALE') throw e;
              if ((await versions()) !== before) fail(step, `a refused undo of ${id} wrote something`);
            }
            break;
          }
          case 'import': {
            const entries = Array.from({ length: op.n }, (_, i) => ({ content: `imported ${i}`, confidence: 0.7, timestamp: 1_700_000_000 + i, status: 'active' }));
            const outs = await memory.importBlob({ key: PREDICATES[op.p], content: '', confidence: 0.7, timestamp: 1_700_000_000, schema_version: 2, entries }, { subject: SUBJECTS[0] });
            outs.forEach(acknowledge);
            break;
          }
          case 'importValues': {
            const entries = op.entries.map((e) => ({ content: OBJECTS[e.o], confidence: e.conf / 10, timestamp: (t - e.daysBack * DAY) / 1000, status: e.active ? 'active' : 'superseded' }));
            const outs = await memory.importBlob({ key: PREDICATES[op.p], content: '', confidence: 1, timestamp: 0, schema_version: 2, entries }, { subject: SUBJECTS[op.s] });
            if (outs.length !== entries.length) fail(step, `importBlob answered ${outs.length} outcomes for ${entries.length} entries`);
            outs.forEach(acknowledge);
            break;
          }
          case 'burst': {
            const strategy = ['replace', 'append', 'merge_on_read'][op.strat];
            for (let i = 0; i < op.n; i++) {
              t += DAY / 100;
              const [sourceId, sourceTrust] = SOURCES[i % SOURCES.length];
              const object = i % 3 === 0 ? OBJECTS[i % OBJECTS.length] : `turn ${i}`;
              const predicate = op.working ? WORKING : PREDICATES[op.p];
              acknowledge(await memory.remember({ subject: SUBJECTS[op.s], predicate, object, provenance: { sourceId, sourceTrust } }, { strategy }));
            }
            break;
          }
          case 'reimport': {
            const blob = await memory.blob(PREDICATES[op.p], { subject: SUBJECTS[op.s] });
            const before = JSON.stringify(await memory.recall(SUBJECTS[op.s], { predicate: PREDICATES[op.p], includeHistory: true }));
            const outs = await memory.importBlob(blob, { subject: SUBJECTS[op.s] });
            const after = JSON.stringify(await memory.recall(SUBJECTS[op.s], { predicate: PREDICATES[op.p], includeHistory: true }));
            if (after !== before || outs.some((o) => !o.replayed)) fail(step, `importing the blob of ${SUBJECTS[op.s]}/${PREDICATES[op.p]} back wrote something`);
            break;
          }
          case 'review':
            await memory.review({ judge: eagerJudge, budget: op.budget });
            break;
          case 'merge': {
            const a = await memory.entity(ENTITY_NAMES[op.a], { type: 'org' });
            const b = await memory.entity(ENTITY_NAMES[op.b], { type: 'org' });
            if (!a || !b) break;
            try {
              merges.push((await memory.mergeEntities(a.entity.id, b.entity.id)).id);
            } catch (e) {
              if (e.code !== 'INVALID_INPUT') throw e;
            }
            break;
          }
          case 'undoMerge':
            if (!merges.length) break;
            try {
              await memory.undoEntityMerge(merges[op.n % merges.length]);
            } catch (e) {
              if (e.code !== 'INVALID_INPUT' && e.code !== 'UNDO_STALE') throw e;
            }
            break;
          case 'wait':
            t += op.days * DAY;
            break;
          case 'retract': {
            if (!acknowledged.length) break;
            const id = acknowledged[op.n % acknowledged.length];
            // Read with no calibration running: its `recalibrated` commits change statuses.
            const before = await versions();
            const { claim } = await memory.why(id);
            if (!['active', 'disputed', 'outweighed'].includes(claim.status)) break;
            const at = op.daysBack ? { at: new Date(t - op.daysBack * DAY).toISOString() } : {};
            try {
              const r = await memory.retract(id, { reason: 'model', by: 'model', ...at });
              if (r.claim.status !== 'retracted') fail(step, `retracting ${id} left it ${r.claim.status}`);
              retractions.push(r.id);
            } catch (e) {
              // Only a stated past time before the claim began is refused; with no
              // time, a claim that has not begun (scheduled) is withdrawn instead.
              if (e.code !== 'INVALID_TIME' || !op.daysBack) throw e;
              if ((await versions()) !== before) fail(step, `a refused retraction of ${id} wrote something`);
            }
            break;
          }
          case 'erase': {
            if (!acknowledged.length) break;
            const id = acknowledged[op.n % acknowledged.length];
            const { claim, tombstone } = await memory.why(id);
            if (tombstone) break;
            const target = op.whole ? { subject: claim.subject, predicate: claim.predicate } : { subject: claim.subject, claimId: id };
            const e = await memory.erase(target, { reason: 'model', by: 'model' });
            if (!e.tombstones.some((x) => x.claimId === id)) fail(step, `erasing ${id} left no tombstone for it`);
            const after = await memory.why(id);
            if (!after.tombstone) fail(step, `why(${id}) after erase shows no tombstone`);
            if (after.claim.object === claim.object && claim.object !== '[erased]') fail(step, `erase of ${id} left its object`);
            break;
          }
          case 'calibrate': {
            const c = await memory.calibrate({ minObservations: op.min });
            if (!(c.version >= 1)) fail(step, `calibrate returned version ${c.version}`);
            break;
          }
          case 'undoRetract': {
            if (!retractions.length) break;
            const id = retractions[op.n % retractions.length];
            const before = await versions();
            try {
              await memory.undo(id);
              retractions.splice(retractions.indexOf(id), 1);
            } catch (e) {
              if (e.code !== 'UNDO_STALE') throw e;
              if ((await versions()) !== before) fail(step, `a refused undo of retraction ${id} wrote something`);
            }
            break;
          }
        }
      } catch (e) {
        if (e.seed !== undefined) throw e;
        fail(step, `unexpected error ${e.code ?? ''}: ${e.message}`);
      }
      if (asOf && step === Math.min(traceLength, ops - done) - 1) {
        const v = await historyBesideAnother(memory);
        if (v) fail(step, v);
      }
      const last = step === Math.min(traceLength, ops - done) - 1;
      if (step % checkEvery === 0 || last) {
        const [v] = await memory.checkInvariants();
        if (v) fail(step, `violation [${v.rule}] ${v.subject}/${v.predicate}: ${v.message}`);
        // Every acknowledged claim at a trace's end; between, those acknowledged
        // since the last check and a rotating sample of the rest (why(id) reads
        // the slot's log: all of them every step made long traces quadratic).
        const sample = last ? acknowledged : [...acknowledged.slice(checkedUpTo), ...acknowledged.filter((_, i) => i % 8 === step % 8).slice(0, 16)];
        checkedUpTo = acknowledged.length;
        for (const id of sample) {
          try { await memory.why(id); } catch { fail(step, `acknowledged claim ${id} is gone`); }
        }
      }
    }
    // The trace's background calibrations end on its own store.
    await Promise.all([memory.idle(), other.idle()]);
    done += trace.length;
    traces += 1;
  }
  return { ops: done, traces, violations: 0 };
}

const ENTRY_RULES = new Set(['append', 'merge_on_read', 'replace', 'ask_user', 'llm_merge', 'confidence_gated', 'import', 'reject', 'merged']);
const SINGLE = new Set(['timezone', 'born_on', 'works_at', 'work_location', 'notes']);

/**
 * `asOf: true` (on in the suites; CREDENCE_MODEL_ASOF=0 leaves it out): an
 * as-of read of a single-valued slot shows one value at a time (SPEC §6),
 * never a history claim (superseded, retracted) beside another value; only
 * disputed claims and active ones a person kept together stand side by side,
 * entries aside. Checked at every stated start, end and observation time of
 * the slot's claims, and halfway between each two, at the end of each trace.
 * Before the read rule of 2026-12-02 (read.rs `one_value_at_a_time`) it
 * flagged 38 of 40 plain seeds: a retracted claim beside a value stated for
 * part of its period.
 */
async function historyBesideAnother(memory) {
  for (const subject of await memory.subjects()) {
    const all = await memory.recall(subject, { includeHistory: true });
    for (const predicate of new Set(all.map((c) => c.predicate))) {
      if (!SINGLE.has(predicate)) continue;
      const claims = all.filter((c) => c.predicate === predicate);
      const stated = [...new Set(claims.flatMap((c) => [c.validFrom, c.validTo, ...c.provenance.map((p) => p.observedAt)].filter(Boolean)))];
      const ms = stated.map((t) => Date.parse(t)).sort((a, b) => a - b);
      const between = ms.slice(1).map((t, i) => new Date((t + ms[i]) / 2).toISOString());
      for (const at of [...stated, ...between]) {
        const shown = await memory.recall(subject, { predicate, at });
        let entry = false;
        for (const c of shown) {
          const first = (await memory.why(c.id)).log.find((l) => (l.claimIds ?? []).includes(c.id));
          if (ENTRY_RULES.has(first?.rule)) entry = true;
        }
        if (entry) continue;
        // Disputed claims and active ones a person kept together may stand side by side.
        const undisputed = shown.filter((c) => c.status !== 'disputed');
        const values = new Set(undisputed.map((c) => c.object.toLowerCase().split(',')[0]));
        if (values.size > 1 && undisputed.some((c) => c.status !== 'active')) {
          return `as of ${at}, ${subject}/${predicate} shows ${shown.map((c) => `${c.object} (${c.status})`).join(', ')}`;
        }
      }
    }
  }
  return null;
}

let Memory;
/** The package's Memory class (injected so the driver imports nothing itself). */
export function useMemory(cls) {
  Memory = cls;
}

/** The seed for this run: CREDENCE_MODEL_SEED, else a fresh one (printed by the caller). */
export function modelSeed() {
  const fixed = Number(process.env.CREDENCE_MODEL_SEED);
  return Number.isInteger(fixed) && fixed > 0 ? fixed : 1 + Math.floor(Math.random() * 2 ** 31);
}

/** A merge hook that joins texts, as the Rust harness does. */
export const joiningMerge = (entries, incoming) => [...entries.map((e) => e.object), incoming.object].join(' + ');
