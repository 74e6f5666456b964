// OkfStore's log.md: appending a commit's block (under log.md's lock, noting
// where it goes in the derived index) and reading a slot's log back.
//
// A read takes the slot's blocks at the offsets its index file notes
// (okf-index.js, index/log/<slot file>) without parsing all of log.md; when
// the offsets are missing or do not cover every version, it parses log.md
// once and then only what was appended since. A writer killed between its
// log append and its slot write leaves blocks of a version the slot never
// reached, or a second block for a version committed again later: a read
// keeps, per version, only the last block and only versions the slot has.
import { promises as fs } from './okf-direct-fs.js';
import { logGeneration, parseLogLines } from './okf-format.js';
import { append, withLock } from './okf-fs.js';

export class BundleLog {
  #file;
  #index;
  #lockOptions;
  /** log.md as parsed so far in this process: records by slot key, up to `offset`. */
  #parsed = { ino: null, generation: '', offset: 0, line: 1, byKey: new Map() };

  /** `file`: log.md's path; `index`: the bundle's OkfIndex (block offsets). */
  constructor(file, index, lockOptions) {
    this.#file = file;
    this.#index = index;
    this.#lockOptions = lockOptions;
  }

  /** Appends a commit's block to log.md and notes where it went. */
  async append(name, block, version, commitId, created) {
    // log.md's own lock: an erasure rewrites the whole file, and no append may land in between
    // (nor between noting where the block goes and appending it).
    await withLock(`${this.#file}.lock`, this.#lockOptions, async () => {
      const logSize = await fs.stat(this.#file).then((st) => st.size, () => 0);
      await this.#index.noteLogBlock(name, logSize, version, commitId, created);
      await append(this.#file, block);
    });
  }

  /** The log entries of slot `key` (file `slotFile`) up to `version`, oldest first: one block per version, the last written. */
  async entries(slotFile, key, version) {
    let records = await this.#slotRecords(slotFile, key, version);
    if (!records) {
      await this.#refresh();
      records = (this.#parsed.byKey.get(key) ?? []).filter((r) => r.v <= version);
    }
    const winner = new Map();
    for (const r of records) winner.set(r.v, r.c);
    return records
      .filter((r) => winner.get(r.v) === r.c && r.e !== null)
      .sort((a, b) => a.v - b.v)
      .map((r) => structuredClone(r.e));
  }

  /**
   * A slot's log records read at the offsets its index file notes, without
   * parsing all of log.md; null (read everything) when there is no offsets
   * file or it does not account for every version up to `version`.
   */
  async #slotRecords(slotFile, key, version) {
    if (this.#parsed.offset > 0) return null; // log.md already parsed in this process: use it
    const blocks = await this.#index.logBlocks(slotFile);
    if (!blocks) return null;
    const records = [];
    const handle = await fs.open(this.#file, 'r').catch(() => null);
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
          parseLogLines(end < 0 ? '' : text.slice(0, end), 1, this.#file, (r) => {
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
  async #refresh() {
    const log = this.#parsed;
    let handle;
    try {
      handle = await fs.open(this.#file, 'r');
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
      parseLogLines(text, log.line, this.#file, (record) => records.push(record));
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
