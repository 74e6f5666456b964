// A ClaimStore written from scratch over plain Maps: every member of the
// interface, each index kept in the same step as the slot it describes (a
// commit runs without awaiting, so it is atomic within the process). The
// README's "Writing a store" shows it whole; js-tests/vitest/map-store.test.js
// runs the conformance suite against it.
const backing = new Map(); // scope → its data: stores of one scope share it, as one database would

export class MapStore {
  constructor({ scope = 'default' } = {}) {
    if (!backing.has(scope)) {
      backing.set(scope, { slots: new Map(), logs: new Map(), claims: new Map(), conflicts: new Map(), dirty: new Set(), writes: new Map(), entityKeys: new Map() });
    }
    this.data = backing.get(scope);
  }

  loadSlot(ref) {
    const slot = this.data.slots.get(ref.key);
    return slot ? structuredClone(slot.doc) : null;
  }

  commitSlot(commit) {
    const { slots, writes } = this.data;
    const key = commit.ref.key;
    const index = commit.index ?? {};
    // Compare-and-swap: the version read, and no candidate id written to another slot.
    if ((slots.get(key)?.doc.version ?? 0) !== commit.expectedVersion) return false;
    if ((index.writes ?? []).some((id) => writes.has(id) && writes.get(id).key !== key)) return false;
    slots.set(key, { ref: commit.ref, doc: structuredClone(commit.slot) });
    this.#index(commit);
    this.data.logs.set(key, [...(this.data.logs.get(key) ?? []), ...structuredClone(commit.log)]);
    return true;
  }

  eraseSlot(commit, log) {
    const key = commit.ref.key;
    const before = this.data.logs.get(key);
    this.data.logs.set(key, []);
    if (this.commitSlot(commit)) {
      this.data.logs.set(key, [...structuredClone(log), ...structuredClone(commit.log)]);
      return true;
    }
    this.data.logs.set(key, before);
    return false;
  }

  /** What the listings and look-ups answer from, kept with the slot: read from the slot itself,
   *  and from the rows the engine sends in `commit.index` (candidate ids, entity keys). */
  #index(commit) {
    const { claims, conflicts, dirty, writes, entityKeys } = this.data;
    const { slot, ref } = commit;
    const index = commit.index ?? {};
    for (const id of commit.changedClaims) claims.set(id, ref);
    for (const c of slot.conflicts) conflicts.set(c.id, { id: c.id, status: c.status, openedAt: c.openedAt, ref });
    if (slot.claims.length > slot.reviewed) dirty.add(ref.key);
    else dirty.delete(ref.key);
    for (const id of index.droppedWrites ?? []) if (writes.get(id)?.key === ref.key) writes.delete(id);
    for (const id of index.writes ?? []) writes.set(id, ref);
    if (index.entity) entityKeys.set(index.entity.id, index.entity);
  }

  findClaim(id) {
    return this.data.claims.get(id) ?? null;
  }

  findConflict(id) {
    return this.data.conflicts.get(id)?.ref ?? null;
  }

  findWrite(id) {
    return this.data.writes.get(id) ?? null;
  }

  listSlots({ subject } = {}) {
    const refs = [...this.data.slots.values()].map((s) => s.ref).filter((r) => subject === undefined || r.subject === subject);
    return refs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  readLog(ref) {
    return structuredClone(this.data.logs.get(ref.key) ?? []);
  }

  listConflicts({ status, after, limit }) {
    const later = (c) => !after || c.openedAt > after.openedAt || (c.openedAt === after.openedAt && c.id > after.id);
    return [...this.data.conflicts.values()]
      .filter((c) => c.status === status && later(c))
      .sort((a, b) => (a.openedAt === b.openedAt ? (a.id < b.id ? -1 : 1) : a.openedAt < b.openedAt ? -1 : 1))
      .slice(0, limit)
      .map(({ id, openedAt, ref }) => ({ id, status, openedAt, ref }));
  }

  dirtySlots({ after, limit }) {
    return [...this.data.dirty].filter((key) => after === undefined || key > after).sort().slice(0, limit).map((key) => this.data.slots.get(key).ref);
  }

  findEntities({ type, keys }) {
    const wanted = new Set(keys);
    return [...this.data.entityKeys.values()]
      .filter((e) => e.type === type)
      .flatMap((e) => e.keys.filter((k) => wanted.has(k.key)).map((k) => ({ key: k.key, entity: e.id, name: k.name })));
  }
}
