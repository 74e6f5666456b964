// Type-level use of the shipped stores.
import { Memory, OkfStore, PostgresStore, POSTGRES_SCHEMA, type ClaimStore, type Queryable, type SlotRef } from 'credence';

declare const db: Queryable;
const okf: ClaimStore = new OkfStore('./memory', { scope: 'tenant-a', lockTimeoutMs: 5000 });
const pgStore = new PostgresStore(db, { scope: 'tenant-a', tables: { claims: 'app.claims' } });
const asStore: ClaimStore = pgStore;
const ddl: string = POSTGRES_SCHEMA + PostgresStore.schema({ log: 'app.log' });
const dir: string = new OkfStore('./memory').dir;

async function use(): Promise<void> {
  await pgStore.ensureSchema();
  const refs: SlotRef[] = await pgStore.listSlots({ subject: 'user' });
  const memory = new Memory({ store: okf });
  await memory.remember({ predicate: 'likes', object: 'tea' });
  void refs;
}
void use;
void asStore;
void ddl;
void dir;

// @ts-expect-error scope is required
new PostgresStore(db, {});

// Store interface v2: the index questions, and the adapter for a v1 store.
import { adaptV1Store, type IndexedConflict } from 'credence';
declare const v1: Omit<ClaimStore, 'listConflicts' | 'dirtySlots'>;
const adapted: ClaimStore = adaptV1Store(v1);
async function listings(): Promise<void> {
  const open: IndexedConflict[] = await pgStore.listConflicts({ status: 'open', limit: 50 });
  const next = await okf.listConflicts({ status: 'open', after: { openedAt: open[0].openedAt, id: open[0].id }, limit: 50 });
  const dirty: SlotRef[] = await pgStore.dirtySlots({ after: 'user\u001flikes', limit: 10 });
  void next;
  void dirty;
}
void listings;
void adapted;
// @ts-expect-error a v1 store is not a ClaimStore
const notV2: ClaimStore = v1;
void notV2;

// Optional: entities found by the key rows each entity commit carries.
import { type EntityKeyRow, type SlotCommit } from 'credence';
declare const base: ClaimStore;
const rows = new Map<string, EntityKeyRow[]>();
const byKeys: ClaimStore = {
  ...base,
  commitSlot: async (commit: SlotCommit) => {
    const entity = commit.index?.entity;
    if (entity) rows.set(entity.id, entity.keys.map((k) => ({ key: k.key, entity: entity.id, name: k.name })));
    return base.commitSlot(commit);
  },
  findEntities: ({ keys }) => [...rows.values()].flat().filter((r) => keys.includes(r.key)),
};
void byKeys;
