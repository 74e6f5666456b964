// OkfStore: a markdown bundle directory (Node only). The files are the source
// of truth; this object only caches what it parsed.
//
//   <dir>/claims/<subject>~<predicate>.md  one file per slot: YAML front matter
//                                          (version, claims, conflicts, writes)
//                                          and a readable body
//   <dir>/entities/*.md                     entities (SPEC §9)
//   <dir>/log.md                            append-only, readable, with the
//                                          structured entries as comments
// With `{ scope }` the bundle is <dir>/scopes/<scope>/.
//
// A commit takes the slot's lock file, re-reads the slot and compares versions
// (a mismatch is `false`: the engine reloads and retries), appends its log
// block to log.md (under log.md's lock, which an erasure takes to rewrite the
// file), then replaces the slot file atomically. A writer killed
// between the two leaves log records of a version the slot never reached, or a
// second block for a version that was later committed again; readLog keeps,
// per version, only the last block and only versions the slot file has. The
// temp files such a writer leaves are swept by the next store's first commit.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CredenceError } from '../errors.js';
import {
  LOG_HEADER, compareKeys, fileNameOf, malformed, parseLogLines, parseSlotFile,
  refOfFileName, renderLogBlock, renderSlotFile, slotKey,
} from './okf-format.js';
import { appendDurably, randomToken, readText, sweepDebris, withLock, writeAtomic } from './okf-fs.js';
import { eraseFiles, erasePending, finishErase, pendingSlot, rewriteLog, sweepEraseTemps } from './okf-erase.js';

const SCOPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

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
export class OkfStore {
  #root;
  #claimsDir;
  #logFile;
  #lockOptions;
  #ready = null;
  /** file name → { text, ref, slot } as last read or written */
  #files = new Map();
  #claims = new Map();
  #conflicts = new Map();
  #log = { ino: null, offset: 0, line: 1, byKey: new Map() };

  constructor(dir, options = {}) {
    if (typeof dir !== 'string' || dir.length === 0) throw invalid('dir', 'must be a non-empty directory path');
    const { scope, lockTimeoutMs = 10000, staleLockMs = 30000 } = options ?? {};
    if (scope !== undefined && (typeof scope !== 'string' || !SCOPE.test(scope))) {
      throw invalid('scope', 'must be 1–128 letters, digits, ".", "_" or "-", starting with a letter or digit');
    }
    this.#root = scope === undefined ? path.resolve(dir) : path.resolve(dir, 'scopes', scope);
    this.#claimsDir = path.join(this.#root, 'claims');
    this.#logFile = path.join(this.#root, 'log.md');
    this.#lockOptions = { timeoutMs: lockTimeoutMs, staleMs: staleLockMs };
  }

  /** The bundle directory. */
  get dir() {
    return this.#root;
  }

  async loadSlot(ref) {
    checkRef(ref);
    await this.#recover();
    const entry = await this.#read(fileNameOf(ref.subject, ref.predicate));
    if (!entry) return null;
    this.#expectRef(entry, ref);
    return structuredClone(entry.slot);
  }

  async commitSlot(commit) {
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
      // log.md's own lock: an erasure rewrites the whole file, and no append may land in between.
      await withLock(`${this.#logFile}.lock`, this.#lockOptions, () =>
        appendDurably(this.#logFile, renderLogBlock(ref, slot.version, randomToken(), commit.log)));
      const text = renderSlotFile(ref.subject, ref.predicate, slot);
      await writeAtomic(file, text);
      this.#remember(name, { text, ref: { ...ref }, slot: structuredClone(slot) });
      return true;
    });
  }

