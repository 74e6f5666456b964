// Entity registries as a bundle written before issue #44 keeps them (read
// only): a registry slot file of format 2 has its entities in entities/<id>.md,
// format 3 its names and same_entity questions in
// entities/<type>.<claims|conflicts>.<n>.md too (64 per file). The slot file
// was written first and carries every change whose file may not have been
// written yet (`pending`, `pendingItems`, each with the registry version that
// made it), so a reader takes the newest of a file and a pending entry. Files
// of another generation than the slot file names never count.
//
// loadSlot answers such a registry whole through `readRegistry`; the engine
// then moves its entities to entity slots and commits the registry emptied
// (format 1) with commitSlot, after which `dropRegistryFiles` removes them.
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { ITEM_CHUNK, ITEM_KINDS, chunkFileOf, entityFilePrefix, malformed, parseChunkFile, parseEntityFile, rowsOf } from './okf-format.js';
import { readText } from './okf-fs.js';

/** True when a parsed registry slot file keeps its entities (and items) in entities/. */
export const isLegacyRegistry = (slot) => slot?.entityFiles !== undefined;

/** A registry slot file's slot without the fields of its entity and chunk files. */
function registryHeader(slot) {
  const {
    entityFiles: _a, pending: _b, generation: _c, changes: _d, changesSince: _e,
    claimRows: _f, conflictRows: _g, itemGeneration: _h, pendingItems: _i, itemChanges: _j, itemChangesSince: _k, ...rest
  } = slot;
  return rest;
}

async function fileNames(dir) {
  try {
    return await fs.readdir(dir);
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * The registry of type `type` whose slot file holds `slot` (a copy), whole:
 * entities by position, claims and conflicts by position, merges. null when
 * a file is newer than the slot file (a writer of an older version landed a
 * commit meanwhile: read both again). `shown(name)` is how errors name a file.
 */
export async function readRegistry(root, type, slot, shown) {
  const dir = path.join(root, 'entities');
  const entities = await readEntities(dir, type, slot, shown);
  if (entities === null) return null;
  const items = {};
  if (slot.claimRows !== undefined) {
    for (const kind of ITEM_KINDS) {
      items[kind] = [];
      for (let chunk = 0; chunk * ITEM_CHUNK < slot[rowsOf(kind)]; chunk++) {
        const found = await chunkItems(dir, type, kind, chunk, slot, shown);
        if (found === null) return null;
        items[kind].push(...found);
      }
    }
  }
  return { ...registryHeader(slot), entities, ...items };
}

async function readEntities(dir, type, header, shown) {
  const prefix = entityFilePrefix(type);
  const found = new Array(header.entityFiles).fill(null);
  const take = (e) => {
    if (e.at < found.length && (found[e.at] === null || found[e.at].version < e.version)) found[e.at] = e;
  };
  for (const name of await fileNames(dir)) {
    if (!name.startsWith(prefix) || !name.endsWith('.md')) continue;
    const text = await readText(path.join(dir, name));
    const e = text === null ? null : parseEntityFile(text, shown(name));
    if (e === null || e.registry !== type || e.generation !== header.generation) continue;
    if (e.version > header.version) return null;
    take(e);
  }
  for (const p of header.pending) take({ at: p.at, version: p.v, entity: p.entity });
  const missing = found.indexOf(null);
  if (missing >= 0) {
    throw malformed(shown(''), `has no file for entity ${missing} of the ${header.entityFiles} of registry ${JSON.stringify(type)} (version ${header.version})`);
  }
  return found.map((e) => e.entity);
}

/** The items of one chunk as the registry `header` has them (its file, its pending entries where newer); null when the file is newer than `header`. */
async function chunkItems(dir, type, kind, chunk, header, shown) {
  const from = chunk * ITEM_CHUNK;
  const size = Math.max(Math.min(ITEM_CHUNK, header[rowsOf(kind)] - from), 0);
  const name = chunkFileOf(type, kind, chunk);
  const text = await readText(path.join(dir, name));
  const parsed = text === null ? null : parseChunkFile(text, shown(name));
  const file = parsed && parsed.generation === header.itemGeneration && parsed.registry === type && parsed.kind === kind && parsed.chunk === chunk ? parsed : null;
  if (file && file.version > header.version) return null;
  const found = new Array(size).fill(null);
  file?.items.forEach((item, j) => {
    if (j < size) found[j] = { v: file.version, item };
  });
  for (const p of header.pendingItems) {
    const j = p.at - from;
    if (p.kind === kind && j >= 0 && j < size && (found[j] === null || found[j].v < p.v)) found[j] = { v: p.v, item: p.item };
  }
  const missing = found.indexOf(null);
  if (missing >= 0) {
    throw malformed(shown(name), `holds no ${kind} item ${from + missing} of the ${header[rowsOf(kind)]} of registry ${JSON.stringify(type)} (version ${header.version})`);
  }
  return found.map((f) => f.item);
}

/**
 * Removes the entity and chunk files of registry `type` once its slot file no
 * longer names them (committed emptied, format 1): under the slot's lock,
 * after the slot file is replaced, so a crash in between leaves only files
 * nothing reads.
 */
export async function dropRegistryFiles(root, type) {
  const dir = path.join(root, 'entities');
  const prefix = entityFilePrefix(type);
  const chunkPrefixes = ITEM_KINDS.map((kind) => chunkFileOf(type, kind, ''));
  const isChunk = (name) => chunkPrefixes.some((p) => name.startsWith(p.slice(0, -3)) && /^\d+\.md$/.test(name.slice(p.length - 3)));
  for (const name of await fileNames(dir)) {
    const file = path.join(dir, name);
    let ours = isChunk(name);
    if (!ours && name.startsWith(prefix) && name.endsWith('.md')) {
      ours = await readText(file).then((t) => t !== null && parseEntityFile(t, file).registry === type, () => false);
    }
    if (ours) await fs.unlink(file).catch(() => {});
  }
  // The folder goes once empty (new bundles have none).
  await fs.rmdir(dir).catch(() => {});
}
