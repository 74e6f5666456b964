// OkfStore's journal replay after a reboot: the journaled commits of a dead
// process that did not reach the disk are written again (okf-journal.js finds
// them and hands over each slot's records; this file decides what is
// missing and writes it). log.md gets the blocks it lacks, the slot file the
// last record when it is older, and (journals of a version before issue #44)
// an old registry's entity and chunk files each its newest record of the
// generation the slot file names.
import path from 'node:path';
import { parseChunkFile, parseEntityFile, parseLogLines } from './okf-format.js';
import { appendDurably, readText, withLock, writeAtomic } from './okf-fs.js';

/**
 * Replays the journal `records` (by version) of claims/<name>. `bundle`:
 * `{ root, logFile, lockOptions, slots }` (slots: the store's SlotFiles).
 * `logged.keys`: the blocks log.md holds, read on the first call of a recovery
 * (log.md is parsed once per recovery, not once per replayed slot).
 */
export async function replaySlot(bundle, name, records, logged) {
  const { root, logFile, lockOptions, slots } = bundle;
  const file = path.join(root, 'claims', name);
  await withLock(`${file}.lock`, lockOptions, async () => {
    const current = await slots.read(name).catch((err) => {
      if (err?.code === 'MALFORMED_STORE_DATA') return null; // torn by the power loss: the record replaces it
      throw err;
    });
    await withLock(`${logFile}.lock`, lockOptions, async () => {
      if (logged.keys === null) {
        logged.keys = new Set();
        parseLogLines((await readText(logFile)) ?? '', 1, logFile, (r) => logged.keys.add(`${r.k}|${r.v}|${r.c}`));
      }
      const missing = records.filter((r) => !logged.keys.has(`${r.k}|${r.v}|${r.c}`));
      if (missing.length > 0) await appendDurably(logFile, missing.map((r) => r.log).join(''));
      for (const r of missing) logged.keys.add(`${r.k}|${r.v}|${r.c}`);
    });
    const last = records.at(-1);
    if ((current?.slot.version ?? 0) < last.v) {
      await writeAtomic(file, last.slot);
      slots.forget(name);
    }
    // Entity and chunk files an old registry's commits wrote, of the generations its slot file now
    // names: each as its newest record has it, unless the disk holds a newer one.
    const slot = await slots.read(name).then((e) => e?.slot, () => undefined);
    const entitiesDir = path.join(root, 'entities');
    await replayFiles(entitiesDir, records, 'ents', parseEntityFile, slot?.generation);
    await replayFiles(entitiesDir, records, 'chunks', parseChunkFile, slot?.itemGeneration);
  });
}

/** Writes the files of `records[*][field]` (parsed by `parse`) of `generation`, each at its newest version. */
async function replayFiles(entitiesDir, records, field, parse, generation) {
  const newest = new Map();
  for (const r of records) {
    for (const e of r[field] ?? []) {
      const parsed = parse(e.text, e.f);
      if (parsed.generation === generation && (newest.get(e.f)?.version ?? -1) <= parsed.version) newest.set(e.f, { version: parsed.version, text: e.text });
    }
  }
  for (const [file, { version, text }] of newest) {
    const target = path.join(entitiesDir, file);
    const onDisk = await readText(target).then((t) => (t === null ? null : parse(t, target)), () => null);
    if (!onDisk || onDisk.generation !== generation || onDisk.version < version) await writeAtomic(target, text);
  }
}
