// OkfStore: a markdown bundle directory (Node only). The files are the source
// of truth; this object only caches what it parsed.
//
//   <dir>/claims/<subject>~<predicate>.md  one file per slot: YAML front matter
//                                          (version, claims, conflicts, writes)
//                                          and a readable body
//   <dir>/entities/*.md                     only in a bundle written before
//                                          issue #44: an old entity registry's
//                                          entities, names and questions
//                                          (okf-legacy.js, read only)
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
//
// This file is the ClaimStore façade and the compare-and-swap every write
// shares; the rest is in rooms of its own: reading claims/ (okf-slot-files.js),
// log.md (okf-log.js), look-ups through the derived index (okf-lookups.js,
// okf-index.js), old entity registries (okf-legacy.js), journal replay
// after a reboot (okf-replay.js, okf-journal.js), erasure
// (okf-erase.js), file formats (okf-format.js) and file primitives (okf-fs.js).
//
// An entity slot's key rows (`commit.index.entity`, answered by findEntities)
// are kept in its slot file's front matter, so they are written, journaled
// and replaced with the slot itself; index/by-id/keys finds the files by key.
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { CredenceError } from '../errors.js';
import { knownOptions } from '../options.js';
import { LOG_HEADER, checkRef, compareKeys, fileNameOf, invalid, refOfFileName, renderLogBlock, renderSlotFile } from './okf-format.js';
import { randomToken, readText, replaceFile, sweepDebris, withLock } from './okf-fs.js';
import { Journal } from './okf-journal.js';
import { eraseFiles, erasePending, finishErase, pendingSlot, rewriteLog, sweepEraseTemps } from './okf-erase.js';
import { entityKeysOf, entityQueryOf } from './entity-keys.js';
import { OkfIndex, freshIds, freshKeys, idBucket } from './okf-index.js';
import { dropRegistryFiles, isLegacyRegistry, readRegistry } from './okf-legacy.js';
import { BundleLog } from './okf-log.js';
import { Lookups } from './okf-lookups.js';
import { replaySlot } from './okf-replay.js';
import { SlotFiles, stampOf } from './okf-slot-files.js';
import { indexOf } from './slot-index.js';

const SCOPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The `.gitignore` a new bundle gets: the markdown (claims/, log.md) is the
 * source of truth; indexes, journals, locks and temp files are derived or per-process, rebuilt or recreated when missing.
 */
export const BUNDLE_GITIGNORE = `# credence bundle: claims/ and log.md are the source of truth.
# Derived or per-process files, rebuilt or recreated when missing:
index/
journal/
*.lock
.lock-owner.*
*.tmp
`;

/**
 * A ClaimStore in a directory of markdown files that people and LLMs can read.
 *
 * ```js
 * const memory = new Memory({ store: new OkfStore('./memory') });
 * ```
 */
