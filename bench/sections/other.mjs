// Sections 7 (package size and cold start) and 8 (review pass: judge calls).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Memory } from 'credence';
import { fmtBytes, fmtInt, fmtNs, fmtX, median, nsSince, now, row, run } from '../lib.mjs';
import { baseline, packageWasm } from '../baseline.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function sizeAndStart({ quick }) {
  const require = createRequire(path.join(ROOT, 'package.json'));
  const wasmFile = packageWasm(path.dirname(require.resolve('credence/package.json')));
  const base = await baseline();
  const sizes = (file) => {
    const bytes = readFileSync(file);
    return { raw: bytes.length, gz: gzipSync(bytes, { level: 9 }).length };
  };
  const size = sizes(wasmFile);
  const baseSize = base && sizes(base.wasmFile);
  const shown = (s) => `${fmtBytes(s.gz)} (${fmtBytes(s.raw)})`;
  // Fresh processes, alternating so load on the machine hits both alike.
  const spawnNs = (code) => {
    const t0 = now();
    run(process.execPath, ['-e', code], { cwd: ROOT });
    return nsSince(t0);
  };
  const loadBase = base && `require(${JSON.stringify(path.join(base.pkgDir, 'index.cjs'))})`;
  const samples = { node: [], pkg: [], base: [] };
  spawnNs('0');
  spawnNs("require('credence')");
  for (let i = 0; i < (quick ? 5 : 15); i++) {
    samples.node.push(spawnNs('0'));
    samples.pkg.push(spawnNs("require('credence')"));
    if (base) samples.base.push(spawnNs(loadBase));
  }
  const start = median(samples.pkg) - median(samples.node);
  const baseStart = base ? median(samples.base) - median(samples.node) : NaN;
  return {
    rows: [
      row('7a', 'wasm size, gzipped (raw)', shown(size), base ? shown(baseSize) : '', base ? fmtX(size.gz / baseSize.gz) : '', '≤ 200 KB gz', size.gz <= 200 * 1024,
        `${path.relative(path.dirname(path.dirname(wasmFile)), wasmFile)} of the installed package${base ? ` vs the package of ${base.commit}` : ''}.`),
      row('7b', "cold start: node -e \"require('credence')\" minus node -e 0", fmtNs(start), base ? fmtNs(baseStart) : fmtNs(median(samples.node)), base ? fmtX(start / baseStart) : '',
        base ? 'no worse' : '', base ? start <= baseStart * 1.1 : undefined,
        `median of ${samples.pkg.length} fresh processes each${base ? `; baseline: the package of ${base.commit} (node -e 0 itself: ${fmtNs(median(samples.node))})` : ''}; ` +
        "the package's share is compiling and instantiating the wasm plus loading the JS."),
    ],
    data: { wasmBytes: size.raw, gzBytes: size.gz, startNs: start, baseNs: median(samples.node), baseline: base && { ...baseSize, startNs: baseStart } },
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
