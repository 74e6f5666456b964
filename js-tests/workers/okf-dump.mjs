// Prints everything a fresh OkfStore reads from a bundle, as JSON.
import { Memory, OkfStore } from 'credence';

const [dir, scope] = process.argv.slice(2);
const store = new OkfStore(dir, scope ? { scope } : {});
const refs = await store.listSlots({});
const slots = {};
const logs = {};
for (const r of refs) {
  slots[r.key] = await store.loadSlot(r);
  logs[r.key] = await store.readLog(r);
}
const conflicts = await new Memory({ store }).conflicts();
process.stdout.write(JSON.stringify({ refs, slots, logs, conflicts }));
