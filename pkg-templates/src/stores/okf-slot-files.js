// OkfStore's reads of claims/: each slot file parsed once per content (a
// stat decides whether the last parse still holds), and the claim and
// conflict ids each parse names, by slot (findClaim, findConflict: ids never
// move between slots, so a known one is final). An entity registry's slot
// file can be megabytes, and most commits re-read the slot they write.
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { fileNameOf, malformed, parseSlotFile, refOfFileName } from './okf-format.js';
import { readText } from './okf-fs.js';

/** A file's identity and content version (a bigint stat): a commit renames a new file in, so every commit's file has its own. */
export const stampOf = (stat) => `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;

export class SlotFiles {
  #dir;
  #root;
  /** file name → { text, stamp, ref, slot } as last read or written */
  #files = new Map();
  /** claim id → the ref of the slot holding it */
  claims = new Map();
  /** conflict id → the ref of the slot holding it */
  conflicts = new Map();

  /** `root`: the bundle directory (error messages name files from it); the slot files are in root/claims. */
  constructor(root) {
    this.#root = root;
    this.#dir = path.join(root, 'claims');
  }

  /** Every slot file name in claims/ (none when the folder is missing). */
  async names() {
    try {
      return (await fs.readdir(this.#dir)).filter((name) => refOfFileName(name) !== null);
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
  async read(name) {
    const file = path.join(this.#dir, name);
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
    const parsed = parseSlotFile(text, this.#pathOf(name));
    if (fileNameOf(parsed.ref.subject, parsed.ref.predicate) !== name) {
      throw malformed(this.#pathOf(name), `front matter names ${JSON.stringify(parsed.ref.subject)} / ${JSON.stringify(parsed.ref.predicate)}, not the slot its file name stands for`);
    }
    const entry = { text, stamp: keep, ...parsed };
    this.remember(name, entry);
    return entry;
  }

  /** Keeps `entry` as claims/<name>'s last parse (a commit's own write: the next read skips it) and its ids. */
  remember(name, entry) {
    this.#files.set(name, entry);
    for (const claim of entry.slot.claims) this.claims.set(claim.id, entry.ref);
    for (const conflict of entry.slot.conflicts) this.conflicts.set(conflict.id, entry.ref);
  }

  /** Registers the ids of a registry's claims and conflicts (kept in chunk files) as its. */
  rememberItems(ref, items) {
    for (const c of items.claims ?? []) this.claims.set(c.id, { ...ref });
    for (const c of items.conflicts ?? []) this.conflicts.set(c.id, { ...ref });
  }

  /** Drops claims/<name>'s last parse (the file was replaced behind the cache's back). */
  forget(name) {
    this.#files.delete(name);
  }

  /** Fails unless `entry` (a parsed slot file) holds the slot `ref`. */
  expectRef(entry, ref) {
    if (entry.ref.subject !== ref.subject || entry.ref.predicate !== ref.predicate) {
      const file = this.#pathOf(fileNameOf(ref.subject, ref.predicate));
      throw malformed(file, `holds ${JSON.stringify(entry.ref.subject)} / ${JSON.stringify(entry.ref.predicate)}, not the slot its name stands for`);
    }
  }

  #pathOf(name) {
    return path.join(this.#root, path.join('claims', name));
  }
}
