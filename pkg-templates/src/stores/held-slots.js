// The slots a store holds for ClaimStore.loadSlotToWrite: for each slot, the
// version it last loaded or committed with the mark of that version its
// commit compares (PostgreSQL's row xmin, IndexedDB's random tag), the
// newest MAX of them. Reserved slots (entity registries, archive chunks) are
// not held: they are large, and read otherwise.

const MAX = 1024;

export class HeldSlots {
  #slots = new Map();

  /** `loadSlotToWrite`'s answer, loading with `load` when nothing is held. */
  async answer(ref, load) {
    const held = this.#slots.get(ref.key);
    if (held === undefined) return { slot: await load(ref), held: false };
    this.#slots.delete(ref.key);
    this.#slots.set(ref.key, held);
    return { slot: held.slot, held: true };
  }

  /** Holds `slot` as the slot's current version, marked `mark`; a slot with no mark (or none) is dropped. */
  hold(key, slot, mark) {
    this.#slots.delete(key);
    if (!slot || typeof mark !== 'string' || key.startsWith('\u001f')) return;
    this.#slots.set(key, { slot, mark });
    if (this.#slots.size > MAX) this.#slots.delete(this.#slots.keys().next().value);
  }

  /**
   * Before a commit expecting `version`: the mark of that version when this
   * store saw it (the commit compares it too), else null. The slot is dropped
   * until the commit says what it holds now.
   */
  take(key, version) {
    const held = this.#slots.get(key);
    this.#slots.delete(key);
    return held !== undefined && held.slot.version === version ? held.mark : null;
  }
}
