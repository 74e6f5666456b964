// Checks a store's final state against what writers reported (ops.js):
// the slot histories must be linearizable.
//
//   dump = { slots: { [key]: Slot }, logs: { [key]: LogEntry[] } }  (see dumpStore)
//   events = [{ kind: 'try' | 'ack' | 'refused', ...data }]            from every writer
//
// Returns a list of violations (empty = pass) and counts. What is checked:
//   • versions: each slot's log holds every version 1..slot.version, in order,
//     each as one contiguous block, and no version beyond the slot's
//   • every acknowledged write is in its slot exactly once: its idempotency
//     record names the acknowledged claim, that claim exists, an `add` object
//     is held by exactly one claim, and the write caused exactly one version —
//     for a write that was not a replay, the version it was acknowledged at
//   • no two acknowledged writes of one slot claim the same version
//   • nothing unasked-for: every idempotency record, logged write and `add`
//     object belongs to an attempted write; every settled conflict to an
//     attempted settle
//   • conflicts: ids unique, a pair of claims noted at most once, both claims
//     present and carrying the conflict id
//   • settlements never lost: the log orders each conflict's settles and undos
//     (settle, undo, settle, …); each acknowledged settle is in it exactly
//     once, each acknowledged undo is counted, an undo refused (UNDO_STALE /
//     CONFLICT_NOT_SETTLED) left no undo in the log beyond those tried, and the
//     conflict's state is that of the last one (settled by whom, with what —
//     or not settled: open, resolved_by_evidence or `moot`, SPEC §6)
//   • claim ids unique across the whole store

/** Everything a store holds, read through its public ClaimStore methods. */
export async function dumpStore(store) {
  const refs = await store.listSlots({});
  const slots = {};
  const logs = {};
  for (const r of refs) {
    slots[r.key] = await store.loadSlot(r);
    logs[r.key] = (await store.readLog(r)) ?? [];
  }
  return { refs, slots, logs };
}

