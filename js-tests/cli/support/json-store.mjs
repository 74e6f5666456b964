// A ClaimStore in one JSON file, for tests only (loaded by the CLI through
// CREDENCE_STORE_MODULE, path in CREDENCE_JSON_STORE). It is honest about the
// contract several processes rely on: `commitSlot` takes a lock (an exclusive
// lock directory next to the file), re-reads the file, compares the slot
// version and writes the whole state by rename, so a commit is atomic and a
// stale one changes nothing. Reads see the last renamed file.
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const EMPTY = () => ({ slots: {}, logs: {}, claims: {}, conflicts: {} });
const STALE_LOCK_MS = 10_000;

export class JsonFileStore {
  constructor(path) {
    this.path = path;
    this.lock = `${path}.lock`;
  }

  async read() {
    try {
      return JSON.parse(await readFile(this.path, 'utf8'));
    } catch (err) {
      if (err.code === 'ENOENT') return EMPTY();
      throw err;
    }
  }

  async withLock(fn) {
    await mkdir(dirname(this.path), { recursive: true });
    for (let attempt = 0; ; attempt++) {
      try {
        await mkdir(this.lock);
        break;
      } catch (err) {
        if (err.code !== 'EEXIST') throw err;
        const held = await stat(this.lock).catch(() => null);
        if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) await rm(this.lock, { recursive: true, force: true });
        if (attempt > 2000) throw new Error(`json store: lock ${this.lock} held too long`);
        await sleep(2 + Math.random() * 8);
      }
    }
    try {
      return await fn();
    } finally {
      await rm(this.lock, { recursive: true, force: true });
    }
  }

  async loadSlot(ref) {
    return (await this.read()).slots[ref.key]?.slot ?? null;
  }

  async commitSlot(commit) {
    return this.withLock(async () => {
      const state = await this.read();
      const key = commit.ref.key;
      const current = state.slots[key]?.slot.version ?? 0;
      if (current !== commit.expectedVersion) return false;
      state.slots[key] = { ref: commit.ref, slot: commit.slot };
      (state.logs[key] ??= []).push(...commit.log);
      for (const id of commit.changedClaims) state.claims[id] = commit.ref;
      for (const id of commit.changedConflicts) state.conflicts[id] = commit.ref;
      const tmp = `${this.path}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(state));
      await rename(tmp, this.path);
      return true;
    });
  }

  async findClaim(id) {
    return (await this.read()).claims[id] ?? null;
  }

  async findConflict(id) {
    return (await this.read()).conflicts[id] ?? null;
  }

  async listSlots(filter = {}) {
    const { slots } = await this.read();
    return Object.keys(slots)
      .sort()
      .map((k) => slots[k].ref)
      .filter((r) => filter.subject === undefined || r.subject === filter.subject);
  }

  async readLog(ref) {
    return (await this.read()).logs[ref.key] ?? [];
  }

  // Store interface v2. The whole state is one file, read whole anyway: a scan is this store's index.
  async listConflicts({ status, after, limit }) {
    const rows = Object.values((await this.read()).slots).flatMap(({ ref, slot }) =>
      slot.conflicts.filter((c) => c.status === status).map((c) => ({ id: c.id, status, openedAt: c.openedAt, ref })));
    const key = (r) => `${r.openedAt}\u0000${r.id}`;
    return rows
      .filter((r) => !after || key(r) > key(after))
      .sort((a, b) => (key(a) < key(b) ? -1 : 1))
      .slice(0, limit);
  }

  async dirtySlots({ after, limit }) {
    const { slots } = await this.read();
    return Object.keys(slots)
      .sort()
      .filter((k) => (after === undefined || after === null || k > after) && slots[k].slot.claims.length > slots[k].slot.reviewed)
      .slice(0, limit)
      .map((k) => slots[k].ref);
  }
}

export default function createStore(env) {
  if (!env.CREDENCE_JSON_STORE) throw new Error('CREDENCE_JSON_STORE (the JSON file) is not set');
  return new JsonFileStore(env.CREDENCE_JSON_STORE);
}
