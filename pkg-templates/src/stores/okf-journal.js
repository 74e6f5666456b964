// OkfStore's redo journal: one fsync per acknowledged write (group commit).
//
// A commit writes log.md and the slot file without fsync (a killed process
// cannot lose what reached the page cache), then appends one record — the
// slot file's new text and the log block — to its process's journal,
// `<bundle>/journal/<host>-<pid>-<token>.jsonl`. Records queued while an
// fsync is under way go out together in the next write and fsync, so
// concurrent writers in one process share it. The write is acknowledged once
// its record is durable.
//
// A checkpoint fsyncs the slot files a journal names, claims/ and log.md, then
// empties or removes the journal (under the journal's lock, which its owner
// holds while appending). A journal past CHECKPOINT_BYTES is retired in the
// background and its owner starts a new one; an erasure empties every journal
// of the bundle first, so no text outlives it there; the journals of dead
// processes are retired by the next process that writes. After a reboot
// (another boot id, or no way to tell) a dead process's records are replayed
// first: a slot file older than its last record is rewritten and missing log
// blocks are appended (`replay`).
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { HOST_TAG, alive, randomToken, syncDir, withLock, writeSynced } from './okf-fs.js';

const CHECKPOINT_BYTES = 4 * 1024 * 1024;
const NAME = /^([0-9a-f]{8})-(\d+)-[0-9a-f]{16}\.jsonl$/;

let bootId;
/** This boot of the machine (Linux), or null when it cannot be told. */
function currentBoot() {
  bootId ??= fs.readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((t) => t.trim() || null, () => null);
  return bootId;
}

async function fsyncFile(file) {
  let handle;
  try {
    handle = await fs.open(file, 'r');
    await handle.sync();
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  } finally {
    await handle?.close();
  }
}

/** A journal's header and records; a torn last line (its write never acknowledged) is dropped. */
function parseJournal(text) {
  const lines = text.split('\n').filter(Boolean);
  const parsed = [];
  for (const line of lines) {
    try {
      parsed.push(JSON.parse(line));
    } catch {
      break;
    }
  }
  const [header, ...records] = parsed;
  return { header: header ?? {}, records: records.filter((r) => typeof r?.f === 'string' && Number.isInteger(r.v)) };
}

