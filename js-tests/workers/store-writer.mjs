// A writer process for the multi-process tests. Usage:
//   node store-writer.mjs '{"kind":"okf"|"pg", "dir"|"url", "scope", "tables",
//                           "worker", "count", "subjects", "inflight", "pause"}'
// Writes `count` candidates (ids w<worker>-<i>, objects unique) spread over
// `subjects` slots, `inflight` at a time, re-issuing a write after a
// ConcurrencyError with the same id. Prints `ack <json>` once a write is
// acknowledged, then `done`.
import { ConcurrencyError, Memory } from 'credence';
import { openStore } from './open-store.mjs';

const cfg = JSON.parse(process.argv[2]);
const { store, pool } = await openStore(cfg);
const memory = new Memory({ store, retries: 10 });
const pause = () => (cfg.pause ? new Promise((r) => setTimeout(r, Math.random() * cfg.pause)) : null);

let next = 0;
async function lane() {
  while (next < cfg.count) {
    const i = next++;
    const candidate = { id: `w${cfg.worker}-${i}`, subject: `s${i % cfg.subjects}`, predicate: 'likes', object: `w${cfg.worker}-${i}` };
    for (let lost = 0; ; ) {
      try {
        const outcome = await memory.remember(candidate);
        const attempts = lost * 11 + outcome.attempts;
        process.stdout.write(`ack ${JSON.stringify({ subject: candidate.subject, object: candidate.object, attempts })}\n`);
        break;
      } catch (err) {
        if (!(err instanceof ConcurrencyError)) throw err;
        lost++;
      }
    }
    await pause();
  }
}
await Promise.all(Array.from({ length: cfg.inflight ?? 1 }, lane));
await pool?.end();
process.stdout.write('done\n');
