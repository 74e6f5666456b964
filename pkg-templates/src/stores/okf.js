// OkfStore: a markdown bundle directory (Node only). The files are the source
// of truth; this object only caches what it parsed.
//
//   <dir>/claims/<subject>~<predicate>.md  one file per slot: YAML front matter
//                                          (version, claims, conflicts, writes)
//                                          and a readable body
//   <dir>/entities/*.md                     entities (SPEC §9): one file per
//                                          entity of a registry written by
//                                          its changes (commitRegistry), and
//                                          its names and same_entity questions
//                                          in <type>.<claims|conflicts>.<n>.md,
//                                          64 per file (okf-items.js); the
//                                          registry's slot file keeps the rest
//   <dir>/log.md                            append-only, readable, with the
//                                          structured entries as comments
//   <dir>/index/                            derived index (okf-index.js):
//                                          rebuilt from the markdown when missing
// With `{ scope }` the bundle is <dir>/scopes/<scope>/.
//
// A commit takes the slot's lock file, re-reads the slot and compares versions
// (a mismatch is `false`: the engine reloads and retries), appends its log
// block to log.md (under log.md's lock, which an erasure takes to rewrite the
// file), then replaces the slot file atomically, neither fsynced: the commit
// is durable once its record in this process's journal is (okf-journal.js:
// one fsync, shared by concurrent commits). A writer killed
// between the two leaves log records of a version the slot never reached, or a
// second block for a version that was later committed again; readLog keeps,
// per version, only the last block and only versions the slot file has. The
// temp files such a writer leaves are swept by the next store's first commit.
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { CredenceError } from '../errors.js';
import { knownOptions } from '../options.js';
import {
  ITEM_CHUNK, ITEM_KINDS, LOG_HEADER, chunkFileOf, compareKeys, entityFileOf, fileNameOf, logGeneration, malformed, parseChunkFile,
  parseEntityFile, parseLogLines, parseSlotFile, refOfFileName, renderChunkFile, renderEntityFile, renderLogBlock, renderSlotFile, rowsOf, slotKey,
} from './okf-format.js';
import { append, appendDurably, randomToken, readText, replaceFile, sweepDebris, withLock, writeAtomic } from './okf-fs.js';
import { Journal } from './okf-journal.js';
import { eraseFiles, erasePending, finishErase, pendingSlot, rewriteLog, sweepEraseTemps } from './okf-erase.js';
import { OkfIndex, idBucket } from './okf-index.js';
import { EntityFiles, recentChanges } from './okf-entities.js';
import { ItemFiles, itemMarkers, recentItemChanges, registryHeader } from './okf-items.js';
import { registryItemsOf } from './registry-items.js';
import { byOpenedAt, indexOf, isAfter } from './slot-index.js';

/** The claim and conflict ids and candidate ids (`writes`) `next` adds to the slot (`before` is its previous state). */
function freshIds(before, next) {
  const had = (list) => new Set((list ?? []).map((x) => x.id));
  const claims = had(before?.claims);
  const conflicts = had(before?.conflicts);
  const writes = had(before?.writes);
  return {
    claims: next.claims.map((c) => c.id).filter((id) => !claims.has(id)),
    conflicts: next.conflicts.map((c) => c.id).filter((id) => !conflicts.has(id)),
    writes: (next.writes ?? []).map((w) => w.id).filter((id) => !writes.has(id)),
  };
}

