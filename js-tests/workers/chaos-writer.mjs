// A randomized writer process (js-tests/reliability/ops.js). Usage:
//   node chaos-writer.mjs '{"kind":"okf"|"pg", "dir"|"url", "scope", "tables",
//                           "worker", "seed", "count", "subjects", "inflight",
//                           "mix", "transient", "pause"}'
// Prints `ready` once the store is open, then one line per event —
// `try {json}`, `ack {json}`, `refused {json}` — each written (synchronously,
// to a pipe) before the writer goes on, then `done`. With "transient", store
// failures (a database restart) are retried with the same ids; a pg.Pool then
// reconnects by itself.
import { Memory } from 'credence';
import { openStore } from './open-store.mjs';
import { runWriter } from '../reliability/ops.js';

const cfg = JSON.parse(process.argv[2]);
const { store, pool } = await openStore(cfg, { max: (cfg.inflight ?? 2) + 1, connectionTimeoutMillis: 5000 });
const memory = new Memory({ store, retries: 10 });
process.stdout.write('ready\n');
const report = (kind, data) => process.stdout.write(`${kind} ${JSON.stringify(data)}\n`);
const stats = await runWriter(memory, { ...cfg, report });
await pool?.end();
process.stdout.write(`done ${JSON.stringify(stats)}\n`);
