// The floor under slot-chromium.mjs: what Chromium's IndexedDB costs for the
// records one working-memory write touches, with no engine at all. Per
// iteration, as IndexedDbStore does for a `replace` write: one read-only
// transaction reading the hot slot record (~26 KB, the size slot-chromium
// measured), then one read-write transaction reading it again (the
// compare-and-swap), putting it back, putting 3 claim index rows and adding 2
// log rows, in object stores with IndexedDbStore's indexes. Claim ids are
// random, as the engine's are (`cl_` + 20 hex digits), or `sequential`.
//
//   node bench/workers/idb-floor-chromium.mjs <iterations> <window> [random|sequential] [all|slot|rows|claims|log]
// `slot`: only the slot record's reads and put; `rows`: only the claim and
// log rows; `claims`, `log`: only those rows.
import { start } from '../../js-tests/browser/harness.mjs';

const [iterations = 10_000, window = 1_000] = process.argv.slice(2, 4).map(Number);
const ids = process.argv[4] ?? 'random';
const parts = process.argv[5] ?? 'all';
const browser = await start();
try {
  const page = await browser.context.newPage();
  await page.goto(`${browser.url}tests/pages/cases.html`);
  await page.waitForSelector('body[data-ready]', { state: 'attached' });
  await page.evaluate(async ({ ids, parts }) => {
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open(`idb-floor-${Date.now()}`, 1);
      r.onupgradeneeded = () => {
        const d = r.result;
        const slots = d.createObjectStore('slots', { keyPath: ['scope', 'key'] });
        slots.createIndex('byScope', 'scope');
        slots.createIndex('bySubject', ['scope', 'subject']);
        slots.createIndex('byDirty', ['scope', 'dirty']);
        slots.createIndex('byTag', ['scope', 'key', 'tag']);
        d.createObjectStore('claims', { keyPath: ['scope', 'id'] });
        const log = d.createObjectStore('log', { autoIncrement: true });
        log.createIndex('bySlot', ['scope', 'key']);
      };
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const done = (tx) => new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error); });
    const hex = () => Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => b.toString(16).padStart(2, '0')).join('');
    let n = 0;
    const claimId = () => (ids === 'sequential' ? `cl_${String(n++).padStart(20, '0')}` : `cl_${hex()}`);
    // A slot document of 64 claims, about the size slot-chromium measured (27 KB).
    const claim = (i) => ({ id: claimId(), subject: 'agent', predicate: 'context.current.task', object: `task-r-${String(i).padStart(6, '0')}.`, status: 'superseded', confidence: 0.8, logOdds: 1.386, provenance: [{ sourceId: 'user', observedAt: new Date().toISOString(), sourceTrust: 0.9 }], validFrom: null, recordedAt: new Date().toISOString(), supersededBy: claimId() });
    const slotOf = (i) => ({ version: i, claims: Array.from({ length: 64 }, (_, j) => claim(i * 64 + j)), conflicts: [], writes: [] });
    window.floor = { db, done, claimId, slotOf, times: [], parts };
  }, { ids, parts });
  const started = Date.now();
  for (let from = 0; from < iterations; from += 5_000) {
    await page.evaluate(async ({ from, to }) => {
      const { db, done, claimId, slotOf, times, parts } = window.floor;
      const at = { scope: 'default', key: 'agent\u001fcontext.current.task' };
      for (let i = from; i < to; i++) {
        const t0 = performance.now();
        const read = db.transaction(['slots'], 'readonly');
        read.objectStore('slots').get([at.scope, at.key]);
        await done(read);
        const tx = db.transaction(['slots', 'claims', 'log'], 'readwrite');
        const slots = tx.objectStore('slots');
        const get = slots.get([at.scope, at.key]);
        get.onsuccess = () => {
          if (parts === 'all' || parts === 'slot') slots.put({ ...at, subject: 'agent', slot: slotOf(i), tag: i, dirty: 0 });
          if (parts === 'all' || parts === 'rows' || parts === 'claims') for (let c = 0; c < 3; c++) tx.objectStore('claims').put({ ...at, id: claimId() });
          if (parts === 'all' || parts === 'rows' || parts === 'log') for (let l = 0; l < 2; l++) tx.objectStore('log').add({ ...at, entry: { rule: 'replaced', at: new Date().toISOString(), claimIds: [claimId(), claimId()], note: `the new entry becomes the only active one ${i}` } });
        };
        await done(tx);
        times.push(performance.now() - t0);
      }
    }, { from, to: Math.min(from + 5_000, iterations) });
    process.stderr.write(` floor ${Math.min(from + 5_000, iterations)} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  const out = await page.evaluate((w) => {
    const { times } = window.floor;
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return { firstMs: mean(times.slice(0, w)), lastMs: mean(times.slice(-w)), ratio: mean(times.slice(-w)) / mean(times.slice(0, w)) };
  }, window);
  console.log(JSON.stringify({ store: 'chromium-indexeddb raw records', ids, parts, iterations, window, ...out }));
} finally {
  await browser.stop();
}
