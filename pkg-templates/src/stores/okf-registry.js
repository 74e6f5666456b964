// OkfStore's entity registries written by their changes (commitRegistry,
// loadRegistryChanges, and loadSlot of such a registry): the write of a
// registry commit under the slot's compare-and-swap (okf.js) — the order of
// its slot file, entity files and chunk files — and the reads that combine
// the slot file with them, keeping the registry this store read last.
// okf-entities.js and okf-items.js read the files; this file writes them.
//
// The slot file goes first and carries every change whose entity file may not
// be written yet (`pending`, each with the version that made it): readers
// take the newest of a file and a pending entry, so a writer killed before its
// entity files loses nothing, and the next commit writes them. A registry
// kept whole until now first has its entities written to files as committed
// (a reader of the whole slot file ignores them) under a new `generation`,
// which every entity file names: files of another generation (a registry
// written whole meanwhile, or deleted and begun anew) never count. Its claims
// and conflicts (names, same_entity questions) go the same way, by chunk.
import path from 'node:path';
import {
  ITEM_CHUNK, ITEM_KINDS, checkRef, chunkFileOf, entityFileOf, invalid, renderChunkFile, renderEntityFile, renderLogBlock, renderSlotFile, rowsOf,
} from './okf-format.js';
import { randomToken, replaceFile } from './okf-fs.js';
import { EntityFiles, recentChanges } from './okf-entities.js';
import { ItemFiles, itemMarkers, recentItemChanges, registryHeader } from './okf-items.js';
import { registryItemsOf } from './registry-items.js';

/** The subject of every entity registry's slot. */
export const REGISTRY = '\u001fentities';

/** A registry slot file's tag: its version, generations and stamp. */
export function registryTag(entry) {
  return `${entry.slot.version}:${entry.slot.generation ?? ''}:${entry.slot.itemGeneration ?? ''}:${entry.stamp}`;
}

export class RegistryFiles {
  #entitiesDir;
  #entities;
  #items;
  #slots;
  #log;
  #journal;
  /** registry key → the version whose entity files this store finished writing */
  #materialized = new Map();
  /** registry key → the version whose chunk files this store finished writing */
  #materializedItems = new Map();
  /** registry key → { generation, version, entities } as this store last read or wrote it */
  #held = new Map();

  /** `slots`: the store's SlotFiles (ids of a registry's items); `log`: its BundleLog; `journal`: its Journal. */
  constructor(root, { slots, log, journal }) {
    this.#entitiesDir = path.join(root, 'entities');
    const relative = (name) => path.join(root, path.join('entities', name));
    this.#entities = new EntityFiles(this.#entitiesDir, relative);
    this.#items = new ItemFiles(this.#entitiesDir, relative);
    this.#slots = slots;
    this.#log = log;
    this.#journal = journal;
  }

  /**
   * A registry whose slot file (`slot`, a copy) keeps its entities in files,
   * read whole: its entities and, when in chunk files, its claims and
   * conflicts. null when a file is newer than the slot file read (a commit
   * landed meanwhile: read both again).
   */
  async read(ref, slot) {
    const entities = (await this.#entitiesSince(ref, slot)) ?? (await this.#entities.all(ref.predicate, slot));
    const items = entities === null || slot.claimRows === undefined ? {} : await this.#items.all(ref.predicate, slot);
    if (entities === null || items === null) return null;
    this.#held.set(ref.key, { generation: slot.generation, version: slot.version, entities });
    this.#slots.rememberItems(ref, items);
    return { ...registryHeader(slot), entities: structuredClone(entities), ...items };
  }

  /** The registry `header` names, from the one this store read last and what changed since (EntityFiles.changedSince). */
  async #entitiesSince(ref, header) {
    const held = this.#held.get(ref.key);
    if (!held) return undefined;
    const changed = await this.#entities.changedSince(header, held.generation, held.version);
    if (!changed) return changed;
    const entities = held.entities.slice();
    for (const [at, entity] of changed) entities[at] = entity;
    if (entities.length !== header.entityFiles || entities.includes(undefined)) return undefined;
    return entities;
  }

