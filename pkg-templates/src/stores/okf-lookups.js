// OkfStore's look-ups answered from its derived index (okf-index.js): a slot
// by claim, conflict or candidate id, entities by name key, conflicts by
// status, slots with unreviewed entries. An index line or marker is a hint; the slot file it
// names decides, so a marker left by a writer killed mid-commit is skipped.
// The index is rebuilt from the markdown when missing.
import { freshIds, freshKeys, keyId } from './okf-index.js';
import { compareKeys } from './okf-format.js';
import { byOpenedAt, indexOf, isAfter } from './slot-index.js';

export class Lookups {
  #slots;
  #index;
  #loadSlot;

  /** `slots`: the store's SlotFiles; `index`: its OkfIndex; `loadSlot(ref)`: the store's (an old registry's items are in chunk files). */
  constructor(slots, index, loadSlot) {
    this.#slots = slots;
    this.#index = index;
    this.#loadSlot = loadSlot;
  }

  /**
   * Rebuilds the derived index from the markdown when it is missing. A file
   * that cannot be parsed is skipped and returned (the index is then not
   * marked complete, so the next call tries again).
   */
  async ready() {
    if (await this.#index.isReady()) return null;
    let broken = null;
    await this.#index.rebuild(async (visit) => {
      for (const name of await this.#slots.names()) {
        try {
          const entry = await this.#slots.read(name);
          // An old registry with its claims and conflicts in chunk files: indexed with them.
          const slot = entry?.slot.claimRows === undefined ? entry?.slot : await this.#loadSlot(entry.ref);
          if (entry) await visit(name, indexOf({ slot }), { ...freshIds(null, slot), keys: freshKeys(null, entry.entity) }, entry.ref.subject);
        } catch (err) {
          if (err?.code !== 'MALFORMED_STORE_DATA') throw err;
          broken ??= err;
        }
      }
      return broken === null;
    });
    return broken;
  }

  /** Listings must cover every slot: a file that cannot be read fails them, naming it. */
  async #complete() {
    const broken = await this.ready();
    if (broken) throw broken;
  }

  /**
   * The slot holding claim or conflict `id` (`kind`: 'claims' or
   * 'conflicts'), or null. Claims and conflicts never move between slots, so
   * a known id is final. An unknown one is looked up in the derived index,
   * and only when that has no (or a stale) answer is the bundle rescanned.
   */
  async find(kind, id) {
    const index = this.#slots[kind];
    if (!index.has(id)) {
      await this.ready();
      const hinted = await this.#index.slotFileOf(kind, String(id));
      if (hinted) await this.#readWithItems(hinted).catch(() => null);
    }
    if (!index.has(id)) {
      let broken = null;
      for (const name of await this.#slots.names()) {
        try {
          await this.#readWithItems(name);
        } catch (err) {
          if (err?.code !== 'MALFORMED_STORE_DATA') throw err;
          broken ??= err;
        }
        if (index.has(id)) break;
      }
      // The id may be in a file we cannot read: say so rather than "not found".
      if (!index.has(id) && broken) throw broken;
    }
    const ref = index.get(id);
    return ref ? { ...ref } : null;
  }

  /**
   * findEntities: every key row of an entity of `type` whose key is one of
   * `keys`. The by-id lines (one bucket file read per bucket the keys hash
   * to) name candidate slot files; each file's own rows decide.
   */
  async entities(type, keys) {
    const wanted = new Set(keys);
    const files = new Set();
    for (const list of (await this.#index.slotFilesWithEach('keys', [...wanted].map((k) => keyId(type, k)))).values()) for (const f of list) files.add(f);
    const rows = [];
    for (const name of files) {
      const entity = (await this.#slots.read(name))?.entity;
      if (entity?.type !== type) continue;
      for (const k of entity.keys) if (wanted.has(k.key)) rows.push({ key: k.key, entity: entity.id, name: k.name });
    }
    return rows;
  }

  /** A slot file read, and for an old registry with chunk files its claims and conflicts too (their ids registered). */
  async #readWithItems(name) {
    const entry = await this.#slots.read(name);
    if (entry?.slot.claimRows !== undefined) await this.#loadSlot(entry.ref);
    return entry;
  }

  /**
   * The slot file (other than `except`) whose records hold candidate id `id`,
   * read, or null. The by-id lines are hints, newest first: each is checked
   * against its file (a writer killed before its slot write leaves a line).
   */
  async holderOf(id, except = null) {
    for (const name of await this.#index.slotFilesWith('writes', id)) {
      if (name === except) continue;
      const entry = await this.#slots.read(name).catch(() => null);
      if (entry?.slot.writes?.some((w) => w.id === id)) return entry;
    }
    return null;
  }

  /** listConflicts: conflicts with `status`, by (openedAt, id), strictly after `after`, at most `limit`. */
  async conflicts({ status, after, limit }) {
    await this.#complete();
    const candidates = (await this.#index.conflicts(status)).filter((c) => isAfter(c, after)).sort(byOpenedAt);
    const out = [];
    const read = new Map(); // one read per slot file per call: many conflicts may share a slot
    for (const c of candidates) {
      if (out.length >= limit) break;
      // A marker is a hint; the slot file decides (stale markers are skipped).
      if (!read.has(c.slotFile)) read.set(c.slotFile, await this.#conflictsOf(c.slotFile));
      const { entry, byId } = read.get(c.slotFile);
      const record = byId.get(c.id);
      if (record?.status === status && record.openedAt === c.openedAt) {
        out.push({ id: c.id, status, openedAt: c.openedAt, ref: { ...entry.ref } });
      }
    }
    return out;
  }

  /** A slot file's entry and its conflicts by id (a registry's from its chunk files when it keeps them there). */
  async #conflictsOf(slotFile) {
    const entry = await this.#slots.read(slotFile);
    const conflicts = entry?.slot.claimRows !== undefined ? (await this.#loadSlot(entry.ref)).conflicts : entry?.slot.conflicts ?? [];
    return { entry, byId: new Map(conflicts.map((r) => [r.id, r])) };
  }

  /** dirtySlots: the slots with unreviewed entries, by key, after the key `after`, at most `limit`. */
  async dirty({ after, limit }) {
    await this.#complete();
    const candidates = [];
    for (const name of await this.#index.dirty()) {
      const entry = await this.#slots.read(name);
      if (entry && indexOf({ slot: entry.slot }).unreviewed) candidates.push(entry.ref);
    }
    return candidates
      .filter((r) => after === undefined || after === null || compareKeys(r.key, after) > 0)
      .sort((a, b) => compareKeys(a.key, b.key))
      .slice(0, limit)
      .map((r) => ({ ...r }));
  }
}
