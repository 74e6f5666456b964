// Random concurrent use of the public API (SPEC §6, §8): three agents, each
// its own Memory over its own store object on the same data (as separate
// processes would be), run two to four random operations at once — writes
// (every strategy, keyed or not, back-dated, scheduled), rememberMany,
// settle, undo, retract and its undo, entity merges and their undo, erase,
// review, calibrate, and one keyed write sent by two agents at once. Store
// calls yield at random, so the operations interleave at every await. After
// each round a fourth store object checks `checkInvariants()` and that every
// acknowledged write is still explained by `why`. A neighbour on another
// tenant's store (another scope, or another store) writes the same subjects
// meanwhile: none of its claims may show through.
//
// An operation may lose a race: it must then fail with one of the codes in
// RACE_CODES and write nothing it should not (the invariants say so). Any
// other error, a violation, a lost write, or one keyed write stored twice
// fails the run with the seed, the round and the trace.
import { mulberry32 } from './mulberry32.mjs';

const SUBJECTS = ['ana', 'bo'];
const NAMES = ['Acme', 'Initech', 'Globex', 'Acme Bank'];
const PREDICATES = ['timezone', 'born_on', 'likes', 'notes', 'works_at', 'work_location'];
const OBJECTS = ['Oslo', 'oslo', 'Oslo, Norway', 'Rome', 'Lima', 'CET'];
const SOURCES = [['a', 0.9], ['b', 0.8], ['c', 0.6], ['d', 0.3]];
const STRATEGIES = [undefined, undefined, undefined, 'reconcile', 'ask_user', 'append', 'replace', 'confidence_gated', 'llm_merge', 'reject'];
const DAY = 86_400_000;

/** What losing a race to another agent may answer. */
export const RACE_CODES = new Set(['CONCURRENCY', 'CONFLICT_ALREADY_SETTLED', 'CONFLICT_NOT_SETTLED', 'UNDO_STALE', 'CLAIM_NOT_LIVE']);
/** Writes before an agent first calibrates by itself (default 500): several background calibrations a run. */
const BACKGROUND_CALIBRATION_AFTER = 3;
/** An entity merged by another agent in the meantime (merge, settle "same"). */
const mergedMeanwhile = (e) => e?.code === 'INVALID_INPUT' && /already merged|no entity/.test(e.message);

const judge = {
  findPairs: (claims) => (claims.length > 1 ? [{ earlier: claims[0].id, newer: claims[claims.length - 1].id }] : []),
  confirmPair: () => ({ sameThing: true, newerInvalidatesEarlier: true, reason: 'the judge says so' }),
};
const merge = (entries, incoming) => [...entries.map((e) => e.object), incoming.object].join(' + ');

/** `inner`'s store methods, each pausing a random number of turns of the event loop before and after. */
function yielding(inner, rand) {
  const pause = async () => {
    for (let i = Math.floor(rand() * 4); i > 0; i--) await new Promise((resolve) => setImmediate(resolve));
  };
  const out = {};
  for (const m of ['loadSlot', 'loadSlotToWrite', 'commitSlot', 'findClaim', 'findConflict', 'findWrite', 'listSlots', 'readLog', 'eraseSlot', 'listConflicts', 'dirtySlots', 'findEntities']) {
    if (typeof inner[m] === 'function') {
      out[m] = async (...args) => {
        await pause();
        const r = await inner[m](...args);
        await pause();
        return r;
      };
    }
  }
  return out;
}

/**
 * One run of `rounds` rounds. `openStore(tenant)` returns a new store object on
 * the run's data of tenant 0 or 1 (called once per agent and once for the
 * checker, with 0; once for the neighbour, with 1).
 */
