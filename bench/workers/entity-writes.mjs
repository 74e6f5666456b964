// Issue #44's goal: what an entity-typed write costs next to a plain write, on
// one store holding `entities` orgs. Each entity is a slot of its own (subject
// "\u001fentity", its id the predicate) and the store answers names by key
// (`findEntities`); a new name costs a look-up of its exact keys, one of its
// near keys and the commit of the new entity's slot, a known name the
// look-up and loads of the entity's slot.
//
//   node bench/workers/entity-writes.mjs <store> <entities> <rounds> [tmpdir]
//
// store: memory | okf (a bundle under tmpdir) | indexeddb (fake-indexeddb) |
//        pglite (PostgresStore over PGlite) | postgres (on DATABASE_URL, else
//        inside a throw-away server: scripts/lib/pg-server.sh; exit 97 when
//        none can be started)
//
// The store is filled by another writer (a second Memory on the same store):
// rememberMany of 500 `works_at` writes at a time, `u<i> works_at <org i>`,
// names of two words that share no word with any other (bench/lib.mjs
// orgName), so each write files one new org. The timed writer then writes,
// untimed, once about each org its `knownName` and `worksKnown` writes will
// name (an engine remembers the names it resolved; a service sees the same
// names again). Then `rounds` rounds (after a tenth as many unrecorded), each
// one write of every kind below in an order that rotates per round, so the
// machine's noise falls on all kinds alike. Every write makes a new slot with
// one claim:
//
//   plain       u<j> likes "thing r"                      (no entity type)
//   newName     <new org> likes "thing r", subjectType org (a name never seen)
//   knownName   <org j> likes "thing r", subjectType org   (a name this writer wrote before)
//   knownCold   <org k> likes "thing r", subjectType org   (a name of the fill, new to this writer)
//   plainSingle x<r> located_in "City r"                   (single-valued, no entity type)
//   worksNew    y<r> works_at <new org>                    (objectType org)
//   worksKnown  z<r> works_at <org j'>                     (written before by this writer)
//
// The subjectType kinds against `plain` are the entity's cost alone (same
// predicate, same slot); the works_at pair is set against `plainSingle`.
// Automatic calibration is off. Printed: medians per kind, the ratios, and for
// the JS stores (whose methods are wrapped with timers) the store calls per
// write by method (count and median time), the median time outside them
// (engine and bridge; below zero when a write's calls overlap), each kind's
// calls in the last round, and one JSON line last.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Memory } from 'credence';
import { median, nsSince, now, orgName } from '../lib.mjs';
import { closeStores, openStore } from './stores.mjs';

const [kind, entitiesArg = '10000', roundsArg = '300', tmpArg] = process.argv.slice(2);

