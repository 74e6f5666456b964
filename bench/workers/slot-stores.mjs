// Issue #43 on every store: one slot written many times, by shape, then its
// full history read back from the archive and the slot erased, with a check of
// the store's raw bytes that no written text survives. One JSON line per shape.
//
//   node bench/workers/slot-stores.mjs <store> <writes> <window> [shape,...]
//
// store: memory | okf (a bundle in a temp dir) | indexeddb (fake-indexeddb) |
//        pglite (PostgresStore over PGlite) | postgres (a throw-away server of
//        its own: initdb in a temp dir, a free port, stopped at the end)
// shapes (those of slot-shapes.mjs): replace (`context.current.task`),
//        appendCapped (`experience.turns`, append, maxEntries 50),
//        merge_on_read (`notes.turns`)
//
// Every written text is unique and no text is a prefix of another
// (`task-r-000123.`), so the raw bytes are searched with one regular expression
// per shape and the distinct texts found counted: before the erase (all
// `writes` must be there, or the search does not see the archive) and after
// (must be 0). A control slot (`context.keep`) must survive the erase.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { IndexedDbStore, Memory, MemoryStore, OkfStore, POSTGRES_SCHEMA, PostgresStore } from 'credence';

const [kind, writesArg = '10000', windowArg = '1000', shapesArg] = process.argv.slice(2);
const writes = Number(writesArg);
const window = Number(windowArg);
const SHAPES = {
  replace: { predicate: 'context.current.task', strategy: 'replace', text: (i) => `task-r-${pad(i)}.`, re: /task-r-(\d{6})\./g },
  appendCapped: { predicate: 'experience.turns', strategy: 'append', text: (i) => `turn-a-${pad(i)}.`, re: /turn-a-(\d{6})\./g },
  merge_on_read: { predicate: 'notes.turns', strategy: 'merge_on_read', text: (i) => `note-m-${pad(i)}.`, re: /note-m-(\d{6})\./g },
};
const shapes = shapesArg ? shapesArg.split(',') : Object.keys(SHAPES);
for (const s of shapes) if (!SHAPES[s]) throw new Error(`unknown shape ${s}`);
if (writes > 999_999) throw new Error('at most 999,999 writes (six-digit texts)');
const pad = (i) => String(i).padStart(6, '0');
const SUBJECT = 'agent';
const CONTROL = 'control-keep-this-text';
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'credence-slot-stores-'));
let pgServer = null; // { dir, port, bin }
let pool = null;
let pglite = null;
let idb = null;