  /**
   * A registry commit, checked: `header`, the slot file's content without
   * entities (filled in by `write`), `markers` for the index (or null), and
   * `write`, the compare-and-swap's write (okf.js), which resolves to the
   * slot file's text.
   */
  prepare(commit) {
    const ref = checkRef(commit?.ref);
    const changed = commit.entities;
    const count = commit.entityCount;
    if (ref.subject !== REGISTRY || !Number.isSafeInteger(count) || !Array.isArray(changed) || changed.some((e) => !Number.isSafeInteger(e?.at) || e.at < 0 || e.at >= count || typeof e.entity?.id !== 'string')) {
      throw invalid('commit', 'must be an entity registry commit: entities as { at: position below entityCount, entity } items');
    }
    const items = registryItemsOf(commit, invalid);
    const { entities: _, ...rest } = commit.slot;
    const header = { ...rest, entityFiles: 0, generation: '', pending: [] };
    if (items) Object.assign(header, { claims: [], conflicts: [] });
    const markers = items && ((current) => itemMarkers(items, current?.slot));
    return { header, markers, write: (at) => this.#write(at, { changed, count, items, log: commit.log }) };
  }

  /** Under the slot's lock, the slot at the expected version: entity files, log block, slot file, the rest, journal. */
  async #write({ ref, slot, name, file, current }, { changed, count, items, log }) {
    const before = current?.slot;
    const whole = !before || before.entityFiles === undefined;
    const generation = whole ? randomToken() : before.generation;
    const fileOf = (at, v, entity) => ({ f: entityFileOf(entity.id), text: renderEntityFile(ref.predicate, generation, v, at, entity) });
    const ents = [];
    if (whole) {
      for (const [at, e] of (before?.entities ?? []).entries()) ents.push(fileOf(at, before.version, e));
      for (const e of ents) await replaceFile(path.join(this.#entitiesDir, e.f), e.text);
    }
    const pending = new Map();
    // Left unwritten by an earlier writer (not by this store: the commit that left them returned).
    const unwritten = whole || this.#materialized.get(ref.key) === `${before.generation}:${before.version}` ? [] : await this.#entities.unwritten(before);
    for (const p of unwritten) pending.set(p.at, p);
    for (const p of changed) pending.set(p.at, { at: p.at, v: slot.version, entity: p.entity });
    const had = before ? (before.entityFiles ?? before.entities?.length ?? 0) : 0;
    // The entity changes of recent versions, so a reader holding an earlier version reads only those files.
    const { changes, changesSince } = recentChanges(whole ? [] : before.changes ?? [], whole ? slot.version - 1 : before.changesSince ?? before.version, changed, slot.version);
    Object.assign(slot, { generation, entityFiles: count, pending: [...pending.values()].sort((a, b) => a.at - b.at), changesSince, changes });
    if (count < had) throw invalid('commit.entityCount', `is ${count}, below the ${had} entities the registry holds: entities are only appended`);
    for (let i = had; i < count; i++) {
      if (!pending.has(i)) throw invalid('commit.entities', `skips position ${i}: new entities are appended`);
    }
    const moved = items ? await this.#stageItems(ref, slot, before, whole, items) : [];
    const commitId = randomToken();
    const block = renderLogBlock(ref, slot.version, commitId, log);
    await this.#log.append(name, block, slot.version, commitId, !current);
    const text = renderSlotFile(ref.subject, ref.predicate, slot);
    await replaceFile(file, text);
    const written = slot.pending.map((p) => fileOf(p.at, p.v, p.entity));
    for (const e of written) await replaceFile(path.join(this.#entitiesDir, e.f), e.text);
    this.#materialized.set(ref.key, `${generation}:${slot.version}`);
    const chunks = items ? [...moved, ...(await this.#writeChunks(ref, slot))] : [];
    if (items) this.#slots.rememberItems(ref, { claims: items.claims.map((p) => p.item), conflicts: items.conflicts.map((p) => p.item) });
    const held = this.#held.get(ref.key);
    if (held && !whole && held.generation === generation && held.version === before.version) {
      const entities = held.entities.slice();
      for (const p of changed) entities[p.at] = structuredClone(p.entity);
      this.#held.set(ref.key, { generation, version: slot.version, entities });
    } else {
      this.#held.delete(ref.key);
    }
    await this.#journal.append({ f: name, k: ref.key, v: slot.version, c: commitId, slot: text, log: block, ents: [...ents, ...written], chunks });
    return text;
  }

  /**
   * Before the slot file of a registry commit with `items`: a registry that
   * held its claims and conflicts in its slot file until now has them
   * written to chunk files as committed, under a new item generation (a
   * reader of the old slot file ignores them); then the slot file's fields
   * for them: counts, every change whose chunk file may not be written yet
   * (`pendingItems`), the recent changes. Returns the chunk files written.
   */
  async #stageItems(ref, slot, before, whole, items) {
    const moving = whole || before.claimRows === undefined;
    const generation = moving ? randomToken() : before.itemGeneration;
    const moved = [];
    if (moving && before) {
      for (const kind of ITEM_KINDS) {
        const list = before[kind] ?? [];
        for (let chunk = 0; chunk * ITEM_CHUNK < list.length; chunk++) {
          const f = chunkFileOf(ref.predicate, kind, chunk);
          moved.push({ f, text: renderChunkFile(ref.predicate, generation, kind, chunk, before.version, list.slice(chunk * ITEM_CHUNK, (chunk + 1) * ITEM_CHUNK)) });
        }
      }
      for (const c of moved) await replaceFile(path.join(this.#entitiesDir, c.f), c.text);
    }
    const pending = new Map();
    // Left unwritten by an earlier writer (not by this store: the commit that left them returned).
    const mine = !moving && this.#materializedItems.get(ref.key) === `${generation}:${before.version}`;
    if (!moving && !mine) for (const p of await this.#items.unwritten(ref.predicate, before)) pending.set(`${p.kind}:${p.at}`, p);
    const changed = [];
    for (const kind of ITEM_KINDS) {
      const had = moving ? (before?.[kind]?.length ?? 0) : before[rowsOf(kind)];
      const countField = kind === 'claims' ? 'claimCount' : 'conflictCount';
      const count = items[countField];
      if (count < had) throw invalid(`commit.${countField}`, `is ${count}, below the ${had} the registry holds: they are only appended`);
      for (const p of items[kind]) {
        pending.set(`${kind}:${p.at}`, { kind, at: p.at, v: slot.version, item: p.item });
        changed.push({ kind, at: p.at });
      }
      for (let i = had; i < count; i++) {
        if (!pending.has(`${kind}:${i}`)) throw invalid(`commit.${kind}`, `skips position ${i}: new ones are appended`);
      }
    }
    const recent = recentItemChanges(moving ? [] : before.itemChanges, moving ? slot.version - 1 : before.itemChangesSince, changed, slot.version);
    const order = (a, b) => (a.kind === b.kind ? a.at - b.at : a.kind < b.kind ? -1 : 1);
    Object.assign(slot, { claimRows: items.claimCount, conflictRows: items.conflictCount, itemGeneration: generation, pendingItems: [...pending.values()].sort(order), ...recent });
    return moved;
  }

  /** After the slot file of a registry commit with items: the chunk files its pending entries touch, written whole. */
  async #writeChunks(ref, slot) {
    const touched = new Map();
    for (const p of slot.pendingItems) touched.set(`${p.kind}:${Math.floor(p.at / ITEM_CHUNK)}`, { kind: p.kind, chunk: Math.floor(p.at / ITEM_CHUNK) });
    const written = [];
    for (const { kind, chunk } of touched.values()) {
      const { items } = await this.#items.chunkItems(ref.predicate, kind, chunk, { ...slot, version: Infinity });
      const f = chunkFileOf(ref.predicate, kind, chunk);
      written.push({ f, text: renderChunkFile(ref.predicate, slot.itemGeneration, kind, chunk, slot.version, items) });
    }
    for (const c of written) await replaceFile(path.join(this.#entitiesDir, c.f), c.text);
    this.#materializedItems.set(ref.key, `${slot.itemGeneration}:${slot.version}`);
    return written;
  }

  /**
   * A registry whose tag moved since `since` (see `loadRegistryChanges` in
   * the ClaimStore docs): the entities changed after `since.version`, read
   * from their files; null when it cannot tell. `entryOf()` reads the
   * registry's slot file.
   */
  async changesSince(ref, since, entryOf) {
    const [, generation, itemGeneration] = typeof since?.tag === 'string' ? since.tag.split(':') : [];
    if (checkRef(ref).subject !== REGISTRY || !generation || !Number.isSafeInteger(since.version)) return null;
    for (let attempt = 1; attempt <= 20; attempt++) {
      const entry = await entryOf();
      if (!entry || entry.slot.entityFiles === undefined || entry.stamp === null) return null;
      const changed = await this.#entities.changedSince(entry.slot, generation, since.version);
      if (changed === undefined) return null;
      const items = changed === null || entry.slot.claimRows === undefined ? {} : await this.#items.changedSince(ref.predicate, entry.slot, itemGeneration, since.version);
      if (items === undefined) return null;
      if (changed === null || items === null) {
        await new Promise((resolve) => setTimeout(resolve, attempt));
        continue;
      }
      const slot = structuredClone(registryHeader(entry.slot));
      const entities = [...changed].map(([at, entity]) => ({ at, entity: structuredClone(entity) }));
      const answer = { slot, entities, entityCount: entry.slot.entityFiles, tag: registryTag(entry) };
      if (entry.slot.claimRows === undefined) return answer;
      const positioned = (map) => [...map].map(([at, item]) => ({ at, item: structuredClone(item) }));
      this.#slots.rememberItems(ref, { claims: [...items.claims.values()], conflicts: [...items.conflicts.values()] });
      return { ...answer, claims: positioned(items.claims), claimCount: entry.slot.claimRows, conflicts: positioned(items.conflicts), conflictCount: entry.slot.conflictRows };
    }
    return null;
  }
}
