// OkfStore's entity registries written by their changes (okf-registry.js,
// commitRegistry): reading entities/*.md against the registry's slot file
// (its `entityFiles` count, `generation`, `pending` entries and list of recent
// `changes`). Pure reads; the writes and their order are in okf-registry.js.
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { entityFileOf, entityFilePrefix, malformed, parseEntityFile } from './okf-format.js';
import { readText } from './okf-fs.js';

const RECENT_CHANGES = 128;

/**
 * A registry slot file's list of recent entity changes (`{ v, at, id }`,
 * oldest first) after a commit at `version` changing `changed`, and the
 * version since which it holds every change: whole versions drop off the
 * front past RECENT_CHANGES entries.
 */
export function recentChanges(before, since, changed, version) {
  const changes = [...before, ...changed.map((p) => ({ v: version, at: p.at, id: p.entity.id }))];
  let changesSince = since;
  while (changes.length > RECENT_CHANGES) {
    changesSince = changes[0].v;
    while (changes.length > 0 && changes[0].v === changesSince) changes.shift();
  }
  return { changes, changesSince };
}

/** Reads entity files of one bundle's entities/ folder; `shown(name)` is how errors name a file. */
export class EntityFiles {
  #dir;
  #shown;

  constructor(dir, shown) {
    this.#dir = dir;
    this.#shown = shown;
  }

  async #read(name) {
    const text = await readText(path.join(this.#dir, name));
    return text === null ? null : parseEntityFile(text, this.#shown(name));
  }

  /** The pending entries of the registry slot file `header` whose entity files are not written yet. */
  async unwritten(header) {
    const out = [];
    for (const p of header.pending ?? []) {
      // Unreadable counts as unwritten: the entry stays pending, the commit writes the file.
      const on = await this.#read(entityFileOf(p.entity.id)).catch(() => null);
      if (!on || on.generation !== header.generation || on.at !== p.at || on.version < p.v) out.push(p);
    }
    return out;
  }

  /**
   * The entities the registry `header` (of `generation`) changed after
   * `version`, by position, from their files (or `pending`): undefined when
   * it cannot tell (another generation, or its list of changes does not reach
   * back that far), null when a file is newer than `header` (a commit landed
   * meanwhile: read both again).
   */
  async changedSince(header, generation, version) {
    if (generation !== header.generation || version < (header.changesSince ?? Infinity) || version > header.version) return undefined;
    const newest = new Map();
    for (const c of header.changes ?? []) if (c.v > version && (newest.get(c.at)?.v ?? -1) < c.v) newest.set(c.at, c);
    const changed = new Map();
    for (const [at, c] of newest) {
      const pending = header.pending.find((p) => p.at === at && p.v >= c.v);
      if (pending) {
        changed.set(at, pending.entity);
        continue;
      }
      const e = await this.#read(entityFileOf(c.id));
      if (e === null || e.generation !== header.generation || e.at !== at) return undefined;
      if (e.version > header.version) return null;
      if (e.version < c.v) return undefined;
      changed.set(at, e.entity);
    }
    return changed;
  }

  /**
   * Every entity of the registry `header` (of type `type`) from the files of
   * its type and generation, the slot file's pending entries where newer;
   * null when a file is newer than `header` (read both again).
   */
  async all(type, header) {
    const prefix = entityFilePrefix(type);
    const names = await fs.readdir(this.#dir).catch((err) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    const found = new Array(header.entityFiles).fill(null);
    const take = (e) => {
      if (e.at < found.length && (found[e.at] === null || found[e.at].version < e.version)) found[e.at] = e;
    };
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith('.md')) continue;
      const e = await this.#read(name);
      if (e === null || e.registry !== type || e.generation !== header.generation) continue;
      if (e.version > header.version) return null;
      take(e);
    }
    for (const p of header.pending) take({ at: p.at, version: p.v, entity: p.entity });
    const missing = found.indexOf(null);
    if (missing >= 0) {
      throw malformed(this.#shown(''), `has no file for entity ${missing} of the ${header.entityFiles} of registry ${JSON.stringify(type)} (version ${header.version})`);
    }
    return found.map((e) => e.entity);
  }
}