/** A file's identity and content version (a bigint stat): a commit renames a new file in, so every commit's file has its own. */
const stampOf = (stat) => `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;

const SCOPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const REGISTRY = '\u001fentities';

function invalid(field, message) {
  return new CredenceError(`OkfStore: ${field} ${message}`, { code: 'INVALID_INPUT', field });
}

function checkRef(ref) {
  if (!ref || typeof ref.subject !== 'string' || typeof ref.predicate !== 'string' || ref.key !== slotKey(ref.subject, ref.predicate)) {
    throw invalid('ref', `must be { key: subject + "\\u001f" + predicate, subject, predicate }`);
  }
  return ref;
}

/**
 * A ClaimStore in a directory of markdown files that people and LLMs can read.
 *
 * ```js
 * const memory = new Memory({ store: new OkfStore('./memory') });
 * ```
 */
/**
 * The `.gitignore` a new bundle gets: the markdown (claims/, entities/,
 * log.md) is the source of truth; indexes, journals, locks and temp files
 * are derived or per-process, rebuilt or recreated when missing.
 */
export const BUNDLE_GITIGNORE = `# credence bundle: claims/, entities/ and log.md are the source of truth.
# Derived or per-process files, rebuilt or recreated when missing:
index/
journal/
*.lock
.lock-owner.*
*.tmp
`;

export class OkfStore {
  #root;
  #claimsDir;
  #entitiesDir;
  #entities;
  /** registry key → the version whose entity files this store finished writing */
  #materialized = new Map();
  #items;
  /** registry key → the version whose chunk files this store finished writing */
  #materializedItems = new Map();
  /** registry key → { generation, version, entities } as this store last read or wrote it */
  #registries = new Map();
  #logFile;
  #lockOptions;
  #ready = null;
  /** file name → { text, ref, slot } as last read or written */
  #files = new Map();
  #claims = new Map();
  #conflicts = new Map();
  #log = { ino: null, generation: '', offset: 0, line: 1, byKey: new Map() };
  #index;
  #journal;
  #journalRecovered = null;

  constructor(dir, options = {}) {
    if (typeof dir !== 'string' || dir.length === 0) throw invalid('dir', 'must be a non-empty directory path');
    const { scope, lockTimeoutMs = 10000, staleLockMs = 30000 } = knownOptions('OkfStore', options, ['scope', 'lockTimeoutMs', 'staleLockMs']);
    if (scope !== undefined && (typeof scope !== 'string' || !SCOPE.test(scope))) {
      throw invalid('scope', 'must be 1–128 letters, digits, ".", "_" or "-", starting with a letter or digit');
    }
    this.#root = scope === undefined ? path.resolve(dir) : path.resolve(dir, 'scopes', scope);
    this.#claimsDir = path.join(this.#root, 'claims');
    this.#entitiesDir = path.join(this.#root, 'entities');
    this.#entities = new EntityFiles(this.#entitiesDir, (name) => this.#relative(path.join('entities', name)));
    this.#items = new ItemFiles(this.#entitiesDir, (name) => this.#relative(path.join('entities', name)));
    this.#logFile = path.join(this.#root, 'log.md');
    // Lock owner files live in the bundle root (okf-fs.js: one per process, swept when it dies).
    this.#lockOptions = { timeoutMs: lockTimeoutMs, staleMs: staleLockMs, ownerDir: this.#root };
    this.#index = new OkfIndex(this.#root);
    this.#journal = new Journal(this.#root, this.#lockOptions);
  }

  /** The bundle directory. */
  get dir() {
    return this.#root;
  }

  async loadSlot(ref) {
    for (let attempt = 1; ; attempt++) {
      const entry = await this.#entryOf(ref);
      if (!entry) return null;
      const slot = structuredClone(entry.slot);
      if (slot.entityFiles === undefined) return slot;
      // A file newer than the slot file read: a commit landed meanwhile, read both again.
      const entities = (await this.#entitiesSince(ref, slot)) ?? (await this.#entities.all(ref.predicate, slot));
      const items = entities === null || slot.claimRows === undefined ? {} : await this.#items.all(ref.predicate, slot);
      if (entities === null || items === null) {
        if (attempt >= 200) throw new CredenceError(`OkfStore: registry ${JSON.stringify(ref.predicate)} kept changing while it was read (${attempt} tries)`, { code: 'CONCURRENCY' });
        await new Promise((resolve) => setTimeout(resolve, Math.min(attempt, 20)));
        continue;
      }
      this.#registries.set(ref.key, { generation: slot.generation, version: slot.version, entities });
      this.#rememberItems(ref, items);
      return { ...registryHeader(slot), entities: structuredClone(entities), ...items };
    }
  }

  /**
   * The slot's current version and its file's stamp (inode, size, change
   * times): a new file per commit, so a tag never returns for other content.
   * null when the slot is empty.
   */
  async slotTag(ref) {
    const entry = await this.#entryOf(ref);
    if (!entry || entry.stamp === null) return null;
    // A registry's names its generation too (loadRegistryChanges answers only within one).
    return ref.subject === REGISTRY ? this.#registryTag(entry) : `${entry.slot.version}:${entry.stamp}`;
  }

  /**
   * This store keeps a registry's claims and conflicts (its names and
   * `same_entity` questions) in chunk files by position too: a registry
   * commit then carries only those that changed (see `registryRows` in the
   * ClaimStore docs).
   */
  get registryRows() {
    return true;
  }

  /**
   * An entity registry written by its changes (see `commitRegistry` in the
   * ClaimStore docs): each changed entity to its file in entities/, the
   * registry's slot file without entities. The slot file goes first and
   * carries every change whose entity file may not be written yet
   * (`pending`, each with the version that made it): readers take the newest
   * of a file and a pending entry, so a writer killed before its entity files
   * loses nothing, and the next commit writes them. A registry kept whole
   * until now first has its entities written to files as committed (a reader
   * of the whole slot file ignores them) under a new `generation`, which
   * every entity file names: files of another generation (a registry written
   * whole meanwhile, or deleted and begun anew) never count. Resolves to the
   * new tag, or false.
   */
  async commitRegistry(commit) {
    const ref = checkRef(commit?.ref);
    const changed = commit.entities;
    const count = commit.entityCount;
    if (ref.subject !== REGISTRY || !Number.isSafeInteger(count) || !Array.isArray(changed) || changed.some((e) => !Number.isSafeInteger(e?.at) || e.at < 0 || e.at >= count || typeof e.entity?.id !== 'string')) {
      throw invalid('commit', 'must be an entity registry commit: entities as { at: position below entityCount, entity } items');
    }
    const items = registryItemsOf(commit, invalid);
    const { entities: _, ...rest } = commit.slot;
    let tag = false;
    const header = { ...rest, entityFiles: 0, generation: '', pending: [] };
    if (items) Object.assign(header, { claims: [], conflicts: [] });
    const markers = items && ((current) => itemMarkers(items, current?.slot));
    const won = await this.#casSlot({ ...commit, slot: header }, async ({ ref, slot, name, file, current }) => {
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
      const block = renderLogBlock(ref, slot.version, commitId, commit.log);
      await this.#appendLog(name, block, slot.version, commitId, !current);
      const text = renderSlotFile(ref.subject, ref.predicate, slot);
      await replaceFile(file, text);
      const written = slot.pending.map((p) => fileOf(p.at, p.v, p.entity));
      for (const e of written) await replaceFile(path.join(this.#entitiesDir, e.f), e.text);
      this.#materialized.set(ref.key, `${generation}:${slot.version}`);
      const chunks = items ? [...moved, ...(await this.#writeChunks(ref, slot))] : [];
      if (items) this.#rememberItems(ref, { claims: items.claims.map((p) => p.item), conflicts: items.conflicts.map((p) => p.item) });
      const held = this.#registries.get(ref.key);
      if (held && !whole && held.generation === generation && held.version === before.version) {
        const entities = held.entities.slice();
        for (const p of changed) entities[p.at] = structuredClone(p.entity);
        this.#registries.set(ref.key, { generation, version: slot.version, entities });
      } else {
        this.#registries.delete(ref.key);
      }
      await this.#journal.append({ f: name, k: ref.key, v: slot.version, c: commitId, slot: text, log: block, ents: [...ents, ...written], chunks });
      return text;
    }, (stamp) => {
      tag = `${header.version}:${header.generation}:${header.itemGeneration ?? ''}:${stamp ?? `unstamped-${randomToken()}`}`;
    }, markers);
    return won ? tag : false;
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

  /** Registers the ids of a registry's claims and conflicts as its (findClaim, findConflict). */
  #rememberItems(ref, items) {
    for (const c of items.claims ?? []) this.#claims.set(c.id, { ...ref });
    for (const c of items.conflicts ?? []) this.#conflicts.set(c.id, { ...ref });
  }

  async commitSlot(commit) {
    return this.#casSlot(commit, async ({ ref, slot, name, file, current }) => {
      const commitId = randomToken();
      const block = renderLogBlock(ref, slot.version, commitId, commit.log);
      await this.#appendLog(name, block, slot.version, commitId, !current);
      const text = renderSlotFile(ref.subject, ref.predicate, slot);
      await replaceFile(file, text);
      // Acknowledged (and the slot's lock released) only once the journal holds it durably.
      await this.#journal.append({ f: name, k: ref.key, v: slot.version, c: commitId, slot: text, log: block });
      return text;
    });
  }

  /** Appends a commit's block to log.md and notes where it went. */
  async #appendLog(name, block, version, commitId, created) {
    // log.md's own lock: an erasure rewrites the whole file, and no append may land in between
    // (nor between noting where the block goes and appending it).
    await withLock(`${this.#logFile}.lock`, this.#lockOptions, async () => {
      const logSize = await fs.stat(this.#logFile).then((st) => st.size, () => 0);
      await this.#index.noteLogBlock(name, logSize, version, commitId, created);
      await append(this.#logFile, block);
    });
  }

  /** The registry `header` names, from the one this store read last and what changed since (EntityFiles.changedSince). */
  async #entitiesSince(ref, header) {
    const held = this.#registries.get(ref.key);
    if (!held) return undefined;
    const changed = await this.#entities.changedSince(header, held.generation, held.version);
    if (!changed) return changed;
    const entities = held.entities.slice();
    for (const [at, entity] of changed) entities[at] = entity;
    if (entities.length !== header.entityFiles || entities.includes(undefined)) return undefined;
    return entities;
  }

  /**
   * A registry whose tag moved since `since` (see `loadRegistryChanges` in
   * the ClaimStore docs): the entities changed after `since.version`, read
   * from their files; null when it cannot tell.
   */
  async loadRegistryChanges(ref, since) {
    const [, generation, itemGeneration] = typeof since?.tag === 'string' ? since.tag.split(':') : [];
    if (checkRef(ref).subject !== REGISTRY || !generation || !Number.isSafeInteger(since.version)) return null;
    for (let attempt = 1; attempt <= 20; attempt++) {
      const entry = await this.#entryOf(ref);
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
      const answer = { slot, entities, entityCount: entry.slot.entityFiles, tag: this.#registryTag(entry) };
      if (entry.slot.claimRows === undefined) return answer;
      const positioned = (map) => [...map].map(([at, item]) => ({ at, item: structuredClone(item) }));
      this.#rememberItems(ref, { claims: [...items.claims.values()], conflicts: [...items.conflicts.values()] });
      return { ...answer, claims: positioned(items.claims), claimCount: entry.slot.claimRows, conflicts: positioned(items.conflicts), conflictCount: entry.slot.conflictRows };
    }
    return null;
  }

  /** A registry slot file's tag: its version, generation and stamp. */
  #registryTag(entry) {
    return `${entry.slot.version}:${entry.slot.generation ?? ''}:${entry.slot.itemGeneration ?? ''}:${entry.stamp}`;
  }

  /**
   * Privacy erasure: the slot file and log.md rewritten without the erased
   * text, both or neither (see okf-erase.js for the crash protocol).
   */
  async eraseSlot(commit, log) {
    if (!Array.isArray(log)) throw invalid('log', 'must be an array of log entries');
    return this.#casSlot(commit, ({ ref, slot, file }) =>
      withLock(`${this.#logFile}.lock`, this.#lockOptions, async () => {
        // Journals hold earlier texts of the slot: made redundant and emptied, in every process,
        // before the erasure starts (this slot's lock keeps new ones out).
        await this.#journal.checkpointAll();
        await sweepEraseTemps(this.#root, this.#claimsDir);
        const byVersion = new Map();
        for (const e of log) {
          if (!byVersion.has(e.version)) byVersion.set(e.version, []);
          byVersion.get(e.version).push(e);
        }
        const blocks = [...byVersion].map(([v, entries]) => renderLogBlock(ref, v, randomToken(), entries));
        blocks.push(renderLogBlock(ref, slot.version, randomToken(), commit.log));
        const logText = rewriteLog((await readText(this.#logFile)) ?? LOG_HEADER, ref.key, blocks, this.#relative('log.md'));
        const text = renderSlotFile(ref.subject, ref.predicate, slot);
        await eraseFiles(this.#root, file, text, this.#logFile, logText);
        // Every block after the rewritten ones moved: noted offsets are void (reads fall back to log.md).
        await this.#index.dropLogOffsets();
        return text;
      }),
    );
  }

  /**
   * The compare-and-swap both writes share: under the slot's lock, `write`
   * runs only if the slot is still at `commit.expectedVersion`, and resolves
   * to the slot file's new text. Index markers bracket it so they stay a
   * superset of the truth (okf-index.js).
   */
  async #casSlot(commit, write, stamped = () => {}, markersOf = null) {
    const ref = checkRef(commit.ref);
    const { expectedVersion, slot } = commit;
    await this.#ensureBundle();
    await this.#recover();
    const name = fileNameOf(ref.subject, ref.predicate);
    const file = path.join(this.#claimsDir, name);
    return withLock(`${file}.lock`, this.#lockOptions, async () => {
      const current = await this.#read(name);
      if (current) this.#expectRef(current, ref);
      if ((current ? current.slot.version : 0) !== expectedVersion) return false;
      const ids = [...new Set(commit.index?.writes ?? [])];
      // A candidate id this commit records: checked and written under its id lock, so two
      // commits racing one id into two slots land once (SPEC §8), the other writes nothing.
      return this.#withIdLocks(ids, async () => {
        for (const id of ids) {
          if (await this.#holderOf(id, name)) return false;
        }
        const { index, before, fresh } = markersOf?.(current) ?? {
          index: indexOf(commit), before: current ? indexOf({ slot: current.slot }) : null, fresh: freshIds(current?.slot, slot),
        };
        await this.#index.addMarkers(name, index, before, fresh, current ? null : ref.subject);
        const text = await write({ ref, slot, name, file, current });
        // Stamped now, under the lock (no one else can have replaced it), so the next read skips it.
        const written = await fs.stat(file, { bigint: true }).catch(() => null);
        this.#remember(name, { text, stamp: written && stampOf(written), ref: { ...ref }, slot: structuredClone(slot) });
        stamped(written && stampOf(written));
        await this.#index.dropMarkers(name, before, index);
        return true;
      });
    });
  }

  /**
   * Runs `work` holding the locks of `ids`' buckets (256, by hash; in the
   * bundle root, beside log.md's), taken in one order after the slot's own,
   * so no two commits wait on each other. A dead writer's is broken by the
   * next commit that needs it, as a slot's is.
   */
  async #withIdLocks(ids, work) {
    const buckets = [...new Set(ids.map(idBucket))].sort();
    const run = (i) => (i === buckets.length ? work() : withLock(path.join(this.#root, `.writes-${buckets[i]}.lock`), this.#lockOptions, () => run(i + 1)));
    return run(0);
  }

  async findClaim(claimId) {
    await this.#recover();
    return this.#find(this.#claims, claimId, 'claims');
  }

  async findConflict(conflictId) {
    await this.#recover();
    return this.#find(this.#conflicts, conflictId, 'conflicts');
  }

  /** The slot a candidate id (idempotency key) was written to. */
  async findWrite(writeId) {
    await this.#recover();
    await this.#indexReady();
    return (await this.#holderOf(String(writeId)))?.ref ?? null;
  }

  /**
   * The slot file (other than `except`) whose records hold candidate id `id`,
   * read, or null. The by-id lines are hints, newest first: each is checked
   * against its file (a writer killed before its slot write leaves a line).
   */
  async #holderOf(id, except = null) {
    for (const name of await this.#index.slotFilesWith('writes', id)) {
      if (name === except) continue;
      const entry = await this.#read(name).catch(() => null);
      if (entry?.slot.writes?.some((w) => w.id === id)) return entry;
    }
    return null;
  }

  async listSlots(filter = {}) {
    await this.#recover();
    const subject = filter?.subject;
    const refs = [];
    const hasSubject = subject !== undefined && subject !== null;
    // A subject's slots come from its index folder; a full listing reads claims/.
    const indexed = hasSubject && !(await this.#indexReady());
    const names = indexed ? await this.#index.slotFilesOf(String(subject)) : await this.#slotFiles();
    for (const name of names) {
      let ref = refOfFileName(name);
      // An index marker may outlive a writer killed before its slot write: the file decides.
      if (ref.hashed || indexed) ref = (await this.#read(name))?.ref;
      if (ref && (subject === undefined || subject === null || ref.subject === subject)) refs.push(ref);
    }
    return refs.sort((a, b) => compareKeys(a.key, b.key));
  }

  async listConflicts({ status, after, limit }) {
    await this.#indexComplete();
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
    const entry = await this.#read(slotFile);
    const conflicts = entry?.slot.claimRows !== undefined ? (await this.loadSlot(entry.ref)).conflicts : entry?.slot.conflicts ?? [];
    return { entry, byId: new Map(conflicts.map((r) => [r.id, r])) };
  }

  async dirtySlots({ after, limit }) {
    await this.#indexComplete();
    const candidates = [];
    for (const name of await this.#index.dirty()) {
      const entry = await this.#read(name);
      if (entry && indexOf({ slot: entry.slot }).unreviewed) candidates.push(entry.ref);
    }
    return candidates
      .filter((r) => after === undefined || after === null || compareKeys(r.key, after) > 0)
      .sort((a, b) => compareKeys(a.key, b.key))
      .slice(0, limit)
      .map((r) => ({ ...r }));
  }

  async readLog(ref) {
    const entry = await this.#entryOf(ref);
    if (!entry) return [];
    const version = entry.slot.version;
    let records = await this.#slotLogRecords(fileNameOf(ref.subject, ref.predicate), ref.key, version);
    if (!records) {
      await this.#refreshLog();
      records = (this.#log.byKey.get(ref.key) ?? []).filter((r) => r.v <= version);
    }
    const winner = new Map();
    for (const r of records) winner.set(r.v, r.c);
    return records
      .filter((r) => winner.get(r.v) === r.c && r.e !== null)
      .sort((a, b) => a.v - b.v)
      .map((r) => structuredClone(r.e));
  }

  // ---- internals ------------------------------------------------------------

  /** The parsed slot file of `ref` (checked to hold that slot), or null when the slot is empty. */
  async #entryOf(ref) {
    checkRef(ref);
    await this.#recover();
    const entry = await this.#read(fileNameOf(ref.subject, ref.predicate));
    if (entry) this.#expectRef(entry, ref);
    return entry;
  }

  /** Finishes an erasure a killed writer left half-way (one stat when there is none). */
  async #recover() {
    this.#journalRecovered ??= (async () => {
      // Markers and noted log offsets are not fsynced: after a reboot, rebuilt from the markdown.
      // log.md is parsed once per recovery, not once per replayed slot.
      const logged = { keys: null };
      if (await this.#journal.recover((name, records) => this.#replay(name, records, logged))) {
        await fs.rm(path.join(this.#root, 'index'), { recursive: true, force: true });
      }
    })().catch((err) => {
      this.#journalRecovered = null;
      throw err;
    });
    await this.#journalRecovered;
    if (!(await erasePending(this.#root))) return;
    const slot = await pendingSlot(this.#root);
    const finish = () => withLock(`${this.#logFile}.lock`, this.#lockOptions, () => finishErase(this.#root));
    await (slot ? withLock(`${path.join(this.#root, slot)}.lock`, this.#lockOptions, finish) : finish());
    // The eraser emptied the journals before its marker; again, in case a writer journaled meanwhile.
    await this.#journal.checkpointAll();
  }

  /**
   * After a reboot, the journaled commits of a dead process that did not
   * reach the disk: log blocks log.md lacks are appended, and the slot file
   * is rewritten when it is older than the last record (`records` by version).
   * `logged.keys`: the blocks log.md holds, read on the first call of a recovery.
   */
  async #replay(name, records, logged) {
    const file = path.join(this.#claimsDir, name);
    await withLock(`${file}.lock`, this.#lockOptions, async () => {
      const current = await this.#read(name).catch((err) => {
        if (err?.code === 'MALFORMED_STORE_DATA') return null; // torn by the power loss: the record replaces it
        throw err;
      });
      await withLock(`${this.#logFile}.lock`, this.#lockOptions, async () => {
        if (logged.keys === null) {
          logged.keys = new Set();
          parseLogLines((await readText(this.#logFile)) ?? '', 1, this.#relative('log.md'), (r) => logged.keys.add(`${r.k}|${r.v}|${r.c}`));
        }
        const missing = records.filter((r) => !logged.keys.has(`${r.k}|${r.v}|${r.c}`));
        if (missing.length > 0) await appendDurably(this.#logFile, missing.map((r) => r.log).join(''));
        for (const r of missing) logged.keys.add(`${r.k}|${r.v}|${r.c}`);
      });
      const last = records.at(-1);
      if ((current?.slot.version ?? 0) < last.v) {
        await writeAtomic(file, last.slot);
        this.#files.delete(name);
      }
      // Entity and chunk files a registry's commits wrote, of the generations its slot file now
      // names: each as its newest record has it, unless the disk holds a newer one.
      const slot = await this.#read(name).then((e) => e?.slot, () => undefined);
      await this.#replayFiles(records, 'ents', parseEntityFile, slot?.generation);
      await this.#replayFiles(records, 'chunks', parseChunkFile, slot?.itemGeneration);
    });
  }

  /** Writes the files of `records[*][field]` (parsed by `parse`) of `generation`, each at its newest version. */
  async #replayFiles(records, field, parse, generation) {
    const newest = new Map();
    for (const r of records) {
      for (const e of r[field] ?? []) {
        const parsed = parse(e.text, e.f);
        if (parsed.generation === generation && (newest.get(e.f)?.version ?? -1) <= parsed.version) newest.set(e.f, { version: parsed.version, text: e.text });
      }
    }
    for (const [file, { version, text }] of newest) {
      const target = path.join(this.#entitiesDir, file);
      const onDisk = await readText(target).then((t) => (t === null ? null : parse(t, target)), () => null);
      if (!onDisk || onDisk.generation !== generation || onDisk.version < version) await writeAtomic(target, text);
    }
  }

  #relative(file) {
    return path.join(this.#root, file);
  }

  #expectRef(entry, ref) {
    if (entry.ref.subject !== ref.subject || entry.ref.predicate !== ref.predicate) {
      const file = this.#relative(path.join('claims', fileNameOf(ref.subject, ref.predicate)));
      throw malformed(file, `holds ${JSON.stringify(entry.ref.subject)} / ${JSON.stringify(entry.ref.predicate)}, not the slot its name stands for`);
    }
  }

  /**
   * Rebuilds the derived index from the markdown when it is missing. A file
   * that cannot be parsed is skipped and returned (the index is then not
   * marked complete, so the next call tries again).
   */
  async #indexReady() {
    if (await this.#index.isReady()) return null;
    let broken = null;
    await this.#index.rebuild(async (visit) => {
      for (const name of await this.#slotFiles()) {
        try {
          const entry = await this.#read(name);
          // A registry with its claims and conflicts in chunk files: indexed with them.
          const slot = entry?.slot.claimRows === undefined ? entry?.slot : await this.loadSlot(entry.ref);
          if (entry) await visit(name, indexOf({ slot }), freshIds(null, slot), entry.ref.subject);
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
  async #indexComplete() {
    const broken = await this.#indexReady();
    if (broken) throw broken;
  }

  #ensureBundle() {
    this.#ready ??= (async () => {
      await fs.mkdir(this.#root, { recursive: true });
      // A bundle this call creates has no slot to index yet: its index is complete from the start.
      const created = await fs.mkdir(this.#claimsDir).then(() => true, (err) => {
        if (err.code !== 'EEXIST') throw err;
        return false;
      });
      if (created) await this.#index.markComplete();
      await fs.mkdir(path.join(this.#root, 'entities'), { recursive: true });
      await fs.writeFile(this.#logFile, LOG_HEADER, { flag: 'wx' }).catch((err) => {
        if (err.code !== 'EEXIST') throw err;
      });
      // For people who commit the bundle: only the markdown is history (never overwrites theirs).
      await fs.writeFile(path.join(this.#root, '.gitignore'), BUNDLE_GITIGNORE, { flag: 'wx' }).catch((err) => {
        if (err.code !== 'EEXIST') throw err;
      });
      // Temp files of writers killed mid-commit: harmless, but never reused.
      await sweepDebris(this.#root);
      await sweepDebris(this.#claimsDir);
      await sweepDebris(path.join(this.#root, 'journal'));
      await sweepDebris(this.#entitiesDir);
    })().catch((err) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }

  async #slotFiles() {
    try {
      return (await fs.readdir(this.#claimsDir)).filter((name) => refOfFileName(name) !== null);
    } catch (err) {
      if (err.code === 'ENOENT') return [];
      throw err;
    }
  }

  /**
   * Reads and parses claims/<name>, reusing the last parse when the file is
   * unchanged: the same inode, size and change times (a commit renames a new
   * file in, so each commit's file has its own stamp) skips the read, the
   * same text skips the parse. An entity registry can be megabytes.
   */
  async #read(name) {
    const file = path.join(this.#claimsDir, name);
    const stat = await fs.stat(file, { bigint: true }).catch((err) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    const cached = this.#files.get(name);
    const stamp = stat && stampOf(stat);
    if (cached && stamp && cached.stamp === stamp) return cached;
    const text = stat && (await readText(file));
    if (text === null) {
      this.#files.delete(name);
      return null;
    }
    // Stamped only when the file did not change between the stat and the read.
    const settled = (await fs.stat(file, { bigint: true }).catch(() => null));
    const keep = settled && stampOf(settled) === stamp ? stamp : null;
    if (cached && cached.text === text) {
      cached.stamp = keep;
      return cached;
    }
    const parsed = parseSlotFile(text, this.#relative(path.join('claims', name)));
    if (fileNameOf(parsed.ref.subject, parsed.ref.predicate) !== name) {
      throw malformed(this.#relative(path.join('claims', name)), `front matter names ${JSON.stringify(parsed.ref.subject)} / ${JSON.stringify(parsed.ref.predicate)}, not the slot its file name stands for`);
    }
    const entry = { text, stamp: keep, ...parsed };
    this.#remember(name, entry);
    return entry;
  }

  /** `#read`, and for a registry with chunk files its claims and conflicts too (their ids registered). */
  async #readWithItems(name) {
    const entry = await this.#read(name);
    if (entry?.slot.claimRows !== undefined) await this.loadSlot(entry.ref);
    return entry;
  }

  #remember(name, entry) {
    this.#files.set(name, entry);
    for (const claim of entry.slot.claims) this.#claims.set(claim.id, entry.ref);
    for (const conflict of entry.slot.conflicts) this.#conflicts.set(conflict.id, entry.ref);
  }

  /**
   * Claims and conflicts never move between slots, so a known id is final. An
   * unknown one is looked up in the derived index, and only when that has no
   * (or a stale) answer is the bundle rescanned.
   */
  async #find(index, id, kind) {
    if (!index.has(id)) {
      await this.#indexReady();
      const hinted = await this.#index.slotFileOf(kind, String(id));
      if (hinted) await this.#readWithItems(hinted).catch(() => null);
    }
    if (!index.has(id)) {
      let broken = null;
      for (const name of await this.#slotFiles()) {
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
   * A slot's log records read at the offsets its index file notes, without
   * parsing all of log.md; null (read everything) when there is no offsets
   * file or it does not account for every version up to `version`.
   */
  async #slotLogRecords(slotFile, key, version) {
    if (this.#log.offset > 0) return null; // log.md already parsed in this process: use it
    const blocks = await this.#index.logBlocks(slotFile);
    if (!blocks) return null;
    const records = [];
    const handle = await fs.open(this.#logFile, 'r').catch(() => null);
    if (!handle) return null;
    try {
      const size = (await handle.stat()).size;
      for (const block of blocks) {
        if (block.v > version) continue;
        // The block starts at or after `at`; writers appending between stat and append push it later.
        for (let window = 4 * 1024; ; window *= 4) {
          const length = Math.min(window, size - block.at);
          if (length <= 0) break;
          const buffer = Buffer.alloc(length);
          const { bytesRead } = await handle.read(buffer, 0, length, block.at);
          const text = buffer.subarray(0, bytesRead).toString('utf8');
          const end = text.lastIndexOf('\n');
          const found = [];
          let lastIsOurs = false;
          // Stops at the first record after the block: parsing the whole window
          // for every version made a 300-version slot's log read take ~100 ms.
          parseLogLines(end < 0 ? '' : text.slice(0, end), 1, this.#relative('log.md'), (r) => {
            lastIsOurs = r.c === block.c && r.k === key;
            if (lastIsOurs) found.push(r);
            return lastIsOurs || found.length === 0;
          });
          // A block is one append, its records contiguous: it is whole once another
          // record follows it, or the window reached the end of the file.
          const atEnd = block.at + length >= size;
          if ((found.length > 0 && !lastIsOurs) || atEnd || window >= 16 * 1024 * 1024) {
            records.push(...found);
            break;
          }
        }
      }
    } finally {
      await handle.close();
    }
    // Every version up to the slot's must have a block, else fall back to reading everything.
    const versions = new Set(records.map((r) => r.v));
    for (let v = 1; v <= version; v++) if (!versions.has(v)) return null;
    return records;
  }

  /** Parses what was appended to log.md since the last call. */
  async #refreshLog() {
    const log = this.#log;
    let handle;
    try {
      handle = await fs.open(this.#logFile, 'r');
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
      Object.assign(log, { ino: null, generation: '', offset: 0, line: 1, byKey: new Map() });
      return;
    }
    try {
      const stat = await handle.stat();
      // Parsed so far only while it is the same file: same inode, not shorter, and the same generation
      // in its head (an erasure's rewrite may reuse the old inode number).
      const head = Buffer.alloc(Math.min(stat.size, 4096));
      const generation = logGeneration(head.subarray(0, (await handle.read(head, 0, head.length, 0)).bytesRead).toString('utf8'));
      if (stat.ino !== log.ino || stat.size < log.offset || generation !== log.generation) {
        Object.assign(log, { ino: stat.ino, generation, offset: 0, line: 1, byKey: new Map() });
      }
      if (stat.size <= log.offset) return;
      const buffer = Buffer.alloc(stat.size - log.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, log.offset);
      const end = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (end < 0) return;
      const text = buffer.subarray(0, end).toString('utf8');
      const records = [];
      parseLogLines(text, log.line, this.#relative('log.md'), (record) => records.push(record));
      for (const record of records) {
        if (!log.byKey.has(record.k)) log.byKey.set(record.k, []);
        log.byKey.get(record.k).push(record);
      }
      log.offset += end + 1;
      log.line += text.split('\n').length;
    } finally {
      await handle.close();
    }
  }
}
