// OkfStore's derived index (store interface v2): marker files under
// <bundle>/index/ that answer "conflicts with this status" and "slots the
// review pass has not seen" without parsing every slot file.
//
//   index/READY                              written after a full rebuild
//   index/conflicts/<status>/<openedAt>~<id> one per conflict; content: slot file name, id
//   index/dirty/<slot file name>             one per slot with unreviewed entries
//   index/subjects/<subject>/<slot file>    one per slot of the subject
//   index/log/<slot file>                    one line per commit: a lower bound of
//                                            its block's offset in log.md, version,
//                                            commit id (written before the block)
//   index/by-id/{claims,conflicts,writes,keys}/<hh>.ids  one line per id (claim, conflict,
//                                            candidate id, entity key: keyId) whose sha-256 starts
//                                            with hh (256 files): "<id, URI-encoded>\t<slot file>"
//                                            (claim and conflict ids never move between slots;
//                                            a candidate id or a key may, so readers check every line). Appended,
//                                            one short write per commit and bucket:
//                                            a marker file per id took a 4 KB block
//                                            of disk for every claim.
// An id too long for a file name (conflict markers, subjects) is stored as a
// prefix and its hash; the full id is in the content.
//
// The markdown stays the source of truth. Markers are kept a SUPERSET of the
// truth across crashes: a commit creates the markers its new slot needs before
// it replaces the slot file, and removes the ones it no longer needs after.
// Readers check every marker against its slot and skip the stale ones, so a
// writer killed between the steps leaves at worst an extra marker. No READY
// (the index folder deleted or never built) → the next listing rebuilds the
// index from the markdown. Markers are written atomically but not fsynced:
// they are derived, and a process crash (kill -9) cannot lose them; after a
// power loss, delete index/ to rebuild it.
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { randomToken } from './okf-fs.js';
import { refOfFileName } from './okf-format.js';
import { changedConflictRows } from './slot-index.js';

export const STATUSES = ['open', 'settled', 'resolved_by_evidence', 'moot'];
const READY = 'credence-okf-index/5\n'; // bumped whenever a marker kind changes: older indexes rebuild

// File names cannot hold ":"; "-" keeps fixed-width ISO times in order.
const timePart = (iso) => iso.replaceAll(':', '-');
function idPart(id) {
  const encoded = encodeURIComponent(id);
  if (encoded.length <= 120) return encoded;
  return `${encoded.slice(0, 80).replace(/%[0-9A-F]?$/, '')}~~${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}
/** An id's bucket (256, by hash): its by-id file, and OkfStore's lock for a candidate id. */
export const idBucket = (id) => createHash('sha256').update(id).digest('hex').slice(0, 2);

/** The claim and conflict ids and candidate ids (`writes`) `next` adds to the slot (`before` is its previous state): the by-id lines a commit writes. */
export function freshIds(before, next) {
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

/**
 * An entity key's id in index/by-id/keys (findEntities): a hash of its type
 * and key, so the index holds no name text (an erasure has nothing to scrub
 * there) and a line is short whatever the key; the slot file checks it.
 */
export const keyId = (type, key) => createHash('sha256').update(`${type}\u001f${key}`).digest('hex').slice(0, 32);

/** The key ids of an entity slot's key rows (`{ type, keys }`, or null) that `before`'s did not have. */
export function freshKeys(before, next) {
  const had = new Set((before?.keys ?? []).map((k) => keyId(before.type, k.key)));
  return [...new Set((next?.keys ?? []).map((k) => keyId(next.type, k.key)))].filter((id) => !had.has(id));
}

const markerName = (c) => `${timePart(c.openedAt)}~${idPart(c.id)}`;

/** openedAt from a conflict marker's name, or null for a name this index did not write. */
function openedAtOf(name) {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2}\.\d{3}Z)~/.exec(name);
  return m ? `${m[1]}:${m[2]}:${m[3]}` : null;
}

/** A marker's content: the slot file holding the id, then the id. */
const content = (slotFile, id) => `${slotFile}\n${id}`;
function parseContent(text) {
  if (text === null) return null;
  const cut = text.indexOf('\n');
  if (cut < 0) return null;
  const slotFile = text.slice(0, cut);
  return refOfFileName(slotFile) ? { slotFile, id: text.slice(cut + 1) } : null;
}
const readMarker = (file) => fs.readFile(file, 'utf8').then(parseContent, () => null);

async function names(dir) {
  try {
    return await fs.readdir(dir);
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

/** Runs `write`, creating the marker's folder when it is missing (index/ may have been deleted). */
async function inFolder(file, write) {
  try {
    return await write();
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    await fs.mkdir(path.dirname(file), { recursive: true });
    return write();
  }
}

/** Writes a marker whole (temp file, rename): a reader never sees half of its content. */
async function put(file, text) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomToken()}.tmp`);
  await inFolder(file, () => fs.writeFile(tmp, text));
  await fs.rename(tmp, file);
}

