// Timing, statistics and the printed table shared by every bench section.
import { spawnSync } from 'node:child_process';

export const now = () => process.hrtime.bigint();
export const nsSince = (t0) => Number(process.hrtime.bigint() - t0);

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs `fn` (async) `reps` times after `warmup` runs; returns each run's value. */
export async function repeat(reps, fn, warmup = 1) {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const out = [];
  for (let i = 0; i < reps; i++) out.push(await fn(i));
  return out;
}

/** The median ns of `reps` calls of `fn(i)`, after one unrecorded call `fn(-1)`. */
export async function medianOf(reps, fn) {
  await fn(-1);
  const runs = [];
  for (let i = 0; i < reps; i++) {
    const t0 = now();
    await fn(i);
    runs.push(nsSince(t0));
  }
  return median(runs);
}

export function gc() {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
}

/** Human units for ns. */
export function fmtNs(ns) {
  if (!Number.isFinite(ns)) return '—';
  if (ns < 1e3) return `${ns.toFixed(ns < 10 ? 1 : 0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

export const fmtX = (x) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(2) : x.toFixed(x < 100 ? 1 : 0)}×` : '—');
export const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
export const fmtBytes = (b) => (b < 1024 * 1024 ? `${(b / 1024).toFixed(1)} KB` : `${(b / 1024 / 1024).toFixed(1)} MB`);
export const perSec = (nsPerOp) => `${fmtInt(1e9 / nsPerOp)}/s`;

/**
 * One row of the table: `goal` is a string, `met` true/false/undefined (no goal).
 * `note` is printed under the table, keyed by the row id.
 */
export function row(id, measure, credence, baseline, ratio, goal = '', met = undefined, note = '') {
  return { id, measure, credence, baseline, ratio, goal, met, note };
}

export function printTable(rows, out = console.log) {
  const head = ['#', 'measure', 'credence', 'baseline', 'ratio', 'goal', 'met'];
  const cells = rows.map((r) => [r.id, r.measure, r.credence, r.baseline, r.ratio, r.goal, r.met === undefined ? '' : r.met ? 'yes' : 'NO']);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => String(c[i]).length)));
  const line = (c) => `| ${c.map((x, i) => String(x).padEnd(widths[i])).join(' | ')} |`;
  out(line(head));
  out(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) out(line(c));
  const notes = rows.filter((r) => r.note);
  if (notes.length) {
    out('');
    for (const r of notes) out(`${r.id}: ${r.note}`);
  }
}

/** Runs a command synchronously; throws with its output when it fails. */
export function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${(r.stderr || '').slice(-4000)}\n${(r.stdout || '').slice(-2000)}`);
  }
  return r;
}

/** The last line of stdout parsed as JSON (child benches print one JSON line last). */
export function lastJson(stdout) {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/** A distinct, pronounceable-enough word per (i, salt). */
function word(i, salt) {
  let x = (Math.imul(i + 1, 2654435761) ^ Math.imul(salt + 7, 40503)) >>> 0;
  let s = '';
  for (let k = 0; k < 9; k++) {
    s += String.fromCharCode(97 + (x % 26));
    x = (Math.imul(x ^ (x >>> 13), 1103515245) + 12345 + k) >>> 0;
  }
  return s;
}

/** Org name number `i`: two words, so that names share no word (no near matches, no same_entity questions). */
export const orgName = (i) => `${word(i, 1)} ${word(i, 2)}`;

/** The subject of the entity slots: one per entity, its id the predicate (issue #44). */
export const ENTITY = '\u001fentity';

/**
 * Whether a slot kept as JSON text (`{ ref, ... }`) is one memory keeps for itself
 * (an entity's slot, the calibration record, ...): by its parsed subject, as JSON
 * writes U+001F as an escape a text search would miss.
 */
export const isReservedText = (text) => JSON.parse(text).ref.subject.startsWith('\u001f');