/** Makes every record of `file` redundant (its slot files, claims/ and log.md fsynced), then empties it. */
async function checkpointFile(root, file, headerText) {
  const text = await fs.readFile(file, 'utf8').catch(() => null);
  if (text === null) return;
  const { records } = parseJournal(text);
  if (records.length === 0 && headerText !== undefined) return;
  for (const name of new Set(records.map((r) => r.f))) await fsyncFile(path.join(root, 'claims', name));
  await syncDir(path.join(root, 'claims'));
  // A registry commit of a version before issue #44 (a dead process's journal) also wrote entity files.
  const entityFiles = new Set(records.flatMap((r) => (Array.isArray(r.ents) ? r.ents.map((e) => e.f) : [])));
  for (const name of entityFiles) await fsyncFile(path.join(root, 'entities', name));
  if (entityFiles.size > 0) await syncDir(path.join(root, 'entities'));
  await fsyncFile(path.join(root, 'log.md'));
  if (headerText === undefined) {
    await fs.unlink(file).catch(() => {});
    return;
  }
  const handle = await fs.open(file, 'r+');
  try {
    await handle.truncate(0);
    await handle.write(headerText, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const lockOf = (file) => `${file}.lock`;

async function journalFiles(dir) {
  try {
    return (await fs.readdir(dir)).filter((name) => NAME.test(name));
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

export class Journal {
  #root;
  #dir;
  #lockOptions;
  #file = null;
  #header = null;
  #bytes = 0;
  #queue = [];
  /** Same-boot journals of dead processes, retired after this store's first durable write. */
  #dead = [];
  #chain = Promise.resolve();
  #scheduled = false;

  constructor(root, lockOptions) {
    this.#root = root;
    this.#dir = path.join(root, 'journal');
    this.#lockOptions = lockOptions;
  }

  /**
   * Appends `record` ({ f: slot file, k: key, v: version, c: commit id,
   * slot: file text, log: log block, ents?: [{ f: entity file, text }] });
   * resolves once it is durable.
   */
  append(record) {
    return new Promise((resolve, reject) => {
      this.#queue.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        this.#chain = this.#chain.then(() => this.#flush());
      }
    });
  }

  /** Empties every journal of the bundle, this process's and others' (an erasure leaves no text behind). */
  checkpointAll() {
    const run = async () => {
      for (const name of await journalFiles(this.#dir)) {
        const file = path.join(this.#dir, name);
        const header = file === this.#file ? this.#header : await headerOf(file);
        await withLock(lockOf(file), this.#lockOptions, () => checkpointFile(this.#root, file, header ?? undefined));
        if (file === this.#file) this.#bytes = Buffer.byteLength(this.#header);
      }
    };
    const done = this.#chain.then(run);
    this.#chain = done.catch(() => {});
    return done;
  }

  /**
   * The journals of dead processes on this host. After a reboot, each is
   * handed to `replay(slotFile, records)` (records of one slot, by version)
   * and removed. In the same boot nothing they name can be lost (the page
   * cache outlives a process), so they are only retired — checkpointed and
   * removed in the background — once this store writes: readers never pay.
   * Resolves true when some journal was left by an earlier boot (what was not
   * fsynced, such as index markers, may be gone).
   */
  async recover(replay) {
    const boot = await currentBoot();
    let rebooted = false;
    for (const name of await journalFiles(this.#dir)) {
      const [, host, pid] = NAME.exec(name);
      if (host !== HOST_TAG || alive(Number(pid))) continue;
      const file = path.join(this.#dir, name);
      const header = await headerOf(file);
      // No header: the writer died before its first record, so there is nothing to replay.
      if (header === undefined || (boot !== null && bootOf(header) === boot)) {
        this.#dead.push(file);
        continue;
      }
      rebooted = true;
      await withLock(lockOf(file), this.#lockOptions, async () => {
        const text = await fs.readFile(file, 'utf8').catch(() => null);
        if (text === null) return;
        const bySlot = new Map();
        for (const r of parseJournal(text).records) {
          if (!bySlot.has(r.f)) bySlot.set(r.f, []);
          bySlot.get(r.f).push(r);
        }
        for (const [slotFile, list] of bySlot) await replay(slotFile, list.sort((a, b) => a.v - b.v));
        await checkpointFile(this.#root, file, undefined);
      });
    }
    return rebooted;
  }

  /** Checkpoints and removes journals nobody appends to any more, in the background (a failure leaves them for later). */
  #retire(files) {
    for (const file of files) {
      withLock(lockOf(file), this.#lockOptions, () => checkpointFile(this.#root, file, undefined)).catch(() => {});
    }
  }

  async #open() {
    await fs.mkdir(this.#dir, { recursive: true });
    const boot = await currentBoot();
    const file = path.join(this.#dir, `${HOST_TAG}-${process.pid}-${randomToken()}.jsonl`);
    const header = `${JSON.stringify({ journal: 'credence-okf-journal/1', boot, pid: process.pid })}\n`;
    await writeSynced(file, header, 'wx');
    // The journal itself must survive a power loss before it acknowledges anything.
    await syncDir(this.#dir);
    await syncDir(this.#root);
    [this.#file, this.#header, this.#bytes] = [file, header, Buffer.byteLength(header)];
  }

  async #flush() {
    this.#scheduled = false;
    const batch = this.#queue.splice(0);
    try {
      if (!this.#file) await this.#open();
      const text = batch.map((b) => b.line).join('');
      // Opened per batch: a store has no close(), and a handle kept open would leak with it.
      await withLock(lockOf(this.#file), this.#lockOptions, async () => {
        const handle = await fs.open(this.#file, 'a');
        try {
          await handle.write(text);
          // fdatasync: the appended bytes and the new size, without the timestamps (measured 2–3× cheaper).
          await handle.datasync();
        } finally {
          await handle.close();
        }
      });
      this.#bytes += Buffer.byteLength(text);
      for (const b of batch) b.resolve();
    } catch (err) {
      for (const b of batch) b.reject(err);
      return;
    }
    // A full journal is not emptied in place (writers would wait for its fsyncs): the next
    // batch starts a new one and the full one is retired in the background.
    const full = this.#bytes > CHECKPOINT_BYTES ? [this.#file] : [];
    if (full.length > 0) this.#file = null;
    this.#retire([...this.#dead.splice(0), ...full]);
  }
}

function bootOf(header) {
  try {
    return JSON.parse(header).boot ?? null;
  } catch {
    return null;
  }
}

/** A journal's first line (its header), or undefined. */
async function headerOf(file) {
  let handle;
  try {
    handle = await fs.open(file, 'r');
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    return end < 0 ? undefined : text.slice(0, end + 1);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
