// Runs a script many times, each in its own Node process (a V8 abort kills the
// process, so a run cannot watch itself), and counts the runs that crash.
//   node js-tests/soak/repeat.mjs <runs> <script.mjs> [script args...]
// Every run uses the Node running this file. Prints one summary line,
// `repeat: {json}`, and exits 1 if any run failed, with that run's stderr tail.
import { spawn } from 'node:child_process';
import path from 'node:path';

const [runsArg, script, ...args] = process.argv.slice(2);
const runs = Number(runsArg);
if (!Number.isInteger(runs) || runs < 1 || !script) {
  console.error('usage: node js-tests/soak/repeat.mjs <runs ≥ 1> <script.mjs> [args...]');
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
for (let i = 1; i <= runs; i++) {
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
const sorted = [...seconds].sort((a, b) => a - b);
console.log(`repeat: ${JSON.stringify({
  script: path.basename(script), args, node: process.version, runs, failed: failures.length, failedRuns: failures,
  medianSeconds: Math.round(sorted[sorted.length >> 1] * 10) / 10,
})}`);
process.exit(failures.length ? 1 : 0);