export async function runConcurrent({ Memory, openStore, seed, rounds }) {
  const rand = mulberry32(seed);
  const below = (n) => Math.floor(rand() * n);
  const pauses = mulberry32(seed * 7 + 1);
  let t = Date.UTC(2026, 0, 1);
  const now = () => new Date(t).toISOString();
  // Each agent and the neighbour also calibrate by themselves, in the background, every few writes
  // (SPEC §4): calibrations and their `recalibrated` commits race the agents' writes and one another.
  const calibrateAfter = BACKGROUND_CALIBRATION_AFTER; // a name the config shorthand reads
  const agents = [0, 1, 2].map(() => new Memory({ store: yielding(openStore(0), pauses), now, maxEntries: 3, merge, judge, calibrateAfter }));
  const checker = new Memory({ store: openStore(0), now, merge, judge });
  const neighbour = new Memory({ store: yielding(openStore(1), pauses), now, merge, judge, calibrateAfter });
  const theirs = new Set();
  const acknowledged = [];
  const merges = [];
  const retractions = [];
  const trace = [];
  const fail = (round, message) => {
    throw new Error(`concurrency seed ${seed}, round ${round}: ${message}\ntrace: ${JSON.stringify(trace)}`);
  };
  const ack = (o) => {
    if (o.action !== 'skipped' && o.action !== 'rejected') acknowledged.push(o.claim.id);
  };
  const candidate = () => {
    const [sourceId, sourceTrust] = SOURCES[below(4)];
    const c = { predicate: PREDICATES[below(PREDICATES.length)], object: OBJECTS[below(6)], provenance: { sourceId, sourceTrust, observedAt: new Date(t - below(5) * DAY).toISOString() } };
    if (below(4) === 0) Object.assign(c, { subject: NAMES[below(NAMES.length)], subjectType: 'org' });
    else c.subject = SUBJECTS[below(2)];
    const v = below(5);
    if (v === 1) c.validFrom = `${2023 + below(4)}-06-01`;
    if (v === 2) c.validFrom = new Date(t - below(300) * DAY).toISOString();
    if (v === 3) c.validFrom = new Date(t + (1 + below(30)) * DAY).toISOString();
    if (below(3) === 0) c.id = `k${below(40)}`;
    return c;
  };
  const pick = (list) => list[below(list.length)];

  const operation = async (memory, conflicts) => {
    const k = below(23);
    if (k <= 7) {
      const c = candidate();
      const strategy = pick(STRATEGIES);
      trace.push(['write', c, strategy ?? null]);
      ack(await memory.remember(c, strategy ? { strategy } : undefined));
    } else if (k === 8) {
      const cs = [candidate(), candidate()].map((c) => ({ ...c, id: undefined }));
      trace.push(['batch', cs]);
      (await memory.rememberMany(cs)).forEach(ack);
    } else if (k <= 10) {
      const open = conflicts.filter((c) => c.status !== 'settled' && c.status !== 'moot');
      if (!open.length) return;
      const c = pick(open);
      const how = c.kind === 'same_entity' ? pick(['same', 'different']) : pick(['keep_newer', 'keep_earlier', 'keep_both']);
      trace.push(['settle', c.id, how]);
      try {
        await memory.settle(c.id, how, { by: 'agent' });
      } catch (e) {
        if (!mergedMeanwhile(e)) throw e;
      }
    } else if (k === 11) {
      const settled = conflicts.filter((c) => c.status === 'settled');
      if (!settled.length) return;
      const id = pick(settled).id;
      trace.push(['undo', id]);
      await memory.undo(id);
    } else if (k === 12) {
      if (!acknowledged.length) return;
      const id = pick(acknowledged);
      const { claim } = await memory.why(id);
      if (!['active', 'disputed', 'outweighed'].includes(claim.status)) return;
      trace.push(['retract', id]);
      retractions.push((await memory.retract(id, { by: 'agent', reason: 'random' })).id);
    } else if (k === 13) {
      if (!retractions.length) return;
      const id = pick(retractions);
      trace.push(['undoRetract', id]);
      await memory.undo(id);
    } else if (k === 14) {
      const a = await memory.entity(pick(NAMES), { type: 'org' });
      const b = await memory.entity(pick(NAMES), { type: 'org' });
      if (!a || !b || a.entity.id === b.entity.id) return;
      trace.push(['merge', a.entity.id, b.entity.id]);
      try {
        merges.push((await memory.mergeEntities(a.entity.id, b.entity.id)).id);
      } catch (e) {
        if (!mergedMeanwhile(e)) throw e;
      }
    } else if (k === 15) {
      if (!merges.length) return;
      const id = pick(merges);
      trace.push(['undoMerge', id]);
      try {
        await memory.undoEntityMerge(id);
      } catch (e) {
        // Undone already (by another agent), or one side merged on since.
        if (e.code !== 'INVALID_INPUT') throw e;
      }
    } else if (k === 16) {
      trace.push(['review']);
      await memory.review({ budget: 5 });
    } else if (k === 17) {
      if (!acknowledged.length) return;
      const id = pick(acknowledged);
      const { claim, tombstone } = await memory.why(id);
      if (tombstone) return;
      trace.push(['erase', id]);
      await memory.erase({ subject: claim.subject, claimId: id }, { by: 'agent', reason: 'random' });
    } else if (k === 18) {
      const c = { ...candidate(), id: `twice${below(1000)}` };
      trace.push(['sentTwice', c]);
      const [a, b] = await Promise.all([agents[0].remember(c), agents[1].remember(c)]);
      ack(a);
      ack(b);
      if (a.claim.id !== b.claim.id && a.action !== 'skipped' && b.action !== 'skipped') {
        throw new Error(`one keyed write sent by two agents at once made two claims: ${a.claim.id} (${a.action}) and ${b.claim.id} (${b.action})`);
      }
    } else if (k === 20) {
      const c = { ...candidate(), id: undefined };
      trace.push(['neighbour', c]);
      const o = await neighbour.remember(c);
      if (o.action !== 'skipped' && o.action !== 'rejected') theirs.add(o.claim.id);
    } else if (k === 19 && below(3) === 0) {
      trace.push(['calibrate']);
      await memory.calibrate({ minObservations: 2 });
    } else {
      t += below(30) * DAY;
    }
  };

  for (let round = 0; round < rounds; round++) {
    const conflicts = await checker.conflicts();
    const results = await Promise.allSettled(Array.from({ length: 2 + below(3) }, () => operation(pick(agents), conflicts)));
    for (const r of results) {
      if (r.status === 'rejected' && !RACE_CODES.has(r.reason?.code)) fail(round, `unexpected error ${r.reason?.code ?? ''}: ${r.reason?.message}`);
    }
    t += DAY / 4;
    await check(round);
  }
  // The background calibrations end (a failure of one rejects its agent's idle()), and memory still holds.
  const idle = await Promise.allSettled([...agents, neighbour].map((m) => m.idle()));
  for (const r of idle) {
    if (r.status === 'rejected') fail(rounds, `a background calibration failed: ${r.reason?.code ?? ''} ${r.reason?.message}`);
  }
  await check(rounds);

  async function check(round) {
    const [v] = await checker.checkInvariants();
    if (v) fail(round, `violation [${v.rule}] ${v.subject}/${v.predicate}: ${v.message}`);
    for (const id of acknowledged) {
      try {
        await checker.why(id);
      } catch {
        fail(round, `acknowledged claim ${id} is gone`);
      }
    }
    for (const subject of [...SUBJECTS, ...NAMES]) {
      const leaked = (await checker.recall(subject, { includeHistory: true, subjectType: NAMES.includes(subject) ? 'org' : undefined })).filter((c) => theirs.has(c.id));
      if (leaked.length) fail(round, `the neighbour's claim ${leaked[0].id} shows in this tenant's recall(${subject})`);
    }
    for (const id of [...theirs].slice(-3)) {
      const seen = await checker.why(id).then(() => true, (e) => (e.code === 'CLAIM_NOT_FOUND' ? false : Promise.reject(e)));
      if (seen) fail(round, `the neighbour's claim ${id} is explained by this tenant's why`);
    }
  }
}
