// Privacy erasure in an OKF bundle (SPEC §7): the slot file and log.md are
// both rewritten without the erased text, and a crash never leaves one
// rewritten and the other not.
//
// Protocol (under the slot's lock and log.md's lock):
//   1. write the new slot file and the new log.md as hidden temp files, fsynced;
//   2. write the marker `.erase-pending.json` (file names only, no text), fsynced;
//   3. rename the log temp over log.md, the slot temp over the slot file;
//   4. remove the marker.
// A writer killed before 2 leaves the old state (its temps hold nothing the
// bundle did not already hold, and the next erasure removes them); killed
// after 2, whoever touches the bundle next finishes 3–4 (`finishErase`), so
// readers only ever see the old state or the erased one.
import { promises as fs } from './okf-direct-fs.js';
import path from 'node:path';
import { parseLogLines, withGeneration } from './okf-format.js';
import { randomToken, syncDir, writeSynced } from './okf-fs.js';

export const PENDING = '.erase-pending.json';
const SLOT_TEMP_SUFFIX = '.erase';
const LOG_TEMP = '.log.md.erase';

const ignoreMissing = (err) => {
  if (err?.code !== 'ENOENT') throw err;
};

/** The slot key a log.md block belongs to (its first complete record), or null for a torn block. */
function keyOfBlock(block, file) {
  let key = null;
  parseLogLines(block, 1, file, (record) => {
    key ??= record.k;
  });
  return key;
}

/**
 * log.md without `key`'s blocks, with `blocks` (the scrubbed history, then the
 * erasure's own block) appended, under a new generation (readers that parsed
 * the old file start over). Torn blocks left by dead writers are dropped:
 * they are unreadable anyway and may quote the text.
 */
export function rewriteLog(text, key, blocks, file) {
  const [head, ...rest] = text.split('\n### ');
  const kept = rest
    .map((b) => `\n### ${b}`)
    .filter((b) => {
      const k = keyOfBlock(b, file);
      return k !== null && k !== key;
    });
  const body = kept.map((b) => (b.endsWith('\n') ? b : `${b}\n`)).join('');
  return `${withGeneration(head, randomToken())}${body}${blocks.join('')}`;
}

/** Steps 1–4 for one slot: `slotFile` gets `slotText`, `logFile` gets `logText`. */
export async function eraseFiles(root, slotFile, slotText, logFile, logText) {
  const slotTemp = path.join(path.dirname(slotFile), `.${path.basename(slotFile)}${SLOT_TEMP_SUFFIX}`);
  const logTemp = path.join(root, LOG_TEMP);
  await writeSynced(slotTemp, slotText);
  await writeSynced(logTemp, logText);
  await writeSynced(path.join(root, PENDING), JSON.stringify({ slot: path.relative(root, slotFile) }));
  await syncDir(root);
  await finishErase(root);
}

/** True when an erasure is waiting to be finished. */
export async function erasePending(root) {
  try {
    await fs.access(path.join(root, PENDING));
    return true;
  } catch {
    return false;
  }
}

/** Steps 3–4 (idempotent): call with the slot's and log.md's locks held. */
export async function finishErase(root) {
  let marker;
  try {
    marker = JSON.parse(await fs.readFile(path.join(root, PENDING), 'utf8'));
  } catch (err) {
    if (err?.code === 'ENOENT') return;
    // A marker torn by a kill while it was written: the erasure never reached
    // its commit point (renames start only after the marker is whole), so the
    // old state stands and the marker goes.
    if (err instanceof SyntaxError) return fs.unlink(path.join(root, PENDING)).catch(ignoreMissing);
    throw err;
  }
  const slotFile = path.join(root, marker.slot);
  const slotTemp = path.join(path.dirname(slotFile), `.${path.basename(slotFile)}${SLOT_TEMP_SUFFIX}`);
  await fs.rename(path.join(root, LOG_TEMP), path.join(root, 'log.md')).catch(ignoreMissing);
  await fs.rename(slotTemp, slotFile).catch(ignoreMissing);
  await syncDir(path.dirname(slotFile));
  await syncDir(root);
  await fs.unlink(path.join(root, PENDING)).catch(ignoreMissing);
}

/** The slot a pending erasure rewrites (relative path), or null. */
export async function pendingSlot(root) {
  try {
    return JSON.parse(await fs.readFile(path.join(root, PENDING), 'utf8')).slot;
  } catch {
    return null;
  }
}

/** Removes temps of an erasure that died before its marker (call with log.md's lock held, no marker). */
export async function sweepEraseTemps(root, claimsDir) {
  await fs.unlink(path.join(root, LOG_TEMP)).catch(ignoreMissing);
  let names = [];
  try {
    names = await fs.readdir(claimsDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith('.') && name.endsWith(`.md${SLOT_TEMP_SUFFIX}`)) await fs.unlink(path.join(claimsDir, name)).catch(ignoreMissing);
  }
}