/** `put`, unless the marker is there already (markers are only ever written whole, with the same content). */
async function ensure(file, text) {
  if (await fs.access(file).then(() => true, () => false)) return;
  await put(file, text);
}

/** An empty marker (nothing to tear): one exclusive create, EEXIST meaning it is there. */
async function touch(file) {
  await inFolder(file, () => fs.writeFile(file, '', { flag: 'wx' })).catch((err) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

const remove = (file) => fs.unlink(file).catch((err) => {
  if (err.code !== 'ENOENT') throw err;
});

export class OkfIndex {
  #dir;

  constructor(root) {
    this.#dir = path.join(root, 'index');
  }

  #conflictFile(status, c) {
    return path.join(this.#dir, 'conflicts', status, markerName(c));
  }

  #dirtyFile(slotFile) {
    return path.join(this.#dir, 'dirty', slotFile);
  }

  #subjectDir(subject) {
    return path.join(this.#dir, 'subjects', idPart(subject));
  }

  /** The slot files of a subject (checked by the caller against each file's own subject). */
  async slotFilesOf(subject) {
    return (await names(this.#subjectDir(subject))).filter((name) => refOfFileName(name) !== null);
  }

  #idBucket(kind, id) {
    // Entity keys by 4,096 buckets, not 256: a name's look-up reads a bucket
    // per key (60 or so for a new name), and every entity files 40 or so keys.
    const bucket = kind === 'keys' ? id.slice(0, 3) : idBucket(id);
    return path.join(this.#dir, 'by-id', kind, `${bucket}.ids`);
  }

  /**
   * Appends "id → slot file" lines, one write per bucket. Each line starts
   * with a newline, so a write torn by a crash (it happens before the slot
   * file is replaced: that id does not exist yet) never joins the next line.
   */
  async #noteIds(kind, slotFile, ids) {
    const byBucket = new Map();
    for (const id of ids) {
      const file = this.#idBucket(kind, id);
      byBucket.set(file, `${byBucket.get(file) ?? ''}\n${encodeURIComponent(id)}\t${slotFile}`);
    }
    for (const [file, lines] of byBucket) await inFolder(file, () => fs.appendFile(file, lines));
  }

  /**
   * Before the slot file is replaced: every marker the new state needs that
   * `before` (the index of the slot file it replaces, whose markers its own
   * commit or a rebuild made) does not already have; `fresh` names the
   * claim and conflict ids this commit adds to the slot.
   */
  async addMarkers(slotFile, index, before = null, fresh = { claims: [], conflicts: [] }, newSubject = null) {
    if (newSubject !== null) await touch(path.join(this.#subjectDir(newSubject), slotFile));
    await this.#noteIds('claims', slotFile, fresh.claims);
    await this.#noteIds('conflicts', slotFile, fresh.conflicts);
    await this.#noteIds('writes', slotFile, fresh.writes ?? []);
    await this.#noteIds('keys', slotFile, fresh.keys ?? []);
    for (const c of changedConflictRows(before, index)) await ensure(this.#conflictFile(c.status, c), content(slotFile, c.id));
    if (index.unreviewed) await touch(this.#dirtyFile(slotFile));
  }

  /** After the slot file is replaced: the markers only the old state needed. */
  async dropMarkers(slotFile, before, index) {
    const now = new Map(index.conflicts.map((c) => [c.id, c.status]));
    for (const c of before?.conflicts ?? []) {
      if (now.get(c.id) !== c.status) await remove(this.#conflictFile(c.status, c));
    }
    if (!index.unreviewed) await remove(this.#dirtyFile(slotFile));
  }

  /** READY without a rebuild: for a bundle with no slot file yet. */
  async markComplete() {
    await put(path.join(this.#dir, 'READY'), READY);
  }

  async isReady() {
    return (await fs.readFile(path.join(this.#dir, 'READY'), 'utf8').catch(() => '')) === READY;
  }

  /**
   * Adds the markers of every slot (`each(visit)` calls visit(slotFile,
   * index, ids, subject) per slot file and returns false if some file could not be
   * read), then READY when every file was. Nothing is removed first: a writer
   * in another process may be between its markers and its slot write.
   */
  async rebuild(each) {
    const complete = await each((slotFile, index, ids, subject) => this.addMarkers(slotFile, index, null, ids, subject));
    if (complete) await put(path.join(this.#dir, 'READY'), READY);
  }

  /** Candidate conflicts with `status`, ordered by (openedAt, id): { openedAt, id, slotFile }. */
  async conflicts(status) {
    if (!STATUSES.includes(status)) return [];
    const dir = path.join(this.#dir, 'conflicts', status);
    const out = [];
    for (const name of await names(dir)) {
      const openedAt = openedAtOf(name);
      // A damaged marker names no slot file of this bundle: skip it.
      const marker = openedAt && (await readMarker(path.join(dir, name)));
      if (marker) out.push({ openedAt, ...marker });
    }
    return out;
  }

  /** Every slot file a line names for an id, newest line first, each once (hints: check them). */
  async slotFilesWith(kind, id) {
    return (await this.slotFilesWithEach(kind, [id])).get(id);
  }

  /** `slotFilesWith` for many ids, each bucket file read once: id → slot files. */
  async slotFilesWithEach(kind, ids) {
    const out = new Map(ids.map((id) => [id, []]));
    const byBucket = new Map();
    for (const id of out.keys()) {
      const file = this.#idBucket(kind, id);
      byBucket.set(file, [...(byBucket.get(file) ?? []), id]);
    }
    for (const [file, wanted] of byBucket) {
      const text = await fs.readFile(file, 'utf8').catch(() => null);
      if (text === null) continue;
      const of = new Map(wanted.map((id) => [encodeURIComponent(id), out.get(id)]));
      const lines = text.split('\n');
      for (let i = lines.length - 1; i >= 0; i--) {
        const tab = lines[i].indexOf('\t');
        const list = tab > 0 && of.get(lines[i].slice(0, tab));
        const slotFile = list && lines[i].slice(tab + 1);
        if (slotFile && refOfFileName(slotFile) && !list.includes(slotFile)) list.push(slotFile);
      }
    }
    return out;
  }

  /** The slot file that holds a claim or conflict id, per its newest line (a hint: check it). */
  async slotFileOf(kind, id) {
    return (await this.slotFilesWith(kind, id))[0] ?? null;
  }

  #logOffsets(slotFile) {
    return path.join(this.#dir, 'log', slotFile);
  }

  /**
   * Notes, before the block is appended, where a commit's log block will be
   * found: at or after `at`. Only a slot's first commit creates the file, so a
   * file holds every commit since the slot began (readers still check that
   * every version is there, and read all of log.md otherwise).
   */
  async noteLogBlock(slotFile, at, version, commitId, first) {
    const file = this.#logOffsets(slotFile);
    if (first) await fs.mkdir(path.dirname(file), { recursive: true });
    else if (!(await fs.stat(file).then(() => true, () => false))) return;
    await fs.appendFile(file, `${at} ${version} ${commitId}\n`);
  }

  /** Forgets every noted log offset (log.md was rewritten); readers then parse log.md. */
  async dropLogOffsets() {
    await fs.rm(path.join(this.#dir, 'log'), { recursive: true, force: true });
  }

  /** The noted blocks of a slot as { at, v, c }, or null when it has no offsets file. */
  async logBlocks(slotFile) {
    const text = await fs.readFile(this.#logOffsets(slotFile), 'utf8').catch(() => null);
    if (text === null) return null;
    const out = [];
    for (const line of text.split('\n')) {
      const [at, v, c] = line.split(' ');
      if (c && /^\d+$/.test(at) && /^\d+$/.test(v)) out.push({ at: Number(at), v: Number(v), c });
    }
    return out;
  }

  /** Candidate slot files with unreviewed entries. */
  async dirty() {
    return (await names(path.join(this.#dir, 'dirty'))).filter((name) => refOfFileName(name) !== null);
  }
}
