// Issue #43 on a real IndexedDB: slot-stores.mjs's run (one slot written many
// times, its history read back, erased, the raw records searched) inside
// Debian's Chromium, the IndexedDB users' browsers have, instead of
// fake-indexeddb (which holds every record in Node's heap, so its costs grow
// with the garbage collector's work, not with the engine's).
//
//   node bench/workers/slot-chromium.mjs <writes> <window> [shape,...]
//
// One JSON line per shape, with the fields slot-stores.mjs prints.
import { start } from '../../js-tests/browser/harness.mjs';

const [writes = 10_000, window = 1_000] = process.argv.slice(2, 4).map(Number);
const SHAPES = {
  replace: { predicate: 'context.current.task', strategy: 'replace', prefix: 'task-r-' },
  appendCapped: { predicate: 'experience.turns', strategy: 'append', prefix: 'turn-a-' },
  merge_on_read: { predicate: 'notes.turns', strategy: 'merge_on_read', prefix: 'note-m-' },
};
const shapes = process.argv[4] ? process.argv[4].split(',') : Object.keys(SHAPES);
const browser = await start();
try {
  for (const shape of shapes) {
    const page = await browser.context.newPage();
    await page.goto(`${browser.url}tests/pages/cases.html`);
    await page.waitForSelector('body[data-ready]', { state: 'attached' });
    await page.evaluate(async ({ shape, spec }) => {
      const { IndexedDbStore, Memory } = window.credence;
      const name = `slot-chromium-${shape}-${Date.now()}`;
      const store = new IndexedDbStore(name);
      // Time spent inside the store's methods (outermost call only), per write:
      // the engine's share of a write is the rest.
      const inStore = { depth: 0, since: 0, ms: 0 };
      for (let proto = Object.getPrototypeOf(store); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
        for (const key of Object.getOwnPropertyNames(proto)) {
          const fn = Object.getOwnPropertyDescriptor(proto, key).value;
          if (key === 'constructor' || typeof fn !== 'function' || Object.hasOwn(store, key)) continue;
          store[key] = async function (...args) {
            if (inStore.depth++ === 0) inStore.since = performance.now();
            try { return await fn.apply(this, args); } finally { if (--inStore.depth === 0) inStore.ms += performance.now() - inStore.since; }
          };
        }
      }
      const clock = { t: Date.UTC(2026, 0, 1) };
      const memory = new Memory({ store, now: () => new Date(clock.t).toISOString() });
      await memory.remember({ subject: 'agent', predicate: 'context.keep', object: 'control-keep-this-text' }, { strategy: 'replace' });
      window.run = { name, store, memory, clock, spec, times: [], storeTimes: [], inStore };
    }, { shape, spec: SHAPES[shape] });
    const started = Date.now();
    // Batches of 5,000 writes per evaluate, so no single protocol call runs for minutes.
    for (let from = 0; from < writes; from += 5_000) {
      await page.evaluate(async ({ from, to }) => {
        const { memory, clock, spec, times, storeTimes, inStore } = window.run;
        for (let i = from; i < to; i++) {
          clock.t += 1000;
          inStore.ms = 0;
          const t0 = performance.now();
          await memory.remember({ subject: 'agent', predicate: spec.predicate, object: `${spec.prefix}${String(i).padStart(6, '0')}.` }, { strategy: spec.strategy });
          times.push(performance.now() - t0);
          storeTimes.push(inStore.ms);
        }
      }, { from, to: Math.min(from + 5_000, writes) });
      process.stderr.write(` ${shape} ${Math.min(from + 5_000, writes)} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }
    const writeSeconds = (Date.now() - started) / 1000;
    const result = await page.evaluate(async ({ writes, window: w }) => {
      const { name, store, memory, spec, times, storeTimes } = window.run;
      const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const first = mean(times.slice(0, w));
      const last = mean(times.slice(-w));
      const storeFirst = mean(storeTimes.slice(0, w));
      const storeLast = mean(storeTimes.slice(-w));
      const ref = { key: `agent\u001f${spec.predicate}`, subject: 'agent', predicate: spec.predicate };
      const slot = await store.loadSlot(ref);
      const re = new RegExp(`${spec.prefix}(\\d{6})\\.`, 'g');
      // Every record of every object store of the database, searched for the written texts.
      const scan = async () => {
        const db = await new Promise((resolve, reject) => { const r = indexedDB.open(name); r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
        const found = new Set();
        let control = false;
        const names = [...db.objectStoreNames];
        await new Promise((resolve, reject) => {
          const tx = db.transaction(names, 'readonly');
          for (const n of names) {
            const all = tx.objectStore(n).getAll();
            all.onsuccess = () => {
              for (const rec of all.result) {
                const text = JSON.stringify(rec);
                for (const m of text.matchAll(re)) found.add(m[1]);
                if (text.includes('control-keep-this-text')) control = true;
              }
            };
          }
          tx.oncomplete = resolve;
          tx.onerror = () => reject(tx.error);
        });
        db.close();
        return { found: found.size, control };
      };
      const h0 = performance.now();
      const history = await memory.recall('agent', { predicate: spec.predicate, includeHistory: true });
      const historyMs = performance.now() - h0;
      const texts = new Set(history.map((c) => c.object));
      let historyMissing = 0;
      for (let i = 0; i < writes; i++) if (!texts.has(`${spec.prefix}${String(i).padStart(6, '0')}.`)) historyMissing++;
      const before = await scan();
      const e0 = performance.now();
      const erased = await memory.erase({ subject: 'agent', predicate: spec.predicate }, { reason: 'bench: issue #43', by: 'bench' });
      const eraseMs = performance.now() - e0;
      const after = await scan();
      const historyAfterErase = (await memory.recall('agent', { predicate: spec.predicate, includeHistory: true })).length;
      return {
        firstMs: first, lastMs: last, ratio: last / first,
        storeFirstMs: storeFirst, storeLastMs: storeLast, engineFirstMs: first - storeFirst, engineLastMs: last - storeLast,
        slotBytes: new TextEncoder().encode(JSON.stringify(slot)).length, claimsInSlot: slot?.claims?.length ?? null, archived: slot?.archivedClaims ?? 0,
        history: history.length, historyMissing, historyMs,
        rawBefore: before.found, eraseMs, tombstones: erased?.tombstones?.length ?? null,
        survivors: after.found, controlKept: after.control, historyAfterErase, userAgent: navigator.userAgent,
      };
    }, { writes, window });
    console.log(JSON.stringify({ store: 'chromium-indexeddb', shape, writes, window, writeSeconds, ...result }));
    await page.close();
  }
} finally {
  await browser.stop();
}