if (kind === 'postgres' && !process.env.DATABASE_URL) {
  // A throw-away server for this run, as bench section 9 does.
  const root = path.resolve(import.meta.dirname, '../..');
  const script = 'source scripts/lib/pg-server.sh && { pg_server_start -c synchronous_commit=off >&2 || exit 97; } && node "$@"';
  const r = spawnSync('bash', ['-c', script, 'bash', ...process.execArgv, import.meta.filename, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const entities = Number(entitiesArg);
const rounds = Number(roundsArg);
const warmRounds = Math.max(5, Math.ceil(rounds / 10));
const tmp = tmpArg ?? mkdtempSync(path.join(os.tmpdir(), 'credence-entity-writes-'));
const log = (msg) => process.stderr.write(`entity-writes ${kind}: ${msg}\n`);

const store = await openStore(kind, `entity-writes-${entities}`, tmp);

// Store calls per write, by method (JS stores: the engine looks each method up on the object per call).
const METHODS = ['findEntities', 'loadSlot', 'loadSlotToWrite', 'commitSlot', 'listSlots', 'findWrite', 'findClaim', 'readLog'];
let calls = null; // method -> { n, ns } of the write being timed
let trace = null; // the calls of the write being timed, in order: [method, ms, what]
const what = (m, args, out) => (m === 'findEntities' ? `${args[0].keys.length} keys → ${out?.length} rows`
  : m === 'commitSlot' ? `${JSON.stringify(args[0].ref.subject)}/${args[0].ref.predicate}${args[0].index?.entity ? ` +${args[0].index.entity.keys.length} key rows` : ''}`
    : m === 'listSlots' ? JSON.stringify(args[0]) : args[0]?.subject !== undefined ? `${JSON.stringify(args[0].subject)}/${args[0].predicate}` : '');
if (kind !== 'memory') {
  for (const m of METHODS) {
    const f = store[m];
    if (typeof f !== 'function') continue;
    store[m] = async function timed(...args) {
      const t0 = now();
      let out;
      try {
        out = await f.apply(store, args);
        return out;
      } finally {
        if (calls) {
          const c = (calls[m] ??= { n: 0, ns: 0 });
          const ns = nsSince(t0);
          c.n++;
          c.ns += ns;
          trace?.push([m, Number((ns / 1e6).toFixed(3)), what(m, args, out)]);
        }
      }
    };
  }
}

// No automatic calibration: it loads every slot of a predicate in the background
// (section 12 measures it), which would overlap the timed writes.
const memory = new Memory({ store, calibrate: false });

// ---- fill ---------------------------------------------------------------------
const filler = new Memory({ store, calibrate: false });
const t0 = now();
for (let i = 0; i < entities; i += 500) {
  await filler.rememberMany(Array.from({ length: Math.min(500, entities - i) }, (_, k) => ({ subject: `u${i + k}`, predicate: 'works_at', object: orgName(i + k) })));
  if ((i / 500) % 4 === 3) log(`filled ${i + 500} (${(nsSince(t0) / 1e9).toFixed(0)} s)`);
}
const fillSeconds = nsSince(t0) / 1e9;
log(`${entities} entities in ${fillSeconds.toFixed(1)} s`);

// ---- the writes ---------------------------------------------------------------
// j: a fill index per round, spread over the fill (a different org and subject each round).
const pick = (r, salt) => Math.abs((r + 1000) * 7919 + salt * 104729) % entities;
const KINDS = {
  plain: (r) => ({ subject: `u${pick(r, 1)}`, predicate: 'likes', object: `thing ${r}` }),
  newName: (r) => ({ subject: orgName(10_000_000 + r), subjectType: 'org', predicate: 'likes', object: `thing ${r}` }),
  knownName: (r) => ({ subject: orgName(pick(r, 2)), subjectType: 'org', predicate: 'likes', object: `thing ${r}` }),
  knownCold: (r) => ({ subject: orgName(pick(r, 5)), subjectType: 'org', predicate: 'likes', object: `thing ${r}` }),
  plainSingle: (r) => ({ subject: `x${r}`, predicate: 'located_in', object: `City ${r}` }),
  worksNew: (r) => ({ subject: `y${r}`, predicate: 'works_at', object: orgName(20_000_000 + r) }),
  worksKnown: (r) => ({ subject: `z${r}`, predicate: 'works_at', object: orgName(pick(r, 3)) }),
};
const names = Object.keys(KINDS);
// The names `knownName` and `worksKnown` will write, once each by this writer (untimed).
for (let r = 0; r < rounds + warmRounds; r++) {
  await memory.remember({ subject: orgName(pick(r, 2)), subjectType: 'org', predicate: 'located_in', object: 'City seen' }); // another slot: `likes` stays new
  await memory.remember({ subject: `s${r}`, predicate: 'works_at', object: orgName(pick(r, 3)) });
}
const times = Object.fromEntries(names.map((k) => [k, []]));
const outside = Object.fromEntries(names.map((k) => [k, []])); // the write's time outside store calls (engine, bridge)
const perCall = Object.fromEntries(names.map((k) => [k, {}])); // kind -> method -> { n: [], ns: [] }
const rules = Object.fromEntries(names.map((k) => [k, {}])); // how the names resolved, as a check
const traces = {}; // kind -> the store calls of its write in the last round

for (let r = -warmRounds; r < rounds; r++) {
  const order = names.map((_, i) => names[(i + r + warmRounds) % names.length]);
  for (const k of order) {
    calls = {};
    trace = r === rounds - 1 ? [] : null;
    const w0 = now();
    const outcome = await memory.remember(KINDS[k](r + warmRounds)); // r + warmRounds ≥ 0: distinct names throughout
    const ns = nsSince(w0);
    if (r < 0) continue;
    times[k].push(ns);
    outside[k].push(ns - Object.values(calls).reduce((a, c) => a + c.ns, 0));
    if (trace) traces[k] = trace;
    for (const m of METHODS) {
      const c = calls[m] ?? { n: 0, ns: 0 };
      const p = (perCall[k][m] ??= { n: [], ns: [] });
      p.n.push(c.n);
      p.ns.push(c.ns);
    }
    for (const res of outcome.resolutions ?? []) rules[k][res.rule] = (rules[k][res.rule] ?? 0) + 1;
  }
  calls = null;
  if (r >= 0 && (r + 1) % 100 === 0) log(`round ${r + 1} of ${rounds}`);
}

const med = Object.fromEntries(names.map((k) => [k, median(times[k])]));
const ratios = {
  newName: med.newName / med.plain,
  knownName: med.knownName / med.plain,
  knownCold: med.knownCold / med.plain,
  worksNew: med.worksNew / med.plainSingle,
  worksKnown: med.worksKnown / med.plainSingle,
};
const outsideNs = kind === 'memory' ? null : Object.fromEntries(names.map((k) => [k, median(outside[k])]));
const storeCalls = kind === 'memory' ? null : Object.fromEntries(names.map((k) => [k, Object.fromEntries(
  Object.entries(perCall[k]).filter(([, p]) => p.n.some((n) => n > 0)).map(([m, p]) => [m, { calls: p.n.reduce((a, b) => a + b, 0) / p.n.length, medianNs: median(p.ns) }]),
)]));

const ms = (ns) => `${(ns / 1e6).toFixed(3)} ms`;
console.log(`${kind}, ${entities} entities, ${rounds} rounds (medians; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
for (const k of names) {
  const c = storeCalls?.[k] ? `  store: ${Object.entries(storeCalls[k]).map(([m, v]) => `${m} ×${v.calls.toFixed(2)} ${ms(v.medianNs)}`).join(', ')}` : '';
  const o = outsideNs ? `  outside the store ${ms(outsideNs[k])};` : '';
  console.log(`  ${k.padEnd(12)} ${ms(med[k]).padStart(11)}  resolved ${JSON.stringify(rules[k])}${o}${c}`);
}
if (storeCalls) {
  console.log('  store calls of each kind\'s write in the last round:');
  for (const k of names) console.log(`    ${k}: ${traces[k].map(([m, t, w]) => `${m}(${w}) ${t} ms`).join('; ')}`);
}
console.log(`  new name / plain ${ratios.newName.toFixed(2)}× (goal ≤ 1.5×), known name / plain ${ratios.knownName.toFixed(2)}× (goal ≤ 1.1×; new to this writer ${ratios.knownCold.toFixed(2)}×)`);
console.log(`  works_at new / located_in ${ratios.worksNew.toFixed(2)}×, works_at known / located_in ${ratios.worksKnown.toFixed(2)}×`);
console.log(JSON.stringify({ store: kind, entities, rounds, fillSeconds, medianNs: med, ratios, rules, outsideNs, storeCalls, traces: storeCalls ? traces : null, node: process.version, load: os.loadavg() }));

await closeStores();
if (!tmpArg) rmSync(tmp, { recursive: true, force: true });
