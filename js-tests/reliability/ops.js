// The randomized writer shared by every reliability run: in one process
// (several Memory instances on one store) and in writer processes
// (js-tests/workers/chaos-writer.mjs). A seed fixes the operations, so a
// failing run replays.
//
// Operations, on `subjects` subjects s0…:
//   add      likes (multi-valued): a unique object per write — must end up
//            stored exactly once
//   dispute  born_on (single-valued, not time-varying): one of three dates from
//            one of six sources — contradictions open `dispute` conflicts
//   ask      timezone with strategy ask_user — opens `ask_user` conflicts
//   settle   an open conflict, settled by this writer (`by` names the op)
//   undo     a settled conflict's settlement, undone
// Every write carries an idempotency id `<worker>-<i>`. Before an operation the
// writer reports `try`, after it is acknowledged `ack` (with the outcome's
// claim id, action and slot version) and `refused` when the engine refused it
// (only CONFLICT_ALREADY_SETTLED / CONFLICT_NOT_SETTLED: another writer settled
// or undid that conflict first, or it closed as `moot`; UNDO_STALE: the slot
// changed since the settlement, so its undo is refused and writes nothing —
// SPEC §6). A ConcurrencyError, or a store failure when `transient`
// allows it (a database restart), re-issues the same operation with the same id.

import { mulberry32 } from '../lib/mulberry32.mjs';

export { mulberry32 };

/** A number from a string, to derive per-writer seeds. */
export function hash(text) {
  let h = 2166136261;
  for (const ch of String(text)) h = Math.imul(h ^ ch.codePointAt(0), 16777619);
  return h >>> 0;
}

export const DATES = ['1990-01-01', '1991-02-02', '1992-03-03'];
export const ZONES = ['PST', 'CET', 'JST', 'UTC'];
export const ORGS = ['Acme Corp', 'Globex', 'Initech'];
// `org`: a works_at write naming a known org or, half the time, a new one (an entity registry commit).
export const DEFAULT_MIX = { add: 12, dispute: 4, ask: 2, settle: 2, undo: 1, org: 3 };
const SETTLEMENTS = ['keep_newer', 'keep_earlier', 'keep_both'];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The operation number `i` of a writer, as data (no I/O). */
export function planOp(rand, worker, i, { subjects, mix }) {
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  let r = rand() * total;
  let op = 'add';
  for (const [name, weight] of Object.entries(mix)) {
    if ((r -= weight) < 0) { op = name; break; }
  }
  const id = `${worker}-${i}`;
  const subject = `s${Math.floor(rand() * subjects)}`;
  const source = `src${Math.floor(rand() * 6)}`;
  const trust = [0.6, 0.8, 0.9][Math.floor(rand() * 3)];
  const choice = rand();
  const pickIndex = rand();
  switch (op) {
    case 'dispute':
      return { op, id, candidate: { id, subject, predicate: 'born_on', object: DATES[Math.floor(choice * 3)], provenance: { sourceId: source, sourceTrust: trust } } };
    case 'ask':
      return { op, id, candidate: { id, subject, predicate: 'timezone', object: ZONES[Math.floor(choice * 4)] }, options: { strategy: 'ask_user' } };
    case 'settle':
      return { op, id, settlement: SETTLEMENTS[Math.floor(choice * 3)], pickIndex };
    case 'undo':
      return { op, id, pickIndex };
    case 'org':
      return { op, id, candidate: { id, subject, predicate: 'works_at', object: choice < 0.5 ? `Org ${id}` : ORGS[Math.floor(choice * 6) - 3] } };
    default:
      return { op: 'add', id, candidate: { id, subject, predicate: 'likes', object: id } };
  }
}

const retryable = (err, transient) =>
  err?.code === 'CONCURRENCY' || (transient && err?.code === 'STORE_FAILED');

/**
 * Runs `count` operations of writer `worker` on `memory`, `inflight` at a time.
 * `report(kind, data)` receives try / ack / refused; `onAck(ack)` may check it
 * (e.g. read a settlement back through another Memory) before the writer goes on.
 */
export async function runWriter(memory, {
  worker, seed, count, subjects = 3, inflight = 2, mix = DEFAULT_MIX, transient = false, pause = 0, report, onAck,
}) {
  const rand = mulberry32(seed ?? hash(worker));
  const plans = Array.from({ length: count }, (_, i) => planOp(rand, worker, i, { subjects, mix }));
  let next = 0;
  let retries = 0;
  let transients = 0;
  const attempt = async (plan) => {
    for (let tries = 1; ; tries++) {
      try {
        return await perform(memory, plan);
      } catch (err) {
        if (!retryable(err, transient) || tries > 400) throw err;
        retries++;
        if (err.code !== 'CONCURRENCY') {
          transients++;
          await sleep(20 + Math.random() * 80);
        }
      }
    }
  };
  async function lane() {
    while (next < plans.length) {
      const plan = plans[next++];
      const outcome = await attempt(plan);
      if (outcome === null) continue; // a settle with nothing open
      if (outcome.refused) {
        report('refused', { op: plan.op, id: plan.id, code: outcome.refused, conflictId: outcome.conflictId });
        continue;
      }
      report('ack', outcome);
      await onAck?.(outcome);
      if (pause) await sleep(Math.random() * pause);
    }
  }
  async function perform(m, plan) {
    if (plan.op !== 'settle' && plan.op !== 'undo') {
      report('try', { op: plan.op, id: plan.id });
      const o = await m.remember(plan.candidate, plan.options);
      return {
        op: plan.op, id: plan.id, key: `${plan.candidate.subject}\u001f${o.claim.predicate}`, object: plan.candidate.object,
        claimId: o.claim.id, action: o.action, version: o.slotVersion, replayed: Boolean(o.replayed), attempts: o.attempts,
        ...(o.claim.objectEntity ? { entity: o.claim.objectEntity } : {}),
      };
    }
    const settle = plan.op === 'settle';
    // Questions about entities (new org names may ask them) are settled "same"/"different", not here.
    const candidates = (await m.conflicts({ status: settle ? 'open' : 'settled' })).filter((c) => c.kind !== 'same_entity');
    if (candidates.length === 0) return null;
    const target = candidates[Math.floor(plan.pickIndex * candidates.length)];
    report('try', { op: plan.op, id: plan.id, conflictId: target.id });
    try {
      const c = settle ? await m.settle(target.id, plan.settlement, { by: plan.id }) : await m.undo(target.id);
      return { op: plan.op, id: plan.id, conflictId: c.id, key: `${c.subject}\u001f${c.predicate}`, settlement: c.settlement, by: c.settledBy, status: c.status };
    } catch (err) {
      // Legitimate refusals that write nothing (SPEC §6).
      const allowed = settle ? ['CONFLICT_ALREADY_SETTLED'] : ['CONFLICT_NOT_SETTLED', 'UNDO_STALE'];
      if (allowed.includes(err?.code)) return { refused: err.code, conflictId: target.id };
      throw err;
    }
  }
  await Promise.all(Array.from({ length: inflight }, lane));
  return { retries, transients };
}
