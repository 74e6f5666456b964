// The reconcile workload every section shares: deterministic (seeded) candidates
// over slots of 1–20 writes each, mixing the relations of SPEC §3 — confirm,
// refine, independent (multi-valued), supersede (newer valid time), historical
// (older valid time) and contradict (single, not time-varying). The native
// bench reads the very same candidates from a JSON file, so both sides run
// identical work.
import { mulberry32 } from '../js-tests/lib/mulberry32.mjs';

/** The workload's PRNG: every run writes the same candidates. */
export const rng = mulberry32;


const CITIES = ['NYC', 'San Francisco', 'Berlin', 'Lisbon', 'Tokyo', 'Austin', 'Paris', 'Toronto', 'Seoul', 'Nairobi'];
const FOODS = ['sushi', 'ramen', 'tacos', 'pho', 'dumplings', 'curry', 'pizza', 'falafel', 'paella', 'kimchi'];
const ORGS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Tyrell'];
const DATES = ['1990-01-02', '1990-02-01', '1989-12-31', '1991-07-04'];
const SOURCES = ['chat', 'email', 'crm', 'calendar'];

// predicate → value pool; located_in/works_at are single + time-varying,
// likes/allergic_to multi-valued, born_on single and not time-varying.
const KINDS = [
  { predicate: 'located_in', pool: CITIES, weight: 3 },
  { predicate: 'works_at', pool: ORGS, weight: 2 },
  { predicate: 'likes', pool: FOODS, weight: 3 },
  { predicate: 'allergic_to', pool: FOODS, weight: 1 },
  { predicate: 'born_on', pool: DATES, weight: 1 },
];
const TOTAL_WEIGHT = KINDS.reduce((n, k) => n + k.weight, 0);

function pickKind(r) {
  let x = r() * TOTAL_WEIGHT;
  for (const k of KINDS) {
    if ((x -= k.weight) < 0) return k;
  }
  return KINDS[0];
}

const day = (n) => new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

/** The candidates of one slot: 1–20 writes, relations mixed. */
function slotWrites(r, subject, kind, count, tag) {
  const out = [];
  const said = [];
  let t = Math.floor(r() * 200);
  for (let i = 0; i < count; i++) {
    const roll = r();
    let object;
    if (said.length && roll < 0.25) object = said[Math.floor(r() * said.length)]; // confirm
    else if (said.length && roll < 0.35 && kind.predicate !== 'born_on') object = `${said[said.length - 1]} ${tag}`; // refine
    else object = kind.pool[Math.floor(r() * kind.pool.length)] + (r() < 0.5 ? '' : ` ${1 + Math.floor(r() * 9)}`);
    said.push(object);
    const older = kind.predicate !== 'born_on' && i > 0 && r() < 0.1;
    t += older ? -30 : 1 + Math.floor(r() * 40);
    const c = {
      subject,
      predicate: kind.predicate,
      object,
      provenance: { sourceId: SOURCES[Math.floor(r() * SOURCES.length)], sourceTrust: Math.round((0.55 + r() * 0.4) * 100) / 100 },
    };
    if (kind.predicate !== 'born_on') c.validFrom = day(t);
    if (r() < 0.3) c.confidence = Math.round((0.5 + r() * 0.5) * 100) / 100;
    out.push(c);
  }
  return out;
}

/**
 * About `writes` candidates over slots of 1–20 writes each, interleaved
 * (shuffled) the way turns from many conversations arrive. `prefix` names the
 * subjects, so two workloads with different prefixes never share a slot.
 */
export function workload(writes, { seed = 42, prefix = 'u' } = {}) {
  const r = rng(seed);
  const slots = [];
  let total = 0;
  for (let s = 0; total < writes; s++) {
    const count = Math.min(1 + Math.floor(r() * 20), writes - total);
    slots.push(slotWrites(r, `${prefix}${s}`, pickKind(r), count, `(${String.fromCharCode(97 + (s % 26))})`));
    total += count;
  }
  // Interleave: repeatedly take the next write of a random slot, keeping each slot's order.
  const out = [];
  const cursors = slots.map(() => 0);
  const open = slots.map((_, i) => i);
  while (open.length) {
    const j = Math.floor(r() * open.length);
    const i = open[j];
    out.push(slots[i][cursors[i]++]);
    if (cursors[i] === slots[i].length) open.splice(j, 1);
  }
  return out;
}

/** Candidates grouped by slot, in workload order (for batch writes). */
export function bySlot(candidates) {
  const groups = new Map();
  for (const c of candidates) {
    const key = `${c.subject}\u001f${c.predicate}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(c);
  }
  return [...groups.values()];
}

/** action → count, sorted by name: the fingerprint both sides must agree on. */
export function histogram(outcomes) {
  const h = {};
  for (const o of outcomes) h[o.action] = (h[o.action] ?? 0) + 1;
  return Object.fromEntries(Object.entries(h).sort(([a], [b]) => a.localeCompare(b)));
}
