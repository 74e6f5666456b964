// Prints everything a fresh process reads from a store, as JSON:
// { refs, slots, logs, recalled, conflicts }. Usage:
//   node store-dump.mjs '{"kind":"okf"|"pg", "dir"|"url", "scope", "tables"}'
// Besides the raw slots and logs it reads every subject through a Memory
// (recall with history, conflicts), so data the engine cannot take fails here.
import { Memory, OkfStore, PostgresStore } from 'credence';
import { dumpStore } from '../reliability/history.js';

const cfg = JSON.parse(process.argv[2]);
let store;
let client;
if (cfg.kind === 'okf') {
  store = new OkfStore(cfg.dir, cfg.scope ? { scope: cfg.scope } : {});
} else {
  const { default: pg } = await import('pg');
  client = new pg.Client({ connectionString: cfg.url });
  await client.connect();
  store = new PostgresStore(client, { scope: cfg.scope, tables: cfg.tables });
}
const dump = await dumpStore(store);
const memory = new Memory({ store });
let recalled = 0;
for (const subject of new Set(dump.refs.map((r) => r.subject))) {
  recalled += (await memory.recall(subject, { includeHistory: true })).length;
}
dump.recalled = recalled;
dump.conflicts = (await memory.conflicts()).length;
await client?.end();
process.stdout.write(JSON.stringify(dump));
