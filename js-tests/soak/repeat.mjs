// Runs a script many times, each in its own Node process (a V8 abort kills the
// process, so a run cannot watch itself), and counts the runs that crash.
//   node js-tests/soak/repeat.mjs [--jobs=N] <runs> <script.mjs> [script args...]
// Every run uses the Node running this file; --jobs runs that many at once
// (default 1). Prints one summary line, `repeat: {json}`, and exits 1 if any
// run failed, with that run's stderr tail.
import { spawn } from 'node:child_process';
import path from 'node:path';

const argv = process.argv.slice(2);
const jobs = argv[0]?.startsWith('--jobs=') ? Number(argv.shift().slice('--jobs='.length)) : 1;
const [runsArg, script, ...args] = argv;
const runs = Number(runsArg);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(jobs) || jobs < 1 || !script) {
  console.error('usage: node js-tests/soak/repeat.mjs [--jobs=N ≥ 1] <runs ≥ 1> <script.mjs> [args...]');
  process.exit(2);
}

function runOnce() {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
  });
}

const failures = [];
const seconds = [];
let next = 1;
async function worker() {
  while (next <= runs) {
    const i = next++;
    const r = await runOnce();
    seconds.push(r.seconds);
    const ok = r.code === 0;
    const how = ok ? 'ok' : `FAILED (${r.signal ? `signal ${r.signal}` : `exit ${r.code}`})`;
    console.log(`run ${i}/${runs}: ${how} in ${r.seconds.toFixed(1)} s ${r.stdout.trim().split('\n').pop() ?? ''}`);
    if (!ok) {
      failures.push(i);
      console.log(r.stderr.trim().split('\n').slice(-12).map((l) => `  | ${l}`).join('\n'));
    }
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, runs) }, worker));
const sorted = [...seconds].sort((a, b) => a - b);
console.log(`repeat: ${JSON.stringify({
  script: path.basename(script), args, node: process.version, runs, jobs, failed: failures.length, failedRuns: failures.sort((a, b) => a - b),
  medianSeconds: Math.round(sorted[sorted.length >> 1] * 10) / 10,
})}`);
process.exit(failures.length ? 1 : 0);
