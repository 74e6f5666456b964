// A browser/bundler TypeScript consumer of IndexedDbStore (moduleResolution: bundler).
import { Memory, IndexedDbStore, type ClaimStore, type IndexedDbStoreOptions, type SlotRef } from 'credence';

const options: IndexedDbStoreOptions = { scope: 'alice', durability: 'strict' };
const store = new IndexedDbStore('my-assistant', options);
const asClaimStore: ClaimStore = store;
const memory = new Memory({ store: asClaimStore });

async function main(): Promise<void> {
  const scope: string = store.scope;
  const refs: SlotRef[] = await store.listSlots({ subject: 'user' });
  const slot = await store.loadSlot(refs[0]);
  const version: number | undefined = slot?.version;
  const written: boolean = await store.commitSlot({
    ref: refs[0], expectedVersion: version ?? 0, slot: { version: (version ?? 0) + 1 },
    changedClaims: [], changedConflicts: [], log: [],
  });
  await memory.remember({ predicate: 'born_on', object: '1990-01-01' });
  store.close();
  void scope; void written;
  // @ts-expect-error the scope must be a string
  new IndexedDbStore('x', { scope: 42 });
}
void main;
