// Sections 7 (package size and cold start) and 8 (review pass: judge calls).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Memory } from 'credence';
import { fmtBytes, fmtInt, fmtNs, fmtX, median, nsSince, now, row, run } from '../lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function sizeAndStart({ quick }) {
  const require = createRequire(path.join(ROOT, 'package.json'));
  const wasmFile = path.join(path.dirname(require.resolve('credence/package.json')), 'node', 'credence_bg.wasm');
  const bytes = readFileSync(wasmFile);
  const gz = gzipSync(bytes, { level: 9 }).length;
  // Fresh processes, alternating so load on the machine hits both alike.
  const spawnNs = (code) => {
    const t0 = now();
    run(process.execPath, ['-e', code], { cwd: ROOT });
    return nsSince(t0);
  };
  const base = [];
  const pkg = [];
  spawnNs('0');
  spawnNs("require('credence')");
  for (let i = 0; i < (quick ? 5 : 15); i++) {
    base.push(spawnNs('0'));
    pkg.push(spawnNs("require('credence')"));
  }
  const start = median(pkg) - median(base);
  return {
    rows: [
      row('7a', 'wasm size, gzipped (raw)', `${fmtBytes(gz)} (${fmtBytes(bytes.length)})`, '', '', '≤ 150 KB gz', gz <= 150 * 1024,
        'node/credence_bg.wasm of the installed package (wasm-opt -Oz); size is the lead\'s to cut, not restructured here.'),
      row('7b', "cold start: node -e \"require('credence')\" minus node -e 0", fmtNs(start), fmtNs(median(base)), '', '', undefined,
        `median of ${pkg.length} fresh processes each; the package's share is compiling and instantiating the wasm plus loading the JS.`),
    ],
    data: { wasmBytes: bytes.length, gzBytes: gz, startNs: start, baseNs: median(base) },
  };
}

/** A judge that answers from a script and counts its calls. */
function scriptedJudge() {
  const judge = {
    calls: 0,
    findPairs(claims) {
      judge.calls++;
      // Name every pair of entries on the same topic (the first word), older first.
      const pairs = [];
      claims.forEach((newer, j) => claims.slice(0, j).forEach((earlier) => {
        if (earlier.object.split(' ')[0] === newer.object.split(' ')[0]) pairs.push({ earlier: earlier.id, newer: newer.id });
      }));
      return pairs;
    },
    confirmPair(earlier, newer) {
      judge.calls++;
      return { sameThing: true, newerInvalidatesEarlier: newer.object.includes('now'), reason: 'scripted' };
    },
  };
  return judge;
}

export async function reviewPass() {
  const RECORDS = 350;
  const SLOTS = 35;
  const topics = ['deploy', 'standup', 'budget', 'hiring', 'roadmap'];
  const memory = new Memory();
  for (let i = 0; i < RECORDS; i++) {
    const s = i % SLOTS;
    const topic = topics[(s + Math.floor(i / SLOTS)) % topics.length];
    await memory.remember(
      { subject: `team${s}`, predicate: 'experience.notes', object: `${topic} note ${i}${i % 7 === 0 ? ' now changed' : ''}` },
      { strategy: 'append' },
    );
  }
  const judge = scriptedJudge();
  const t0 = now();
  let passes = 0;
  let report;
  let conflicts = 0;
  do {
    report = await memory.review({ judge, budget: 160 });
    conflicts += report.conflicts.length;
    passes++;
  } while (report.slotsLeft > 0 && passes < 10);
  const ns = nsSince(t0);
  const calls = judge.calls;
  const again = scriptedJudge();
  await memory.review({ judge: again });
  return {
    rows: [
      row('8', `review pass: judge calls, ${RECORDS} records in ${SLOTS} slots`, `${fmtInt(calls)} calls`, `${RECORDS} (one per record)`, fmtX(RECORDS / calls), 'fewer than per record', calls < RECORDS,
        `${(calls / SLOTS).toFixed(1)} calls per slot (one findPairs + ≤ 3 confirmPair); ${passes} pass(es) at the default budget 160, ` +
        `${conflicts} review conflicts opened, ${fmtNs(ns)} in all with an instant judge; a second pass over unchanged slots made ${again.calls} calls.`),
    ],
    data: { calls, records: RECORDS, slots: SLOTS, passes, conflicts, ns, secondPassCalls: again.calls },
  };
}
