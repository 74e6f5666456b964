// File-system primitives for OkfStore: atomic replace, durable append, and a
// per-slot lock that works across processes.
//
// The lock is a file `<slot>.md.lock`: a hard link to this process's owner
// file (`<ownerDir>/.lock-owner.<host tag>-<pid>.<token>.tmp`, written once,
// naming pid, host and a token), made with link(), which fails while the lock
// exists. A link allocates no inode: creating a file took ~400 µs here against
// ~10 µs for link + unlink, and a commit takes three locks. Where hard links
// are not supported (some network or FAT file systems) the lock is created
// exclusively ('wx') instead; a lock read before its creator wrote it looks
// unparseable and is judged stale only after 2 s. A lock whose holder is a
// dead process on this host — or, failing that, whose inode changed longer
// than `staleMs` ago (ctime: set by the link) — is broken; breakers serialize
// on `<lock>.break` and remove the lock only if it still carries what they
// judged stale. Within one process a promise chain per lock path orders
// waiters, so a process never polls against itself. Temp files (and owner
// files) carry host and pid, so those of a dead process can be swept
// (sweepDebris).
import { promises as fs } from './okf-direct-fs.js';
import { hostname } from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { CredenceError } from '../errors.js';

export const randomToken = () => randomBytes(8).toString('hex');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const HOST = hostname();
export const HOST_TAG = createHash('sha1').update(HOST).digest('hex').slice(0, 8);

// `.<name>.<host tag>-<pid>.<token>.tmp`: whoever finds one whose writer is a
// dead process on this host may delete it (sweepDebris).
const tempName = (file) => path.join(path.dirname(file), `.${path.basename(file)}.${HOST_TAG}-${process.pid}.${randomToken()}.tmp`);
const TEMP = /^\..+\.([0-9a-f]{8})-(\d+)\.[0-9a-f]{16}\.tmp$/;

export async function syncDir(dir) {
  let handle;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    await handle?.close();
  }
}

/**
 * Deletes the temp files in `dir` left by writers that died (killed between
 * creating a temp file and renaming or removing it): only files whose writer
 * is a process on this host that no longer exists. Returns how many it removed.
 */
export async function sweepDebris(dir) {
  let names;
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m || m[1] !== HOST_TAG || alive(Number(m[2]))) continue;
    await fs.unlink(path.join(dir, name)).then(() => removed++, () => {});
  }
  return removed;
}

/** Writes `text` to `file` (open flags `flags`) and fsyncs it before resolving. */
export async function writeSynced(file, text, flags = 'w') {
  const handle = await fs.open(file, flags);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces `file` with `text`: temp file, fsync, rename, fsync the directory. */
export async function writeAtomic(file, text) {
  const tmp = tempName(file);
  await writeSynced(tmp, text, 'wx');
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.unlink(tmp).catch(() => {});
    throw err;
  }
  await syncDir(path.dirname(file));
}

/**
 * Replaces `file` with `text` (temp file, rename) without fsync: atomic for
 * readers and safe from a killed process; OkfStore's journal makes it durable.
 */
export async function replaceFile(file, text) {
  const tmp = tempName(file);
  await fs.writeFile(tmp, text, { flag: 'wx' });
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.unlink(tmp).catch(() => {});
    throw err;
  }
}

/** Appends `text` in one write (no fsync: see replaceFile). */
export async function append(file, text) {
  const handle = await fs.open(file, 'a');
  try {
    await handle.write(text);
  } finally {
    await handle.close();
  }
}