// ---- stores and their raw bytes ------------------------------------------------

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function startPostgres() {
  const bin = readdirSync('/usr/lib/postgresql').sort().map((v) => `/usr/lib/postgresql/${v}/bin`).filter((b) => existsSync(`${b}/initdb`)).pop();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'credence-pg-'));
  const asPg = process.getuid() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  if (asPg.length) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })));
  const port = await freePort();
  const run = (cmd, args) => execFileSync(asPg[0] ?? cmd, asPg.length ? [...asPg.slice(1), cmd, ...args] : args, { stdio: ['ignore', 'ignore', 'inherit'] });
  run(`${bin}/initdb`, ['-D', `${dir}/data`, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  const opts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off -c synchronous_commit=off`;
  run(`${bin}/pg_ctl`, ['-D', `${dir}/data`, '-l', `${dir}/server.log`, '-w', '-t', '30', '-o', opts, 'start']);
  pgServer = { dir, port, bin, run };
  process.stderr.write(`postgres ${execFileSync(`${bin}/postgres`, ['--version'], { encoding: 'utf8' }).trim()} on 127.0.0.1:${port}\n`);
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

function stopPostgres() {
  if (!pgServer) return;
  try { pgServer.run(`${pgServer.bin}/pg_ctl`, ['-D', `${pgServer.dir}/data`, '-m', 'immediate', 'stop']); } catch { /* already down */ }
  rmSync(pgServer.dir, { recursive: true, force: true });
  pgServer = null;
}

/** A fresh store for one shape, and a function that yields its raw bytes as strings. */
async function open(shape) {
  if (kind === 'memory') {
    const store = new MemoryStore();
    // No bytes outside the engine: everything the store hands back, every slot (archive chunks included) and log.
    return { store, raw: async function* () {
      const refs = new Map();
      for (const r of await store.listSlots({})) refs.set(r.key, r);
      for (const r of await store.listSlots({ subject: `\u001farchive\u001f${SUBJECT}\u001f${SHAPES[shape].predicate}` })) refs.set(r.key, r);
      for (const r of refs.values()) {
        yield JSON.stringify(await store.loadSlot(r));
        yield JSON.stringify(await store.readLog(r));
      }
    } };
  }
  if (kind === 'okf') {
    const dir = path.join(tmp, `okf-${shape}`);
    const store = new OkfStore(dir);
    // Every byte of every file under the bundle (slot files, chunks, log.md, indexes, locks, temps).
    return { store, dir, raw: function* () {
      if (!existsSync(dir)) return;
      for (const d of readdirSync(dir, { recursive: true, withFileTypes: true })) {
        if (d.isFile()) yield readFileSync(path.join(d.parentPath ?? d.path, d.name), 'latin1');
      }
    } };
  }
  if (kind === 'indexeddb') {
    const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
    idb ??= new IDBFactory();
    const name = `slot-stores-${shape}`;
    const store = new IndexedDbStore(name, { indexedDB: idb, IDBKeyRange });
    // Every record of every object store of the database, as JSON.
    return { store, raw: async function* () {
      const parts = await new Promise((resolve, reject) => {
        const req = idb.open(name);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const names = [...db.objectStoreNames];
          const tx = db.transaction(names, 'readonly');
          const out = [];
          for (const n of names) {
            const all = tx.objectStore(n).getAll();
            all.onsuccess = () => { for (const rec of all.result) out.push(JSON.stringify(rec)); };
          }
          tx.oncomplete = () => { db.close(); resolve(out); };
          tx.onerror = () => reject(tx.error);
        };
      });
      yield* parts;
    } };
  }
  if (kind === 'pglite' || kind === 'postgres') {
    let db;
    if (kind === 'pglite') {
      if (!pglite) {
        const { PGlite } = await import('@electric-sql/pglite');
        pglite = new PGlite();
        await pglite.waitReady;
        await pglite.exec(POSTGRES_SCHEMA);
      }
      db = pglite;
    } else {
      if (!pool) {
        const pg = (await import('pg')).default;
        pool = new pg.Pool({ connectionString: await startPostgres(), max: 2 });
      }
      db = pool;
    }
    const store = new PostgresStore(db, { scope: shape });
    await store.ensureSchema();
    // Every row of every table of the schema (all scopes), as the server's text of the row, 2,000 rows at a time.
    return { store, raw: async function* () {
      const { rows: tables } = await db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1");
      for (const { table_name: t } of tables) {
        for (let off = 0; ; off += 2000) {
          const { rows } = await db.query(`SELECT t::text AS row FROM "${t}" t ORDER BY ctid LIMIT 2000 OFFSET ${off}`);
          for (const r of rows) yield r.row;
          if (rows.length < 2000) break;
        }
      }
    } };
  }
  throw new Error(`unknown store ${kind}`);
}

async function scanRaw(raw, re) {
  const found = new Set();
  let control = false;
  for await (const text of raw()) {
    for (const m of text.matchAll(re)) found.add(m[1]);
    if (text.includes(CONTROL)) control = true;
  }
  return { found: found.size, control };
}

// ---- the run ------------------------------------------------------------------

try {
  for (const shape of shapes) {
    const { predicate, strategy, text, re } = SHAPES[shape];
    const { store, raw } = await open(shape);
    let t = Date.UTC(2026, 0, 1);
    const memory = new Memory({ store, now: () => new Date(t).toISOString() });
    await memory.remember({ subject: SUBJECT, predicate: 'context.keep', object: CONTROL }, { strategy: 'replace' });
    const times = new Float64Array(writes);
    const started = process.hrtime.bigint();
    for (let i = 0; i < writes; i++) {
      t += 1000;
      const t0 = process.hrtime.bigint();
      await memory.remember({ subject: SUBJECT, predicate, object: text(i) }, { strategy });
      times[i] = ms(t0);
      if ((i + 1) % 10_000 === 0) process.stderr.write(` ${shape} ${i + 1} (${(ms(started) / 1000).toFixed(0)} s)\n`);
    }
    const writeSeconds = ms(started) / 1000;
    const first = mean(times.subarray(0, window));
    const last = mean(times.subarray(writes - window));
    const ref = { key: `${SUBJECT}\u001f${predicate}`, subject: SUBJECT, predicate };
    const slot = await store.loadSlot(ref);
    const slotBytes = Buffer.byteLength(JSON.stringify(slot));

    const phase = (what) => process.stderr.write(` ${shape}: ${what} (${(ms(started) / 1000).toFixed(0)} s)\n`);
    phase('writes done; recall includeHistory');
    const h0 = process.hrtime.bigint();
    const history = await memory.recall(SUBJECT, { predicate, includeHistory: true });
    const historyMs = ms(h0);
    const historyTexts = new Set(history.map((c) => c.object));
    const historyMissing = Array.from({ length: writes }, (_, i) => text(i)).filter((x) => !historyTexts.has(x)).length;

    phase('raw scan before erase');
    const before = await scanRaw(raw, re);
    // SLOT_ERASE=0: no erase (it grows with the square of the archived claims, see BENCHMARKS.md Session 25).
    let eraseMs = null;
    let erased = null;
    let after = { found: null, control: null };
    let historyAfter = null;
    if (process.env.SLOT_ERASE !== '0') {
      phase('erase');
      const e0 = process.hrtime.bigint();
      erased = await memory.erase({ subject: SUBJECT, predicate }, { reason: 'bench: issue #43', by: 'bench' });
      eraseMs = ms(e0);
      phase('raw scan after erase');
      after = await scanRaw(raw, re);
      historyAfter = (await memory.recall(SUBJECT, { predicate, includeHistory: true })).length;
    }

    console.log(JSON.stringify({
      store: kind, shape, writes, window, writeSeconds,
      firstMs: first, lastMs: last, ratio: last / first,
      slotBytes, claimsInSlot: slot?.claims?.length ?? null, archived: slot?.archivedClaims ?? 0,
      history: history.length, historyMissing, historyMs,
      rawBefore: before.found, eraseMs, tombstones: erased?.tombstones?.length ?? null,
      survivors: after.found, controlKept: after.control, historyAfterErase: historyAfter,
      node: process.version, load: os.loadavg()[0],
    }));
  }
} finally {
  await pool?.end();
  await pglite?.close();
  stopPostgres();
  rmSync(tmp, { recursive: true, force: true });
}
