// Memory over data written by main at 783f0e6, when every entity of a type
// lived in one registry slot (js-tests/fixtures/legacy-registry): the engine
// moves each registry into entity slots on first use, and answers as the old
// version did — every entity by id and by each of its names, merges followed,
// every same_entity question listed with its status and still settleable —
// on an OKF bundle, an IndexedDB database and PostgreSQL (PGlite) tables.
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { PGlite } from '@electric-sql/pglite';
import { IndexedDbStore, Memory, OkfStore, PostgresStore } from 'credence';
import { restoreIndexedDb, restorePostgres } from '../lib/legacy-fixtures.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const fixtures = path.join(here, '..', 'fixtures', 'legacy-registry');
const json = (p) => JSON.parse(readFileSync(path.join(fixtures, p), 'utf8'));
const SCOPE = 'tenant-a';
const registry = (type) => ({ key: `\u001fentities\u001f${type}`, subject: '\u001fentities', predicate: type });

/** Each old registry (`slots`, by type) as Memory answers it after the move. */
async function answersAsBefore(store, slots) {
  const memory = new Memory({ store });
  const root = (entities, id) => {
    let e = entities.find((x) => x.id === id);
    for (let hops = 0; e?.mergedInto && hops < 10; hops += 1) e = entities.find((x) => x.id === e.mergedInto);
    return e;
  };
  for (const [type, slot] of Object.entries(slots)) {
    for (const e of slot.entities) {
      const now = (await memory.entity(e.id)).entity;
      expect([now.id, now.name, now.mergedInto]).toEqual([e.id, e.name, e.mergedInto]);
      expect(now.aliases).toEqual(e.aliases);
      // Every name leads where it led: to the entity, or the one it was merged into.
      for (const alias of e.aliases) {
        const found = await memory.entity(alias, { type });
        expect(found?.entity.id, `${type} ${alias}`).toBe(root(slot.entities, e.id).id);
      }
    }
    // Moved: the registry is empty, its log kept and one entry longer.
    expect((await store.loadSlot(registry(type)))?.entities ?? []).toEqual([]);
  }
  const all = Object.values(slots).flatMap((s) => s.conflicts);
  const listed = await memory.conflicts();
  for (const c of all) expect(listed.find((x) => x.id === c.id)?.status, c.id).toBe(c.status);
  expect(await memory.unfinishedEntityMerges()).toEqual([]);
  // The open question settles "different" in the entity slot it moved to; undo reopens it.
  const open = all.find((c) => c.status === 'open');
  expect((await memory.settle(open.id, 'different', { by: 'test' })).status).toBe('settled');
  expect((await memory.undo(open.id)).status).toBe('open');
  // A known spelling names its entity; no second entity appears for it.
  const [type, slot] = Object.entries(slots).find(([, s]) => s.entities.some((e) => e.aliases.length > 1));
  const known = slot.entities.find((e) => e.aliases.length > 1);
  const again = await memory.remember({ subject: known.aliases[1], subjectType: type, predicate: 'motto', object: 'still here' });
  expect(again.claim.subject).toBe(root(slot.entities, known.id).id);
  expect(again.conflicts.filter((c) => c.kind === 'same_entity')).toEqual([]);
  // A second Memory over the same store sees the moved entities without moving anything again.
  const second = new Memory({ store });
  expect((await second.entity(known.id)).entity.id).toBe(known.id);
  return memory;
}

describe('Memory over entity registries of main 783f0e6', () => {
  it('on an OKF bundle', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'credence-legacy-okf-'));
    cpSync(path.join(fixtures, 'okf', 'bundle'), dir, { recursive: true });
    await answersAsBefore(new OkfStore(dir), json('okf/expected.json').registries);
  });

  it('on an IndexedDB database', async () => {
    const indexedDB = new IDBFactory();
    await restoreIndexedDb(indexedDB, 'legacy');
    const store = new IndexedDbStore('legacy', { indexedDB, IDBKeyRange, scope: SCOPE });
    const expected = json('indexeddb/expected.json');
    await answersAsBefore(store, Object.fromEntries(Object.entries(expected).map(([t, { slot }]) => [t, slot])));
    store.close();
  });

  it('on PostgreSQL tables (PGlite), once the schema migration ran', async () => {
    const db = new PGlite();
    try {
      await restorePostgres(db);
      const store = new PostgresStore(db, { scope: SCOPE });
      await store.ensureSchema();
      const expected = json('postgres/expected.json');
      await answersAsBefore(store, Object.fromEntries(Object.entries(expected).map(([t, { slot }]) => [t, slot])));
    } finally {
      await db.close();
    }
  });
});
