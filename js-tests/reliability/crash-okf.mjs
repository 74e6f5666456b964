// Crash safety of OkfStore: writer processes killed with SIGKILL at random
// moments. Usage: node crash-okf.mjs [runs=50] [seed]
//
// Each run starts two chaos writers (js-tests/reliability/ops.js: adds,
// disputes, ask_user writes, settlements) on one bundle and kills each at a
// random moment within `KILL_WINDOW_MS` of its store opening, while the other
// keeps writing. Then a fresh process reads every slot, its log, every
// subject through a Memory and every conflict (js-tests/workers/store-dump.mjs),
// and the history is checked (history.js) against everything every writer of
// the bundle ever acknowledged. Bundles live for `RUNS_PER_BUNDLE` runs, so
// later writers must get past the locks, half-finished commits and stray temp
// files that earlier kills left. At the end of each bundle, a writer in this
// process must be able to write every slot at once, and its first commit must
// sweep every temp file the dead writers left.
// Exits 1 on any violation; prints a summary line `crash-okf: {json}`.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Memory, OkfStore } from 'credence';
import { checkHistory } from './history.js';
import { hash, mulberry32 } from './ops.js';
import { dumpInFreshProcess, startChaosWriter } from './processes.js';

const RUNS = Number(process.argv[2] ?? 50);
const SEED = Number(process.argv[3] ?? Date.now() % 2 ** 31);
const RUNS_PER_BUNDLE = 10;
const KILL_WINDOW_MS = 800;
const rand = mulberry32(SEED);
const root = mkdtempSync(path.join(tmpdir(), 'credence-crash-okf-'));
const started = Date.now();
const totals = { runs: 0, kills: 0, finishedBeforeKill: 0, acked: 0, settles: 0, undos: 0, refused: 0, undoStale: 0, attempted: 0, checks: 0, writesChecked: 0,
  locksLeft: 0, orphanLogBlocks: 0, tempFilesLeft: 0, losses: 0, violations: 0 };
let failed = false;

/** The bundle's claims/ files; none yet when every writer was killed before its first commit. */
function claimFiles(dir) {
  try {
    return readdirSync(path.join(dir, 'claims'));
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

/** Log blocks a reader must ignore: versions the slot never reached, or superseded by a later block. */
function orphanBlocks(dir, slots) {
  const winners = new Map();
  const all = new Set();
  const log = path.join(dir, 'log.md');
  if (!existsSync(log)) return 0; // no commit yet
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    // A writer killed mid-append leaves a torn last line (no closing ` -->`):
    // readers skip it, as OkfStore's parseLogLines does.
    if (!line.startsWith('<!-- credence:log ') || !line.endsWith(' -->')) continue;
    const r = JSON.parse(line.slice('<!-- credence:log '.length, -' -->'.length));
    all.add(`${r.k}|${r.v}|${r.c}`);
    if (r.v <= (slots[r.k]?.version ?? 0)) winners.set(`${r.k}|${r.v}`, r.c);
  }
  return all.size - winners.size;
}

for (let bundle = 0; bundle * RUNS_PER_BUNDLE < RUNS; bundle++) {
  const dir = path.join(root, `bundle-${bundle}`);
  const events = [];
  let orphansBefore = 0;
  const runs = Math.min(RUNS_PER_BUNDLE, RUNS - bundle * RUNS_PER_BUNDLE);
  for (let r = 0; r < runs; r++) {
    const run = bundle * RUNS_PER_BUNDLE + r;
    const writers = [0, 1].map((k) => {
      const worker = `r${run}w${k}`;
      const w = startChaosWriter({ kind: 'okf', dir, worker, seed: hash(`${SEED}:${worker}`), count: 5000, subjects: 3, inflight: 2 });
      const delay = rand() * KILL_WINDOW_MS;
      w.ready.then((ok) => ok && setTimeout(() => w.child.kill('SIGKILL'), delay));
      return w;
    });
    const exits = await Promise.all(writers.map((w) => w.exited));
    for (const [k, e] of exits.entries()) {
      if (e.signal === 'SIGKILL') totals.kills++;
      else if (e.code === 0) totals.finishedBeforeKill++;
      else {
        console.error(`run ${run} writer ${k} failed (code ${e.code}):\n${e.stderr}`);
        failed = true;
      }
    }
    for (const w of writers) events.push(...w.events);
    totals.runs++;
    const locks = claimFiles(dir).filter((f) => f.endsWith('.lock'));
    totals.locksLeft += locks.length;
    let dump;
    try {
      dump = await dumpInFreshProcess({ kind: 'okf', dir });
    } catch (err) {
      console.error(`run ${run} (seed ${SEED}): ${err.message}`);
      failed = true;
      break;
    }
    const { violations, counts } = checkHistory(dump, events);
    totals.checks++;
    totals.writesChecked += counts.acked + counts.settles;
    const orphans = orphanBlocks(dir, dump.slots);
    totals.orphanLogBlocks += Math.max(0, orphans - orphansBefore);
    orphansBefore = orphans;
    if (violations.length) {
      totals.violations += violations.length;
      totals.losses += violations.filter((v) => v.startsWith('ack ') || v.startsWith('settle ')).length;
      console.error(`run ${run} (seed ${SEED}, bundle ${dir}): ${violations.length} violations\n  ${violations.join('\n  ')}`);
      failed = true;
    }
  }
  const acks = events.filter((e) => e.kind === 'ack');
  totals.acked += acks.filter((e) => e.op !== 'settle').length;
  totals.settles += acks.filter((e) => e.op === 'settle').length;
  totals.undos += acks.filter((e) => e.op === 'undo').length;
  const refused = events.filter((e) => e.kind === 'refused');
  totals.refused += refused.length;
  totals.undoStale += refused.filter((e) => e.code === 'UNDO_STALE').length;
  totals.attempted += events.filter((e) => e.kind === 'try').length;
  totals.tempFilesLeft += claimFiles(dir).filter((f) => f.endsWith('.tmp')).length;
  // The bundle stays writable after the kills: stale locks are broken at once.
  const store = new OkfStore(dir, { lockTimeoutMs: 3000 });
  const memory = new Memory({ store });
  const t = Date.now();
  for (const s of ['s0', 's1', 's2']) await memory.remember({ subject: s, predicate: 'likes', object: `after bundle ${bundle}` });
  const slow = Date.now() - t;
  if (slow > 2500) {
    console.error(`bundle ${bundle}: writing after the kills took ${slow} ms`);
    failed = true;
  }
  // ...and its first commit swept the temp files the killed writers left.
  const debris = claimFiles(dir).filter((f) => f.endsWith('.tmp'));
  if (debris.length) {
    console.error(`bundle ${bundle}: temp files of dead writers not swept: ${debris.join(', ')}`);
    failed = true;
  }
  if (failed) break;
}

const summary = { seed: SEED, ...totals, seconds: Math.round((Date.now() - started) / 100) / 10 };
console.log(`crash-okf: ${JSON.stringify(summary)}`);
if (failed) {
  console.error(`FAILED — replay with: node js-tests/reliability/crash-okf.mjs ${RUNS} ${SEED} (bundles kept in ${root})`);
  process.exit(1);
}
rmSync(root, { recursive: true, force: true });
