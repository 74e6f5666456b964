// Child processes for the reliability runs: chaos writers and fresh-process dumps.
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onLines } from '../lib/lines.mjs';

const workers = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'workers');

/**
 * Starts js-tests/workers/chaos-writer.mjs. `events` fills as it reports;
 * `ready` resolves when its store is open; `exited` with { code, signal, stderr, done }.
 */
export function startChaosWriter(config) {
  const child = spawn(process.execPath, [path.join(workers, 'chaos-writer.mjs'), JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events = [];
  let stderr = '';
  let done = null;
  let onReady;
  const ready = new Promise((resolve) => (onReady = resolve));
  onLines(child.stdout, (line) => {
    if (line === 'ready') onReady(true);
    else if (line.startsWith('done ')) done = JSON.parse(line.slice(5));
    else {
      const space = line.indexOf(' ');
      events.push({ kind: line.slice(0, space), worker: config.worker, ...JSON.parse(line.slice(space + 1)) });
    }
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('close', (code, signal) => {
    onReady(false);
    resolve({ code, signal, stderr, done });
  }));
  return { child, events, ready, exited };
}

/** What a fresh process reads from the store (js-tests/workers/store-dump.mjs). */
export function dumpInFreshProcess(config) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(workers, 'store-dump.mjs'), JSON.stringify(config)], { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`the store did not load in a fresh process: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}