export function checkHistory(dump, events) {
  const violations = [];
  const fail = (message) => violations.length < 50 && violations.push(message);
  const tried = new Set(events.filter((e) => e.kind === 'try').map((e) => e.id));
  const triedSettles = new Set(events.filter((e) => e.kind === 'try' && e.op === 'settle').map((e) => e.id));
  const triedUndos = new Map();
  for (const e of events) if (e.kind === 'try' && e.op === 'undo') triedUndos.set(e.conflictId, (triedUndos.get(e.conflictId) ?? 0) + 1);
  const acks = events.filter((e) => e.kind === 'ack');
  const isDecision = (a) => a.op === 'settle' || a.op === 'undo';
  const writes = acks.filter((a) => !isDecision(a));
  const settles = acks.filter((a) => a.op === 'settle');
  const undos = acks.filter((a) => a.op === 'undo');
  const decisions = new Map(); // conflictId → [{ op, by, version }] in log order

  const claimHome = new Map();
  const conflictHome = new Map();
  const writeVersions = new Map(); // writeId → Set of versions
  let claims = 0;
  let conflicts = 0;
  let versions = 0;
  for (const [key, slot] of Object.entries(dump.slots)) {
    if (!slot) { fail(`${key}: listed but loads as empty`); continue; }
    const log = dump.logs[key] ?? [];
    versions += slot.version;
    // Versions: 1..v, in order, one block each.
    const seen = new Set();
    let last = 0;
    for (const e of log) {
      if (e.version < last) fail(`${key}: log out of order (${e.version} after ${last})`);
      if (e.version !== last && seen.has(e.version)) fail(`${key}: version ${e.version} logged in two blocks`);
      if (e.version > slot.version) fail(`${key}: log has version ${e.version} beyond the slot's ${slot.version}`);
      seen.add(e.version);
      last = e.version;
      const w = e.cause?.writeId;
      if (w) {
        if (!writeVersions.has(w)) writeVersions.set(w, new Set());
        writeVersions.get(w).add(`${key}@${e.version}`);
      }
      if (e.cause?.op === 'settle' && e.cause.by && !triedSettles.has(e.cause.by)) fail(`${key}: settle by ${e.cause.by} was never attempted`);
      // Only the settle/undo entry of the conflict it decides: the same commit
      // also logs, under the same cause, the conflicts it closed as `moot` or
      // reopened (their own conflictId, another rule) — those are not decisions.
      if (e.conflictId && (e.cause?.op === 'settle' || e.cause?.op === 'undo') && e.rule === e.cause.op) {
        const list = decisions.get(e.conflictId) ?? [];
        if (list.at(-1)?.version !== e.version) list.push({ op: e.cause.op, by: e.cause.by, version: e.version });
        decisions.set(e.conflictId, list);
      }
    }
    for (let v = 1; v <= slot.version; v++) if (!seen.has(v)) fail(`${key}: version ${v} missing from the log (slot at ${slot.version})`);
    // Claims and idempotency records.
    for (const c of slot.claims) {
      claims++;
      if (claimHome.has(c.id)) fail(`claim ${c.id} in ${key} and ${claimHome.get(c.id)}`);
      claimHome.set(c.id, key);
      if (c.predicate === 'likes' && !tried.has(c.object)) fail(`${key}: object ${c.object} was never written`);
    }
    const recordIds = new Set();
    for (const w of slot.writes ?? []) {
      if (recordIds.has(w.id)) fail(`${key}: write ${w.id} recorded twice`);
      recordIds.add(w.id);
      if (!tried.has(w.id)) fail(`${key}: write ${w.id} was never attempted`);
    }
    // Conflicts.
    const pairs = new Set();
    for (const cf of slot.conflicts ?? []) {
      conflicts++;
      if (conflictHome.has(cf.id)) fail(`conflict ${cf.id} in ${key} and ${conflictHome.get(cf.id)}`);
      conflictHome.set(cf.id, { key, cf });
      const pair = [cf.earlierId, cf.newerId].sort().join('+');
      if (pairs.has(pair)) fail(`${key}: pair ${pair} noted twice`);
      pairs.add(pair);
      for (const id of [cf.earlierId, cf.newerId]) {
        const c = slot.claims.find((x) => x.id === id);
        if (!c) fail(`${key}: conflict ${cf.id} names missing claim ${id}`);
        else if (!(c.conflictIds ?? []).includes(cf.id)) fail(`${key}: claim ${id} does not carry conflict ${cf.id}`);
      }
      if (cf.status === 'settled' && !triedSettles.has(cf.settledBy)) fail(`${key}: conflict ${cf.id} settled by ${cf.settledBy}, never attempted`);
    }
  }
  for (const [w, at] of writeVersions) {
    if (!tried.has(w)) fail(`write ${w} logged but never attempted`);
    if (at.size > 1) fail(`write ${w} applied more than once: ${[...at].join(', ')}`);
  }

  // Every acknowledged write, exactly once, where it was acknowledged.
  const versionOwner = new Map();
  for (const a of writes) {
    if (a.action === 'skipped' || a.action === 'rejected') continue; // nothing was written
    const slot = dump.slots[a.key];
    if (!slot) { fail(`ack ${a.id}: slot ${a.key} is missing`); continue; }
    const records = (slot.writes ?? []).filter((w) => w.id === a.id);
    if (records.length !== 1) fail(`ack ${a.id}: ${records.length} idempotency records in ${a.key}`);
    else if (records[0].claimId !== a.claimId) fail(`ack ${a.id}: record names ${records[0].claimId}, ack ${a.claimId}`);
    if (!slot.claims.some((c) => c.id === a.claimId)) fail(`ack ${a.id}: claim ${a.claimId} missing from ${a.key}`);
    if (a.op === 'add') {
      const n = slot.claims.filter((c) => c.object === a.object).length;
      if (n !== 1) fail(`ack ${a.id}: object held by ${n} claims`);
    }
    // An entity a write was acknowledged with has its slot.
    if (a.entity) {
      const own = dump.slots[`\u001fentity\u001f${a.entity}`];
      if (!(own?.entities ?? []).some((e) => e.id === a.entity)) fail(`ack ${a.id}: entity ${a.entity} has no slot`);
    }
    const at = writeVersions.get(a.id);
    if (!at || at.size !== 1) fail(`ack ${a.id}: logged at ${at ? [...at].join(', ') : 'no version'}`);
    if (!a.replayed) {
      if (at && !at.has(`${a.key}@${a.version}`)) fail(`ack ${a.id}: acknowledged at v${a.version} but logged at ${[...at].join(', ')}`);
      const owner = `${a.key}@${a.version}`;
      if (versionOwner.has(owner)) fail(`${owner} acknowledged to both ${versionOwner.get(owner)} and ${a.id}`);
      versionOwner.set(owner, a.id);
    }
  }
  // Settlements: the log orders each conflict's decisions; the conflict shows the last.
  for (const [id, { key, cf }] of conflictHome) {
    const list = decisions.get(id) ?? [];
    list.forEach((d, i) => {
      if (d.op !== (i % 2 === 0 ? 'settle' : 'undo')) fail(`${key}: conflict ${id} decisions out of turn: ${list.map((x) => x.op).join(', ')}`);
    });
    const last = list.at(-1);
    if (last?.op === 'settle' && (cf.status !== 'settled' || cf.settledBy !== last.by)) {
      fail(`${key}: conflict ${id} is ${cf.status} by ${cf.settledBy}, but its last decision is a settle by ${last.by}`);
    }
    if (last?.op !== 'settle' && cf.status === 'settled') fail(`${key}: conflict ${id} is settled, but its last decision is ${last?.op ?? 'none'}`);
    const undone = list.filter((d) => d.op === 'undo').length;
    const acked = undos.filter((u) => u.conflictId === id).length;
    if (undone < acked || undone > (triedUndos.get(id) ?? 0)) fail(`${key}: conflict ${id} undone ${undone} times; ${acked} undos acknowledged, ${triedUndos.get(id) ?? 0} tried`);
  }
  for (const s of settles) {
    const home = conflictHome.get(s.conflictId);
    if (!home) { fail(`settle ${s.id}: conflict ${s.conflictId} is missing`); continue; }
    const list = decisions.get(s.conflictId) ?? [];
    const mine = list.filter((d) => d.op === 'settle' && d.by === s.by);
    if (mine.length !== 1) fail(`settle ${s.id}: ${mine.length} settles by ${s.by} in the log of ${s.conflictId}`);
    if (list.at(-1)?.by === s.by && home.cf.settlement !== s.settlement) {
      fail(`settle ${s.id}: conflict ${s.conflictId} shows ${home.cf.settlement}, acknowledged ${s.settlement}`);
    }
  }
  return {
    violations,
    counts: {
      slots: Object.keys(dump.slots).length, versions, claims, conflicts,
      acked: writes.length, settles: settles.length, undos: undos.length, attempted: tried.size,
      refused: events.filter((e) => e.kind === 'refused').length,
      // Commits that lost a race and were re-done by the engine.
      lostRaces: writes.reduce((n, a) => n + Math.max(0, (a.attempts ?? 1) - 1), 0),
    },
  };
}
