// Throws random and malformed inputs at every public API of the packed
// package. Every failure must be a CredenceError with a code; no wasm trap,
// no hang, no partial write. Usage: node public-api.fuzz.mjs [calls] [seed]
import * as credence from 'credence';
import { mulberry32 } from '../lib/mulberry32.mjs';

const { Memory, MemoryStore, CredenceError, upgradeBlob, reconcile } = credence;
const CALLS = Number(process.argv[2] ?? 100_000);
const SEED = Number(process.argv[3] ?? Date.now() % 2 ** 31);

const rand = mulberry32(SEED);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const FIELDS = ['subject', 'subjectType', 'predicate', 'object', 'validFrom', 'validTo', 'confidence', 'provenance', 'id',
  'sourceId', 'sourceTrust', 'extractorConf', 'observedAt', 'strategy', 'expectedVersion', 'predicates', 'name', 'cardinality',
  'timeVarying', 'maxEntries', 'disputeMargin', 'key', 'content', 'schema_version', 'entries', 'status', 'budget', 'judge', 'type', 'at',
  'includeHistory', 'consolidate', 'by', 'prior', 'retries', 'memoryTypeDefaults', 'semantic', '__proto__', 'constructor'];
const STRINGS = ['', ' ', 'likes', 'located_in', 'born_on', 'workflow.x', 'experience.y', 'NYC', '2026-01-01', '2026-13-45', 'keep_newer',
  'keep_both', 'REPLACE', 'ask_user', 'org', 'org:acme', 'cl_1', 'cf_1', '\u0000', '\u{1f}', '😀'.repeat(50), 'x'.repeat(20000), 'Ｎｅｗ', '-0', 'NaN'];

function value(depth = 0) {
  const r = rand();
  if (depth > 4 || r < 0.35) return leaf();
  if (r < 0.5) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
  if (r < 0.53) return hostile();
  const o = {};
  for (let i = Math.floor(rand() * 6); i > 0; i--) put(o, pick(FIELDS), value(depth + 1));
  return o;
}
// Own data properties even for "__proto__"/"constructor": the fuzzer must not trip over its own inputs.
function put(o, key, v) {
  Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
}
function withStore(v) {
  const o = {};
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    try { for (const k of Object.keys(v)) put(o, k, v[k]); } catch { /* hostile: pass it whole */ return v; }
  }
  put(o, 'store', store);
  return o;
}
function leaf() {
  return pick([undefined, null, true, false, 0, -0, 1, 0.5, 1.5, -1, NaN, Infinity, -Infinity, 2 ** 53 + 2, 1e308, 42n,
    Symbol('s'), () => 1, async () => { throw new Error('hook boom'); }, new Date(NaN), new Date(0), pick(STRINGS), pick(STRINGS), pick(STRINGS)]);
}
function hostile() {
  return pick([
    new Proxy({}, { get() { throw new Error('hostile getter'); }, ownKeys() { throw new Error('hostile keys'); } }),
    Object.create(null),
    (() => { const a = {}; a.self = a; return a; })(),
    new Map([['predicate', 'x']]),
  ]);
}
function candidate() {
  const c = rand() < 0.6 ? { predicate: pick(STRINGS), object: pick(STRINGS) } : {};
  for (let i = Math.floor(rand() * 4); i > 0; i--) put(c, pick(FIELDS), value(1));
  return rand() < 0.1 ? value() : c;
}

const stats = { calls: 0, ok: 0, refused: 0, codes: {} };
const bad = [];
function check(name, error) {
  if (error instanceof CredenceError && typeof error.code === 'string' && error.code.length > 0) {
    stats.refused++;
    stats.codes[error.code] = (stats.codes[error.code] ?? 0) + 1;
    return;
  }
  bad.push(`${name}: ${error?.constructor?.name}: ${String(error?.message ?? error).slice(0, 200)}`);
}
async function call(name, fn, store) {
  stats.calls++;
  let before;
  try { before = store?.claimCount; } catch (e) { bad.push(`${name}: store unreadable: ${e.message}`); console.error(bad.join("\n")); process.exit(1); }
  try {
    const p = fn();
    await Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error('HANG')), 5000))]);
    stats.ok++;
  } catch (e) {
    if (e?.message === 'HANG') bad.push(`${name}: hung`);
    else check(name, e);
    if (store && store.claimCount !== before && name !== 'rememberMany' && name !== 'mergeEntities') bad.push(`${name}: failed but changed the store`);
  }
}

let store = new MemoryStore();
let memory = new Memory({ store });
await memory.remember({ predicate: 'located_in', object: 'NYC' });
const ops = [
  ['new Memory', () => { memory = new Memory(rand() < 0.2 ? value() : withStore(rand() < 0.5 ? value() : {})); if (!memory) memory = new Memory({ store }); }],
  ['remember', () => memory.remember(candidate(), rand() < 0.5 ? undefined : value()), true],
  ['rememberMany', () => memory.rememberMany(rand() < 0.7 ? [candidate(), candidate()] : value(), value()), true],
  ['recall', () => memory.recall(pick([undefined, 'user', value()]), value())],
  ['why', () => memory.why(pick(['cl_1', value()]))],
  ['conflicts', () => memory.conflicts(value())],
  ['settle', () => memory.settle(value(), value(), value()), true],
  ['undo', () => memory.undo(value()), true],
  ['review', () => memory.review(rand() < 0.5 ? { judge: { findPairs: value, confirmPair: value }, budget: value() } : value()), true],
  ['blob', () => memory.blob(value(), value())],
  ['importBlob', () => memory.importBlob(value(), value())],
  ['entity', () => memory.entity(value(), value())],
  ['mergeEntities', () => memory.mergeEntities(value(), value())],
  ['undoEntityMerge', () => memory.undoEntityMerge(value())],
  ['upgradeBlob', () => upgradeBlob(value())],
  ['reconcile', () => reconcile(candidate(), withStore(rand() < 0.5 ? value() : {}))],
];
const started = Date.now();
for (let i = 0; i < CALLS; i++) {
  if (i % 1000 === 999) {
    // A fresh store now and then keeps accepted 20 KB strings from piling up.
    store.free();
    store = new MemoryStore();
    memory = new Memory({ store });
  }
  const [name, fn, writes] = ops[Math.floor(rand() * ops.length)];
  await call(name, fn, writes ? store : null);
  if (bad.length > 20) break;
}
const ms = Date.now() - started;
console.log(`fuzz seed ${SEED}: ${stats.calls} calls in ${(ms / 1000).toFixed(1)} s — ${stats.ok} accepted, ${stats.refused} refused with a code, ${bad.length} violations`);
console.log('codes:', JSON.stringify(stats.codes));
if (bad.length) {
  console.error([...new Set(bad)].slice(0, 20).join('\n'));
  process.exit(1);
}
