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
