// Runs store-writer.mjs processes and checks what they acknowledged.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { onLines } from '../lib/lines.mjs';
import { ref } from 'credence/conformance';

const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'workers', 'store-writer.mjs');

/** Starts one writer; `acks` fills as it prints; `exited` resolves with { code, signal, stderr }. */
export function startWriter(config, { onAck } = {}) {
  const child = spawn(process.execPath, [writer, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acks = [];
  let done = false;
  let stderr = '';
  onLines(child.stdout, (line) => {
    if (line.startsWith('ack ')) {
      acks.push(JSON.parse(line.slice(4)));
      onAck?.(acks.length, child);
    } else if (line === 'done') done = true;
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr, done })));
  return { child, acks, exited };
}

/** Every acknowledged write is in its slot exactly once; no claim is there that was not attempted. */
export async function expectAcknowledged(store, acks, { subjects, attempted = () => false } = {}) {
  const bySubject = new Map();
  for (const a of acks) bySubject.set(a.subject, [...(bySubject.get(a.subject) ?? []), a]);
  let total = 0;
  for (let s = 0; s < subjects; s++) {
    const slot = await store.loadSlot(ref(`s${s}`, 'likes'));
    const counts = new Map();
    for (const c of slot?.claims ?? []) counts.set(c.object, (counts.get(c.object) ?? 0) + 1);
    for (const a of bySubject.get(`s${s}`) ?? []) expect(counts.get(a.object), `${a.object} in s${s}`).toBe(1);
    const acked = new Set((bySubject.get(`s${s}`) ?? []).map((a) => a.object));
    for (const [object, n] of counts) {
      expect(n, `${object} in s${s}`).toBe(1);
      if (!acked.has(object)) expect(attempted(object), `${object} was never acknowledged`).toBe(true);
    }
    total += slot?.claims.length ?? 0;
  }
  return total;
}