/** Appends `text` in one write and fsyncs it. */
export async function appendDurably(file, text) {
  const handle = await fs.open(file, 'a');
  try {
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The file's text, or null when it does not exist. */
export async function readText(file) {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function readLock(file) {
  let text;
  let stat;
  try {
    [text, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
  let info = {};
  try {
    info = JSON.parse(text);
  } catch {
    // A lock written by the open('wx') fallback may be caught half-written.
  }
  return { ...info, raw: text, changed: stat.ctimeMs, age: Date.now() - stat.ctimeMs };
}

function isStale(info, staleMs) {
  if (typeof info.pid === 'number' && info.host === HOST && !alive(info.pid)) return true;
  return info.age > (typeof info.pid === 'number' ? staleMs : Math.min(staleMs, 2000));
}

/** Removes `lock` if it is stale; true when the caller should try again at once. */
async function breakIfStale(lock, staleMs) {
  const info = await readLock(lock);
  if (!info) return true;
  if (!isStale(info, staleMs)) return false;
  const breaker = `${lock}.break`;
  try {
    await fs.writeFile(breaker, JSON.stringify({ pid: process.pid, host: HOST }), { flag: 'wx' });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    const other = await readLock(breaker);
    if (other && isStale(other, 5000)) await fs.unlink(breaker).catch(() => {});
    return false;
  }
  try {
    const again = await readLock(lock);
    if (again && again.raw === info.raw && again.changed === info.changed) await fs.unlink(lock).catch(() => {});
    return true;
  } finally {
    await fs.unlink(breaker).catch(() => {});
  }
}

const OWNER_BODY = `${JSON.stringify({ pid: process.pid, host: HOST, token: randomToken() })}\n`;
/** ownerDir → this process's owner file there (see the top of this file). */
const owners = new Map();

/** This process's owner file in `dir`, written on first use (again if someone removed it). */
async function ownerIn(dir, fresh = false) {
  let file = owners.get(dir);
  if (file && !fresh) return file;
  file = path.join(dir, `.lock-owner.${HOST_TAG}-${process.pid}.${randomToken()}.tmp`);
  await fs.writeFile(file, OWNER_BODY, { flag: 'wx' });
  owners.set(dir, file);
  return file;
}

/** One attempt: true when `lock` is now ours, false when someone holds it. */
async function tryLock(lock, ownerDir) {
  for (let fresh = false; ; fresh = true) {
    const owner = await ownerIn(ownerDir, fresh);
    try {
      await fs.link(owner, lock);
      return true;
    } catch (err) {
      if (err.code === 'EEXIST') return false;
      // The owner file was removed (swept, or by hand): write it again, once.
      if (err.code === 'ENOENT' && !fresh && !(await fs.access(owner).then(() => true, () => false))) continue;
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(err.code)) throw err;
    }
    // No hard links here: exclusive create.
    try {
      await fs.writeFile(lock, OWNER_BODY, { flag: 'wx' });
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      return false;
    }
  }
}

async function acquire(lock, { timeoutMs, staleMs, ownerDir = path.dirname(lock) }) {
  const deadline = Date.now() + timeoutMs;
  let pause = 1;
  for (;;) {
    if (await tryLock(lock, ownerDir)) return OWNER_BODY;
    if (await breakIfStale(lock, staleMs)) continue;
    if (Date.now() > deadline) {
      const holder = await readLock(lock);
      throw new CredenceError(
        `could not lock ${lock} within ${timeoutMs} ms (held by pid ${holder?.pid ?? '?'} on ${holder?.host ?? '?'})`,
        { code: 'STORE_FAILED' },
      );
    }
    await sleep(pause + Math.random() * pause);
    pause = Math.min(pause * 2, 25);
  }
}

const chains = new Map();

/** Runs `work` holding the lock file `lock` (and this process's queue for it). */
export async function withLock(lock, options, work) {
  const previous = chains.get(lock) ?? Promise.resolve();
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const mine = previous.then(() => gate);
  chains.set(lock, mine);
  await previous;
  try {
    const body = await acquire(lock, options);
    const since = Date.now();
    try {
      return await work();
    } finally {
      // Remove the lock only if it is still ours. A live holder's lock is judged stale only
      // once older than staleMs, so a short hold needs no check (the common case: one unlink).
      if (Date.now() - since < options.staleMs / 2) {
        await fs.unlink(lock).catch(() => {});
      } else {
        const now = await readLock(lock).catch(() => null);
        if (now && now.raw === body) await fs.unlink(lock).catch(() => {});
      }
    }
  } finally {
    release();
    if (chains.get(lock) === mine) chains.delete(lock);
  }
}
