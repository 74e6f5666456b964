// Hand-built slots and commits for driving a ClaimStore directly, plus small
// helpers the conformance suite uses; `credence/conformance` exports the
// builders too, for tests of a store's own beyond the suite.
import { ConcurrencyError } from 'credence';

export const T0 = '2026-06-01T10:00:00.000Z';

export const ref = (subject, predicate) => ({ key: `${subject}\u001f${predicate}`, subject, predicate });

export function claim(id, object, over = {}) {
  return {
    id,
    subject: 'user',
    predicate: 'likes',
    object,
    status: 'active',
    confidence: 0.8,
    logOdds: 1.3862943611198906,
    statedConfidence: 1,
    recordedAt: T0,
    provenance: [{ sourceId: 'caller', sourceTrust: 0.8, observedAt: T0 }],
    ...over,
  };
}

export function conflict(id, earlierId, newerId, over = {}) {
  return { id, kind: 'dispute', earlierId, newerId, reason: 'too close to call', status: 'open', openedAt: T0, ...over };
}

export function entry(version, rule, claimIds, note, over = {}) {
  return { version, at: T0, rule, claimIds, cause: { op: 'remember', writeId: `w-${version}` }, note, ...over };
}

export function slot(version, claims, { conflicts = [], writes = [], reviewed = 0 } = {}) {
  return { version, claims, conflicts, writes, reviewed };
}

export function commit(r, expectedVersion, next, { changedClaims, changedConflicts, log } = {}) {
  return {
    ref: r,
    expectedVersion,
    slot: next,
    changedClaims: changedClaims ?? next.claims.map((c) => c.id),
    changedConflicts: changedConflicts ?? next.conflicts.map((c) => c.id),
    log: log ?? [entry(next.version, 'add', next.claims.slice(-1).map((c) => c.id), `version ${next.version}`)],
  };
}

/** Values that are easy to mangle in YAML, markdown, JSON or SQL. */
export const AWKWARD = [
  'He said "hi" — naïve café 🎉',
  'line one\n---\nline: three # not a comment',
  'yes',
  'null',
  '0.10',
  ' leading and trailing ',
  "it's -- a <!-- comment --> & 'quote'",
  '`code` *stars* [link](x) | pipe',
  'x'.repeat(3000),
  '\t tab, back\\slash, 日本語, עברית',
];

export const versionOf = (s) => s?.version ?? 0;
export const none = (v) => v === null || v === undefined;

/** Remembers, re-issuing the same candidate (same id) after a ConcurrencyError. */
export async function rememberSurely(memory, candidate, tries = 50) {
  for (let i = 1; ; i++) {
    try {
      return await memory.remember(candidate);
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || i >= tries) throw err;
    }
  }
}

/** How many claims in `s` carry each object. */
export function objectCounts(s) {
  const counts = new Map();
  for (const c of s?.claims ?? []) counts.set(c.object, (counts.get(c.object) ?? 0) + 1);
  return counts;
}

/**
 * Wraps a store: after every successful commit it reads the slot and the log
 * back and records any difference from what was committed.
 */
export function verifying(store) {
  const problems = [];
  const wrapped = delegating(store, {
    problems,
    async commitSlot(c) {
      const ok = await store.commitSlot(c);
      if (ok) {
        const back = await store.loadSlot(c.ref);
        if (JSON.stringify(normalize(back)) !== JSON.stringify(normalize(c.slot))) {
          problems.push({ ref: c.ref.key, version: c.slot.version, committed: c.slot, loaded: back });
        }
        const log = await store.readLog(c.ref);
        const tail = log.slice(log.length - c.log.length);
        if (JSON.stringify(tail.map(normalize)) !== JSON.stringify(c.log.map(normalize))) {
          problems.push({ ref: c.ref.key, version: c.slot.version, log: c.log, tail });
        }
      }
      return ok;
    },
  }, { without: ['eraseSlot'] });
  return wrapped;
}

/**
 * A plain JS object that forwards every ClaimStore method to `inner` (a store
 * "behind a JS object"); `over` replaces or adds methods, and a method named in
 * `without` is left out (e.g. `eraseSlot`, to test a store that lacks it).
 */
export function delegating(inner, over = {}, { without = [] } = {}) {
  const methods = ['loadSlot', 'loadSlotToWrite', 'commitSlot', 'findClaim', 'findConflict', 'findWrite', 'listSlots', 'readLog', 'eraseSlot', 'listConflicts', 'dirtySlots', 'findEntities'];
  const out = {};
  for (const m of methods) if (!without.includes(m) && typeof inner[m] === 'function') out[m] = (...args) => inner[m](...args);
  return Object.assign(out, over);
}

/** Drops undefined fields and sorts keys, so snapshots compare by content. */
export function normalize(value) {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out = {};
    for (const k of Object.keys(value).sort()) if (value[k] !== undefined) out[k] = normalize(value[k]);
    return out;
  }
  return value;
}