  /**
   * Privacy erasure: the slot file and log.md rewritten without the erased
   * text, both or neither (see okf-erase.js for the crash protocol).
   */
  async eraseSlot(commit, log) {
    const ref = checkRef(commit.ref);
    const { expectedVersion, slot } = commit;
    if (!Array.isArray(log)) throw invalid('log', 'must be an array of log entries');
    await this.#ensureBundle();
    await this.#recover();
    const name = fileNameOf(ref.subject, ref.predicate);
    const file = path.join(this.#claimsDir, name);
    return withLock(`${file}.lock`, this.#lockOptions, async () => {
      const current = await this.#read(name);
      if (current) this.#expectRef(current, ref);
      if ((current ? current.slot.version : 0) !== expectedVersion) return false;
      return withLock(`${this.#logFile}.lock`, this.#lockOptions, async () => {
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
        this.#remember(name, { text, ref: { ...ref }, slot: structuredClone(slot) });
        return true;
      });
    });
  }

  async findClaim(claimId) {
    await this.#recover();
    return this.#find(this.#claims, claimId);
  }

  async findConflict(conflictId) {
    await this.#recover();
    return this.#find(this.#conflicts, conflictId);
  }

  async listSlots(filter = {}) {
    await this.#recover();
    const subject = filter?.subject;
    const refs = [];
    for (const name of await this.#slotFiles()) {
      let ref = refOfFileName(name);
      if (ref.hashed) ref = (await this.#read(name))?.ref;
      if (ref && (subject === undefined || subject === null || ref.subject === subject)) refs.push(ref);
    }
    return refs.sort((a, b) => compareKeys(a.key, b.key));
  }

  async readLog(ref) {
    checkRef(ref);
    await this.#recover();
    const entry = await this.#read(fileNameOf(ref.subject, ref.predicate));
    if (!entry) return [];
    this.#expectRef(entry, ref);
    const version = entry.slot.version;
    await this.#refreshLog();
    const records = (this.#log.byKey.get(ref.key) ?? []).filter((r) => r.v <= version);
    const winner = new Map();
    for (const r of records) winner.set(r.v, r.c);
    return records
      .filter((r) => winner.get(r.v) === r.c && r.e !== null)
      .sort((a, b) => a.v - b.v)
      .map((r) => structuredClone(r.e));
  }

  // ---- internals ------------------------------------------------------------

  /** Finishes an erasure a killed writer left half-way (one stat when there is none). */
  async #recover() {
    if (!(await erasePending(this.#root))) return;
    const slot = await pendingSlot(this.#root);
    const finish = () => withLock(`${this.#logFile}.lock`, this.#lockOptions, () => finishErase(this.#root));
    await (slot ? withLock(`${path.join(this.#root, slot)}.lock`, this.#lockOptions, finish) : finish());
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

  #ensureBundle() {
    this.#ready ??= (async () => {
      await fs.mkdir(this.#claimsDir, { recursive: true });
      await fs.mkdir(path.join(this.#root, 'entities'), { recursive: true });
      await fs.writeFile(this.#logFile, LOG_HEADER, { flag: 'wx' }).catch((err) => {
        if (err.code !== 'EEXIST') throw err;
      });
      // Temp files of writers killed mid-commit: harmless, but never reused.
      await sweepDebris(this.#claimsDir);
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

  /** Reads and parses claims/<name>, reusing the last parse when the text is unchanged. */
  async #read(name) {
    const text = await readText(path.join(this.#claimsDir, name));
    if (text === null) {
      this.#files.delete(name);
      return null;
    }
    const cached = this.#files.get(name);
    if (cached && cached.text === text) return cached;
    const parsed = parseSlotFile(text, this.#relative(path.join('claims', name)));
    if (fileNameOf(parsed.ref.subject, parsed.ref.predicate) !== name) {
      throw malformed(this.#relative(path.join('claims', name)), `front matter names ${JSON.stringify(parsed.ref.subject)} / ${JSON.stringify(parsed.ref.predicate)}, not the slot its file name stands for`);
    }
    const entry = { text, ...parsed };
    this.#remember(name, entry);
    return entry;
  }

  #remember(name, entry) {
    this.#files.set(name, entry);
    for (const claim of entry.slot.claims) this.#claims.set(claim.id, entry.ref);
    for (const conflict of entry.slot.conflicts) this.#conflicts.set(conflict.id, entry.ref);
  }

  /** Claims and conflicts never move between slots, so a known id is final; an unknown one rescans the bundle. */
  async #find(index, id) {
    if (!index.has(id)) {
      let broken = null;
      for (const name of await this.#slotFiles()) {
        try {
          await this.#read(name);
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

  /** Parses what was appended to log.md since the last call. */
  async #refreshLog() {
    const log = this.#log;
    let handle;
    try {
      handle = await fs.open(this.#logFile, 'r');
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
      Object.assign(log, { ino: null, offset: 0, line: 1, byKey: new Map() });
      return;
    }
    try {
      const stat = await handle.stat();
      if (stat.ino !== log.ino || stat.size < log.offset) Object.assign(log, { ino: stat.ino, offset: 0, line: 1, byKey: new Map() });
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
