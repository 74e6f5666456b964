// `npm run bench [-- --quick] [-- --json out.json] [-- --only 1,3,5] [-- --no-baseline]`
//
// Side-by-side benchmarks of the packed package (`import 'credence'`): every
// figure is a ratio to a baseline measured in the same run, because absolute
// times on a shared machine are noise. Speed and size are also set against the
// package of the last release before issue #20 (bench/baseline.mjs, built once
// and cached by scripts/bench-baseline.sh). Prints one table; see BENCHMARKS.md.
// Exits non-zero only when a section crashes or an acknowledged write is
// missing — never because a speed goal was missed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { printTable, row } from './lib.mjs';

try {
  createRequire(import.meta.url).resolve('credence');
} catch {
  console.error('bench: the credence package is not installed; build and install it first:\n  npm run build && bash scripts/install-pkg.sh');
  process.exit(2);
}
const { inMemory } = await import('./sections/inmemory.mjs');
const { reviewPass, sizeAndStart } = await import('./sections/other.mjs');
const { growth, okf, postgres } = await import('./sections/processes.mjs');
const { scale } = await import('./sections/scale.mjs');
const { calibrateAtScale } = await import('./sections/calibrate.mjs');
const { slotShapes } = await import('./sections/slots.mjs');
const { autoCalibrate } = await import('./sections/autocalibrate.mjs');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : null;
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : null;

// Section ids are the numbering (#10); the in-memory section yields 1, 2 and 4.
const SECTIONS = [
  { ids: ['1', '2', '4'], name: 'in-memory: wasm vs native, vs a Map, batch', run: inMemory },
  { ids: ['3'], name: 'growth to 1M claims', run: growth },
  { ids: ['5'], name: 'PostgreSQL, 8 writers', run: postgres },
  { ids: ['6'], name: 'OkfStore bundle', run: okf },
  { ids: ['7'], name: 'size and cold start', run: sizeAndStart },
  { ids: ['8'], name: 'review pass', run: reviewPass },
  { ids: ['9'], name: 'scale: each operation as the store grows', run: scale },
  { ids: ['10'], name: 'calibrate at 100k claims', run: calibrateAtScale },
  { ids: ['11'], name: 'one slot written many times, by shape', run: slotShapes },
  { ids: ['12'], name: 'automatic calibration: cost per write and the longest pause', run: autoCalibrate },
];

const tmp = mkdtempSync(path.join(os.tmpdir(), 'credence-bench-'));
const started = Date.now();
const load0 = os.loadavg()[0];
const rows = [];
const failures = [];
const data = {};
try {
  for (const section of SECTIONS) {
    if (only && !section.ids.some((id) => only.has(id))) continue;
    const t0 = Date.now();
    process.stderr.write(`bench: ${section.name} …`);
    try {
      const result = await section.run({ quick, tmp });
      rows.push(...result.rows);
      failures.push(...(result.failures ?? []));
      data[section.ids.join(',')] = result.data;
      process.stderr.write(` ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    } catch (err) {
      process.stderr.write(' CRASHED\n');
      failures.push(`${section.name}: ${err.stack ?? err}`);
      rows.push(row(section.ids[0], section.name, 'CRASHED', '', '', '', false, String(err.message ?? err).split('\n')[0]));
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const order = (id) => parseFloat(id) + (/[a-z]$/.test(id) ? (id.charCodeAt(id.length - 1) - 96) / 100 : 0);
rows.sort((a, b) => order(a.id) - order(b.id));
const seconds = (Date.now() - started) / 1000;
console.log(`credence bench${quick ? ' --quick' : ''}: Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ` +
  `load average ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}, ${seconds.toFixed(0)} s\n`);
printTable(rows);
const met = rows.filter((r) => r.met === true).length;
const missed = rows.filter((r) => r.met === false).length;
console.log(`\ngoals met: ${met}, missed: ${missed} (speed goals are reported, never enforced)`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ quick, seconds, rows, data }, null, 2));
if (failures.length) {
  console.error(`\nbench FAILED:\n${failures.join('\n')}`);
  process.exit(1);
}