export class OkfStore {
  #root;
  #claimsDir;
  #logFile;
  #lockOptions;
  #ready = null;
  /** claims/: parsed slot files and the ids they hold */
  #slots;
  #log;
  #index;
  /** look-ups through the derived index */
  #lookups;
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
    this.#logFile = path.join(this.#root, 'log.md');
    // Lock owner files live in the bundle root (okf-fs.js: one per process, swept when it dies).
    this.#lockOptions = { timeoutMs: lockTimeoutMs, staleMs: staleLockMs, ownerDir: this.#root };
    this.#index = new OkfIndex(this.#root);
    this.#journal = new Journal(this.#root, this.#lockOptions);
    this.#log = new BundleLog(this.#logFile, this.#index, this.#lockOptions);
    this.#slots = new SlotFiles(this.#root);
    this.#lookups = new Lookups(this.#slots, this.#index, (ref) => this.loadSlot(ref));
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
      if (!isLegacyRegistry(slot)) return slot;
      // null: a file newer than the slot file read (an older version's writer landed a commit); read both again.
      const registry = await readRegistry(this.#root, ref.predicate, slot, (name) => path.join(this.#root, 'entities', name));
      if (registry) {
        this.#slots.rememberItems(ref, registry);
        return registry;
      }
      if (attempt >= 200) throw new CredenceError(`OkfStore: registry ${JSON.stringify(ref.predicate)} kept changing while it was read (${attempt} tries)`, { code: 'CONCURRENCY' });
      await new Promise((resolve) => setTimeout(resolve, Math.min(attempt, 20)));
    }
  }

  async commitSlot(commit) {
    return this.#casSlot(commit, async ({ ref, slot, name, file, current, entity }) => {
      const commitId = randomToken();
      const block = renderLogBlock(ref, slot.version, commitId, commit.log);
      await this.#log.append(name, block, slot.version, commitId, !current);
      const text = renderSlotFile(ref.subject, ref.predicate, slot, entity);
      await replaceFile(file, text);
      // Acknowledged (and the slot's lock released) only once the journal holds it durably.
      await this.#journal.append({ f: name, k: ref.key, v: slot.version, c: commitId, slot: text, log: block });
      return text;
    });
  }

  /**
   * Privacy erasure: the slot file and log.md rewritten without the erased
   * text, both or neither (see okf-erase.js for the crash protocol).
   */
  async eraseSlot(commit, log) {
    if (!Array.isArray(log)) throw invalid('log', 'must be an array of log entries');
    return this.#casSlot(commit, ({ ref, slot, file, entity }) =>
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
        const logText = rewriteLog((await readText(this.#logFile)) ?? LOG_HEADER, ref.key, blocks, this.#logFile);
        const text = renderSlotFile(ref.subject, ref.predicate, slot, entity);
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
   * superset of the truth (okf-index.js). `write` gets the entity key rows
   * the file keeps: the commit's `index.entity`, else the slot's until now.
   */
  async #casSlot(commit, write) {
    const ref = checkRef(commit.ref);
    const { expectedVersion, slot } = commit;
    const rows = entityKeysOf(commit, invalid);
    await this.#ensureBundle();
    await this.#recover();
    const name = fileNameOf(ref.subject, ref.predicate);
    const file = path.join(this.#claimsDir, name);
    return withLock(`${file}.lock`, this.#lockOptions, async () => {
      const current = await this.#slots.read(name);
      if (current) this.#slots.expectRef(current, ref);
      if ((current ? current.slot.version : 0) !== expectedVersion) return false;
      const ids = [...new Set(commit.index?.writes ?? [])];
      // A candidate id this commit records: checked and written under its id lock, so two
      // commits racing one id into two slots land once (SPEC §8), the other writes nothing.
      return this.#withIdLocks(ids, async () => {
        for (const id of ids) {
          if (await this.#lookups.holderOf(id, name)) return false;
        }
        const entity = rows ? { type: rows.type, id: rows.id, keys: rows.keys.map(({ key, name }) => ({ key, name })) } : current?.entity ?? null;
        const index = indexOf(commit);
        const before = current ? indexOf({ slot: current.slot }) : null;
        const fresh = { ...freshIds(current?.slot, slot), keys: freshKeys(current?.entity, entity) };
        await this.#index.addMarkers(name, index, before, fresh, current ? null : ref.subject);
        const text = await write({ ref, slot, name, file, current, entity });
        // Stamped now, under the lock (no one else can have replaced it), so the next read skips it.
        const written = await fs.stat(file, { bigint: true }).catch(() => null);
        this.#slots.remember(name, { text, stamp: written && stampOf(written), ref: { ...ref }, slot: structuredClone(slot), entity });
        await this.#index.dropMarkers(name, before, index);
        // An old registry committed (emptied) as an ordinary slot: its entity and chunk files go.
        if (isLegacyRegistry(current?.slot)) await dropRegistryFiles(this.#root, ref.predicate);
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
    return this.#lookups.find('claims', claimId);
  }

  async findConflict(conflictId) {
    await this.#recover();
    return this.#lookups.find('conflicts', conflictId);
  }

  /** The slot a candidate id (idempotency key) was written to. */
  async findWrite(writeId) {
    await this.#recover();
    await this.#lookups.ready();
    return (await this.#lookups.holderOf(String(writeId)))?.ref ?? null;
  }

  /**
   * The key rows (`{ key, entity, name }`) of every entity of `query.type`
   * whose key is one of `query.keys`, as the last commit of each entity slot
   * left them (see `findEntities` in the ClaimStore docs).
   */
  async findEntities(query) {
    const { type, keys } = entityQueryOf(query, invalid);
    await this.#recover();
    await this.#lookups.ready();
    return this.#lookups.entities(type, keys);
  }

  async listSlots(filter = {}) {
    await this.#recover();
    const subject = filter?.subject;
    const refs = [];
    const hasSubject = subject !== undefined && subject !== null;
    // A subject's slots come from its index folder; a full listing reads claims/.
    const indexed = hasSubject && !(await this.#lookups.ready());
    const names = indexed ? await this.#index.slotFilesOf(String(subject)) : await this.#slots.names();
    for (const name of names) {
      let ref = refOfFileName(name);
      // An index marker may outlive a writer killed before its slot write: the file decides.
      if (ref.hashed || indexed) ref = (await this.#slots.read(name))?.ref;
      if (ref && (subject === undefined || subject === null || ref.subject === subject)) refs.push(ref);
    }
    return refs.sort((a, b) => compareKeys(a.key, b.key));
  }

  async listConflicts(query) {
    return this.#lookups.conflicts(query);
  }

  async dirtySlots(query) {
    return this.#lookups.dirty(query);
  }

  async readLog(ref) {
    const entry = await this.#entryOf(ref);
    if (!entry) return [];
    return this.#log.entries(fileNameOf(ref.subject, ref.predicate), ref.key, entry.slot.version);
  }

  // ---- internals ------------------------------------------------------------

  /** The parsed slot file of `ref` (checked to hold that slot), or null when the slot is empty. */
  async #entryOf(ref) {
    checkRef(ref);
    await this.#recover();
    const entry = await this.#slots.read(fileNameOf(ref.subject, ref.predicate));
    if (entry) this.#slots.expectRef(entry, ref);
    return entry;
  }

  /** Replays the journals of dead processes once (okf-replay.js); finishes an erasure a killed writer left half-way (one stat when there is none). */
  async #recover() {
    this.#journalRecovered ??= (async () => {
      // Markers and noted log offsets are not fsynced: after a reboot, rebuilt from the markdown.
      // log.md is parsed once per recovery, not once per replayed slot.
      const logged = { keys: null };
      const bundle = { root: this.#root, logFile: this.#logFile, lockOptions: this.#lockOptions, slots: this.#slots };
      if (await this.#journal.recover((name, records) => replaySlot(bundle, name, records, logged))) {
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

  #ensureBundle() {
    this.#ready ??= (async () => {
      await fs.mkdir(this.#root, { recursive: true });
      // A bundle this call creates has no slot to index yet: its index is complete from the start.
      const created = await fs.mkdir(this.#claimsDir).then(() => true, (err) => {
        if (err.code !== 'EEXIST') throw err;
        return false;
      });
      if (created) await this.#index.markComplete();
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
    })().catch((err) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }
}

