// OkfStore's derived index (store interface v2): marker files under
// <bundle>/index/ that answer "conflicts with this status" and "slots the
// review pass has not seen" without parsing every slot file.
//
//   index/READY                              written after a full rebuild
//   index/conflicts/<status>/<openedAt>~<id> one per conflict; content: slot file name
//   index/dirty/<slot file name>             one per slot with unreviewed entries
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
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomToken } from './okf-fs.js';
import { refOfFileName } from './okf-format.js';

const STATUSES = ['open', 'settled', 'resolved_by_evidence', 'moot'];
const READY = 'credence-okf-index/1\n';

// File names cannot hold ":"; "-" keeps fixed-width ISO times in order.
const timePart = (iso) => iso.replaceAll(':', '-');
const markerName = (c) => `${timePart(c.openedAt)}~${encodeURIComponent(c.id)}`;

function parseMarker(name) {
  const cut = name.indexOf('~');
  if (cut < 0 || name.startsWith('.')) return null;
  const stamp = name.slice(0, cut);
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2}\.\d{3}Z)$/.exec(stamp);
  if (!m) return null;
  try {
    return { openedAt: `${m[1]}:${m[2]}:${m[3]}`, id: decodeURIComponent(name.slice(cut + 1)) };
  } catch {
    return null;
  }
}

async function names(dir) {
  try {
    return await fs.readdir(dir);
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

async function put(file, text) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomToken()}.tmp`);
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, file);
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

  /** Before the slot file is replaced: every marker the new state needs. */
  async addMarkers(slotFile, index) {
    for (const c of index.conflicts) await put(this.#conflictFile(c.status, c), slotFile);
    if (index.unreviewed) await put(this.#dirtyFile(slotFile), '');
  }

  /** After the slot file is replaced: the markers only the old state needed. */
  async dropMarkers(slotFile, before, index) {
    const now = new Map(index.conflicts.map((c) => [c.id, c.status]));
    for (const c of before?.conflicts ?? []) {
      if (now.get(c.id) !== c.status) await remove(this.#conflictFile(c.status, c));
    }
    if (!index.unreviewed) await remove(this.#dirtyFile(slotFile));
  }

  async isReady() {
    return (await fs.readFile(path.join(this.#dir, 'READY'), 'utf8').catch(() => '')) === READY;
  }

  /**
   * Adds the markers of every slot (`each(visit)` calls visit(slotFile, index)
   * per slot file), then READY. Nothing is removed first: a writer in another
   * process may be between its markers and its slot write.
   */
  async rebuild(each) {
    await each((slotFile, index) => this.addMarkers(slotFile, index));
    await put(path.join(this.#dir, 'READY'), READY);
  }

  /** Candidate conflicts with `status`, ordered by (openedAt, id): { openedAt, id, slotFile }. */
  async conflicts(status) {
    if (!STATUSES.includes(status)) return [];
    const dir = path.join(this.#dir, 'conflicts', status);
    const out = [];
    for (const name of await names(dir)) {
      const marker = parseMarker(name);
      if (!marker) continue;
      const slotFile = await fs.readFile(path.join(dir, name), 'utf8').catch(() => null);
      // A damaged marker names no slot file of this bundle: skip it.
      if (slotFile && refOfFileName(slotFile)) out.push({ ...marker, slotFile });
    }
    return out;
  }

  /** Candidate slot files with unreviewed entries. */
  async dirty() {
    return (await names(path.join(this.#dir, 'dirty'))).filter((name) => refOfFileName(name) !== null);
  }
}
