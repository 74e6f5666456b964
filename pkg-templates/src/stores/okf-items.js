// OkfStore's registry claims and conflicts (names, same_entity questions)
// written by their changes (okf-registry.js, commitRegistry with `registryRows`): read
// from entities/<type>.<kind>.<chunk>.md against the registry's slot file
// (format 3: its counts, `itemGeneration`, `pendingItems` and list of recent
// `itemChanges`). The same protocol as entity files (okf-entities.js): the
// slot file is written first and carries every change whose chunk file may
// not be written yet, so a reader takes the newest of a chunk file and a
// pending entry. Pure reads; the writes and their order are in okf-registry.js.
import path from 'node:path';
import { ITEM_CHUNK, ITEM_KINDS, chunkFileOf, malformed, parseChunkFile, rowsOf } from './okf-format.js';
import { readText } from './okf-fs.js';
import { STATUSES } from './okf-index.js';

const RECENT_CHANGES = 512;

/** A registry slot file's slot without the fields of its entity and chunk files. */
export function registryHeader(slot) {
  const {
    entityFiles: _a, pending: _b, generation: _c, changes: _d, changesSince: _e,
    claimRows: _f, conflictRows: _g, itemGeneration: _h, pendingItems: _i, itemChanges: _j, itemChangesSince: _k, ...rest
  } = slot;
  return rest;
}

/**
 * The index markers of a registry commit with `items` (its slot file holds
 * no conflicts): those of its changed conflicts, each marker of another
 * status dropped, and the ids of the claims and conflicts it appends.
 */
export function itemMarkers(items, before) {
  const had = (kind) => (before ? (before[rowsOf(kind)] ?? before[kind]?.length ?? 0) : 0);
  const entries = items.conflicts.map(({ item: c }) => ({ id: c.id, status: c.status, openedAt: c.openedAt }));
  return {
    index: { conflicts: entries, unreviewed: false },
    before: { conflicts: entries.flatMap((c) => STATUSES.filter((s) => s !== c.status).map((status) => ({ ...c, status }))) },
    fresh: ITEM_KINDS.reduce((out, kind) => ({ ...out, [kind]: items[kind].filter((p) => p.at >= had(kind)).map((p) => p.item.id) }), {}),
  };
}

/**
 * A registry slot file's list of recent item changes (`{ v, kind, at }`,
 * oldest first) after a commit at `version` changing `changed` (`{ kind, at }`),
 * and the version since which it holds every change.
 */
export function recentItemChanges(before, since, changed, version) {
  const changes = [...before, ...changed.map((c) => ({ v: version, kind: c.kind, at: c.at }))];
  let changesSince = since;
  while (changes.length > RECENT_CHANGES) {
    changesSince = changes[0].v;
    while (changes.length > 0 && changes[0].v === changesSince) changes.shift();
  }
  return { itemChanges: changes, itemChangesSince: changesSince };
}

/** Reads the chunk files of one bundle's entities/ folder; `shown(name)` is how errors name a file. */
export class ItemFiles {
  #dir;
  #shown;

  constructor(dir, shown) {
    this.#dir = dir;
    this.#shown = shown;
  }

  /** A chunk file of the registry `header` names (its generation), or null when there is none of it. */
  async #chunk(type, kind, chunk, header) {
    const name = chunkFileOf(type, kind, chunk);
    const text = await readText(path.join(this.#dir, name));
    if (text === null) return null;
    const file = parseChunkFile(text, this.#shown(name));
    return file.generation === header.itemGeneration && file.registry === type && file.kind === kind && file.chunk === chunk ? file : null;
  }

  /**
   * The items of chunk `chunk` as the registry `header` has them (its file,
   * and its pending entries where newer): `{ items, newer }`, `newer` when
   * the file is newer than `header` (a commit landed meanwhile: read both
   * again). Throws when an item is in neither.
   */
  async chunkItems(type, kind, chunk, header) {
    const from = chunk * ITEM_CHUNK;
    const size = Math.min(ITEM_CHUNK, header[rowsOf(kind)] - from);
    const file = await this.#chunk(type, kind, chunk, header);
    if (file && file.version > header.version) return { items: null, newer: true };
    const found = new Array(Math.max(size, 0)).fill(null);
    file?.items.forEach((item, j) => {
      if (j < size) found[j] = { v: file.version, item };
    });
    for (const p of header.pendingItems) {
      const j = p.at - from;
      if (p.kind === kind && j >= 0 && j < size && (found[j] === null || found[j].v < p.v)) found[j] = { v: p.v, item: p.item };
    }
    const missing = found.indexOf(null);
    if (missing >= 0) {
      throw malformed(this.#shown(chunkFileOf(type, kind, chunk)), `holds no ${kind} item ${from + missing} of the ${header[rowsOf(kind)]} of registry ${JSON.stringify(type)} (version ${header.version})`);
    }
    return { items: found.map((f) => f.item), newer: false };
  }

  /** Every claim and conflict of the registry `header` names, by position; null when a chunk file is newer (read both again). */
  async all(type, header) {
    const out = {};
    for (const kind of ITEM_KINDS) {
      out[kind] = [];
      for (let chunk = 0; chunk * ITEM_CHUNK < header[rowsOf(kind)]; chunk++) {
        const { items, newer } = await this.chunkItems(type, kind, chunk, header);
        if (newer) return null;
        out[kind].push(...items);
      }
    }
    return out;
  }

  /** The pending entries of `header` whose chunk files do not hold them yet. */
  async unwritten(type, header) {
    const out = [];
    const chunks = new Map();
    for (const p of header.pendingItems) {
      const chunk = Math.floor(p.at / ITEM_CHUNK);
      const key = `${p.kind}:${chunk}`;
      // Unreadable counts as unwritten: the entry stays pending, the commit writes the file.
      if (!chunks.has(key)) chunks.set(key, await this.#chunk(type, p.kind, chunk, header).catch(() => null));
      const file = chunks.get(key);
      if (!file || file.version < p.v) out.push(p);
    }
    return out;
  }

  /**
   * The items the registry `header` changed after `version`, by kind and
   * position (`{ claims: Map, conflicts: Map }`): undefined when it cannot
   * tell (another generation, or its list of changes does not reach back that
   * far), null when a chunk file is newer than `header` (read both again).
   */
  async changedSince(type, header, generation, version) {
    if (generation !== header.itemGeneration || version < header.itemChangesSince || version > header.version) return undefined;
    const out = { claims: new Map(), conflicts: new Map() };
    const chunks = new Map();
    for (const c of header.itemChanges) {
      if (c.v <= version || c.at >= header[rowsOf(c.kind)]) continue;
      const chunk = Math.floor(c.at / ITEM_CHUNK);
      const key = `${c.kind}:${chunk}`;
      if (!chunks.has(key)) chunks.set(key, await this.chunkItems(type, c.kind, chunk, header));
      const { items, newer } = chunks.get(key);
      if (newer) return null;
      out[c.kind].set(c.at, items[c.at - chunk * ITEM_CHUNK]);
    }
    return out;
  }
}
