// OkfStore: the conformance suite, then what only a markdown bundle has —
// readable files, a fresh reader, broken files, atomic writes.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, readFileSync, writeFileSync, readdirSync, existsSync, statSync, linkSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { CredenceError, Memory, OkfStore } from 'credence';
import { AWKWARD, T0, claim, commit, conflict, normalize, ref, runStoreConformance, slot } from 'credence/conformance';

const root = mkdtempSync(path.join(tmpdir(), 'credence-okf-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const bundle = () => path.join(root, `b${++n}`);

// Scopes of one parent directory share it, as tenants of one bundle root would.
const shared = path.join(root, 'shared');
/** Every byte of every file under `dir` (slot files, log.md, locks, temps, anything else). */
function bundleBytes(dir) {
  if (!existsSync(dir)) return '';
  if (statSync(dir).isFile()) return readFileSync(dir, 'latin1');
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => readFileSync(path.join(d.parentPath ?? d.path, d.name), 'latin1'))
    .join('\n');
}

// Vitest's test functions, for the suite (this repo's Vitest runs without globals).
const test = { describe, it, expect, afterEach };

runStoreConformance('OkfStore', async ({ scope }) => {
  const store = new OkfStore(shared, { scope });
  return {
    store,
    reopen: () => new OkfStore(shared, { scope }),
    raw: async () => bundleBytes(store.dir),
    dropIndexes: () => rmSync(path.join(shared, 'scopes', scope, 'index'), { recursive: true, force: true }),
  };
}, { test });

/** A slot file with its front matter rewritten as block-style YAML (as older versions wrote it). */
function blockStyle(text) {
  const end = text.indexOf('\n---\n');
  const data = YAML.parse(text.slice(4, end + 1));
  const yaml = YAML.stringify(data, { lineWidth: 0, aliasDuplicateObjects: false, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
  return `---\n${yaml}${text.slice(end + 1)}`;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const reader = path.join(here, '..', 'workers', 'okf-dump.mjs');

describe('OkfStore — the bundle on disk', () => {
  it('writes claims/*.md with front matter and a readable body, and log.md', async () => {
    const dir = bundle();
    const memory = new Memory({ store: new OkfStore(dir) });
    await memory.remember({ predicate: 'located_in', object: 'NYC', validFrom: '2024-01-01' });
    await memory.remember({ predicate: 'located_in', object: 'San Francisco', validFrom: '2025-06-01' });
    await memory.remember({ subject: 'Alice', predicate: 'likes', object: 'green tea' });
    expect(readdirSync(path.join(dir, 'claims')).sort()).toEqual(['^alice~likes.md', 'user~located_in.md']);
    expect(existsSync(path.join(dir, 'entities'))).toBe(false); // only old bundles have one (entities are slots in claims/)
    const text = readFileSync(path.join(dir, 'claims', 'user~located_in.md'), 'utf8');
    const [, front, body] = text.split(/^---$/m);
    const data = YAML.parse(front);
    expect(data).toMatchObject({ format: 'credence-okf/1', subject: 'user', predicate: 'located_in', version: 2 });
    expect(data.claims.map((c) => [c.object, c.status])).toEqual([['NYC', 'superseded'], ['San Francisco', 'active']]);
    expect(body).toContain('# user · located_in');
    expect(body).toMatch(/\*\*San Francisco\*\* — active, confidence 0\.\d\d/);
    const log = readFileSync(path.join(dir, 'log.md'), 'utf8');
    expect(log.startsWith('# credence log')).toBe(true);
    expect(log).toMatch(/### .* · user · located_in · v2\n\n- \*\*supersede\*\*: /);
    expect(log.match(/<!-- credence:log /g)).toHaveLength(3);
  });

  it('indexes claim ids in a few bucket files, not one file per claim, and a fresh reader finds every id through them', async () => {
    const dir = bundle();
    const memory = new Memory({ store: new OkfStore(dir) });
    const outcomes = await memory.rememberMany(Array.from({ length: 400 }, (_, i) => ({ subject: `s${i}`, predicate: 'likes', object: `thing ${i}` })));
    const idsDir = path.join(dir, 'index', 'by-id', 'claims');
    const files = readdirSync(idsDir);
    expect(files.every((f) => /^[0-9a-f]{2}\.ids$/.test(f))).toBe(true);
    expect(files.length).toBeLessThan(400);
    for (const o of outcomes.slice(0, 25)) {
      const bucket = createHash('sha256').update(o.claim.id).digest('hex').slice(0, 2);
      expect(readFileSync(path.join(idsDir, `${bucket}.ids`), 'utf8')).toContain(`\n${encodeURIComponent(o.claim.id)}\t`);
    }
    // A write torn by a crash leaves a partial line: it joins nothing.
    writeFileSync(path.join(idsDir, files[0]), readFileSync(path.join(idsDir, files[0]), 'utf8') + '\ncl_torn%20li');
    const fresh = new OkfStore(dir);
    for (const o of outcomes.filter((_, i) => i % 37 === 0)) {
      expect(await fresh.findClaim(o.claim.id)).toMatchObject({ subject: o.claim.subject, predicate: 'likes' });
    }
    const again = new Memory({ store: new OkfStore(dir) });
    const later = await again.remember({ subject: 's3', predicate: 'likes', object: 'one more' });
    expect((await new OkfStore(dir).findClaim(later.claim.id))?.subject).toBe('s3');
    expect(await new OkfStore(dir).findClaim('cl_not_there')).toBeFalsy();
  });

  it('is read back exactly by a fresh process', async () => {
    const dir = bundle();
    const store = new OkfStore(dir);
    const memory = new Memory({ store });
    await memory.remember({ predicate: 'born_on', object: '1990-01-01', provenance: { sourceId: 'a' } });
    await memory.remember({ predicate: 'born_on', object: '1991-02-02', provenance: { sourceId: 'b' } });
    await memory.remember({ predicate: 'likes', object: 'line one\n---\nnull: "yes" 🎉', id: 'w-1' });
    const dumped = JSON.parse(execFileSync(process.execPath, [reader, dir], { encoding: 'utf8' }));
    const refs = await store.listSlots({});
    expect(dumped.refs).toEqual(refs);
    for (const r of refs) {
      expect(normalize(dumped.slots[r.key])).toEqual(normalize(await store.loadSlot(r)));
      expect(normalize(dumped.logs[r.key])).toEqual(normalize(await store.readLog(r)));
    }
    expect(dumped.conflicts).toHaveLength(1);
  });

  it('writes front matter any YAML parser reads as the slot, and reads block-style YAML too', async () => {
    const dir = bundle();
    const store = new OkfStore(dir);
    // Every awkward text in every string field, plus the characters JSON leaves raw and YAML does not.
    const texts = [...AWKWARD, 'C1 \u0085 and \u009f, separators \u2028 \u2029, BOM \ufeff, \ufffe', 'lone \ud800 surrogate', ''];
    const claims = texts.map((text, i) => claim(`cl_${i}`, text || 'x', {
      provenance: [{ sourceId: text || 's', sourceTrust: 0.5 + i / 100, observedAt: T0 }],
      confidence: 1 / 3,
      logOdds: -1e-7 * (i + 1),
      ...(i % 2 ? { validFrom: T0 } : {}),
    }));
    const conflicts = [conflict('cf_1', 'cl_0', 'cl_1', { reason: texts[1] })];
    const writes = [{ id: texts[2], claimId: 'cl_0', action: 'added' }];
    const r = ref(texts[0], 'likes: # "x"');
    const next = slot(1, claims.map((c) => ({ ...c, subject: r.subject, predicate: r.predicate })), { conflicts, writes });
    expect(await store.commitSlot(commit(r, 0, next))).toBe(true);
    const [name] = readdirSync(path.join(dir, 'claims'));
    const text = readFileSync(path.join(dir, 'claims', name), 'utf8');
    const front = text.slice(4, text.indexOf('\n---\n') + 1);
    // One line per top-level scalar and per list item (the shape credence reads without the YAML parser).
    expect(front.split('\n').filter((l) => !/^(?:[a-z]+: \S.*|[a-z]+:|  - [{"].*|)$/.test(l))).toEqual([]);
    expect(front.split('\n').filter((l) => l.startsWith('  - {"id": "cl_'))).toHaveLength(texts.length);
    // A YAML parser (not credence's fast path) reads exactly the slot.
    const data = YAML.parse(front);
    expect(normalize({ version: data.version, claims: data.claims, conflicts: data.conflicts, writes: data.writes, reviewed: data.reviewed }))
      .toEqual(normalize(next));
    expect([data.subject, data.predicate]).toEqual([r.subject, r.predicate]);
    // credence reads the same back, from its own format and from block-style YAML of the same data.
    expect(normalize(await new OkfStore(dir).loadSlot(r))).toEqual(normalize(next));
    writeFileSync(path.join(dir, 'claims', name), blockStyle(text));
    expect(blockStyle(text)).toContain('\n    status: "active"\n');
    expect(normalize(await new OkfStore(dir).loadSlot(r))).toEqual(normalize(next));
  });

  it('names a hand-broken file in a MALFORMED_STORE_DATA error and keeps the rest readable', async () => {
    const dir = bundle();
    const memory = new Memory({ store: new OkfStore(dir) });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    const kept = await memory.remember({ predicate: 'located_in', object: 'Oslo' });
    await memory.remember({ subject: 'bob', predicate: 'likes', object: 'coffee' });
    const file = path.join(dir, 'claims', 'user~likes.md');
    const fresh = () => new Memory({ store: new OkfStore(dir) });
    const cases = [
      ['not yaml', (t) => t.replace('claims:', 'claims: [oops')],
      ['bad status', (t) => t.replace('"status": "active"', '"status": "actve"')],
      ['bad status, block style', (t) => blockStyle(t).replace('status: "active"', 'status: "actve"')],
      ['no front matter', () => 'just some notes\n'],
      ['other slot', (t) => t.replace('predicate: "likes"', 'predicate: "dislikes"')],
      ['negative version', (t) => t.replace(/^version: \d+$/m, 'version: -3')],
    ];
    const original = readFileSync(file, 'utf8');
    for (const [label, breakIt] of cases) {
      writeFileSync(file, breakIt(original));
      const err = await fresh().recall('user').catch((e) => e);
      expect(err, label).toBeInstanceOf(CredenceError);
      expect(err.code, label).toBe('MALFORMED_STORE_DATA');
      expect(err.message, label).toContain(file);
      // Other slots and subjects still read; a write to the broken slot is refused, not lost.
      expect((await fresh().recall('bob')).map((c) => c.object)).toEqual(['coffee']);
      expect((await fresh().why(kept.claim.id)).claim.object).toBe('Oslo');
      const write = await fresh().remember({ predicate: 'likes', object: 'cake' }).catch((e) => e);
      expect(write.code, label).toBe('MALFORMED_STORE_DATA');
    }
    writeFileSync(file, original);
    expect((await fresh().recall('user')).map((c) => c.object).sort()).toEqual(['Oslo', 'tea']);
    const logFile = path.join(dir, 'log.md');
    // Damage a record of the slot `why` reads (its blocks are found through index/log/, so a
    // damaged record elsewhere in log.md no longer fails this read).
    const lines = readFileSync(logFile, 'utf8').split('\n');
    const damaged = lines.findIndex((l) => l.startsWith('<!-- credence:log ') && l.includes(kept.claim.id));
    lines[damaged] = lines[damaged].replace('{"k":', '{"k":,');
    writeFileSync(logFile, lines.join('\n'));
    const err = await fresh().why(kept.claim.id).catch((e) => e);
    expect([err.code, err.message.includes(`${logFile}:`)]).toEqual(['MALFORMED_STORE_DATA', true]);
    expect((await fresh().recall('user')).length).toBe(2);
  });

  it('leaves no temp or lock files behind and ignores foreign files', async () => {
    const dir = bundle();
    const store = new OkfStore(dir);
    const memory = new Memory({ store });
    await Promise.all(Array.from({ length: 10 }, (_, i) => memory.remember({ predicate: 'likes', object: `x${i}` }).catch(() => null)));
    writeFileSync(path.join(dir, 'claims', 'NOTES.md'), 'my own notes\n');
    expect(readdirSync(path.join(dir, 'claims'))).toEqual(['NOTES.md', 'user~likes.md']);
    expect((await store.listSlots({})).map((r) => r.predicate)).toEqual(['likes']);
  });

  it('keeps bundles and scopes apart on disk', async () => {
    const dir = bundle();
    await new Memory({ store: new OkfStore(dir, { scope: 'tenant-a' }) }).remember({ predicate: 'likes', object: 'tea' });
    await new Memory({ store: new OkfStore(dir) }).remember({ predicate: 'likes', object: 'rum' });
    expect(existsSync(path.join(dir, 'scopes', 'tenant-a', 'claims', 'user~likes.md'))).toBe(true);
    const other = new Memory({ store: new OkfStore(dir, { scope: 'tenant-b' }) });
    expect(await other.recall('user')).toEqual([]);
    expect((await new Memory({ store: new OkfStore(dir) }).recall('user')).map((c) => c.object)).toEqual(['rum']);
    expect(() => new OkfStore(dir, { scope: '../escape' })).toThrow(CredenceError);
    expect(() => new OkfStore('')).toThrow(CredenceError);
  });

  it('reads a slot whose log was cut by a crash: only committed versions count', async () => {
    const dir = bundle();
    const store = new OkfStore(dir);
    const memory = new Memory({ store });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    const r = ref('user', 'likes');
    const before = await store.readLog(r);
    // A writer that appended its log block for version 2 and died before renaming.
    const logFile = path.join(dir, 'log.md');
    const ghost = { k: r.key, v: 2, c: 'dead', e: { ...before[0], version: 2, note: 'never committed' } };
    writeFileSync(logFile, `${readFileSync(logFile, 'utf8')}\n<!-- credence:log ${JSON.stringify(ghost)} -->\n<!-- credence:log {"k":"torn`);
    expect(normalize(await new OkfStore(dir).readLog(r))).toEqual(normalize(before));
    const next = await new Memory({ store: new OkfStore(dir) }).remember({ predicate: 'likes', object: 'cake' });
    expect(next.slotVersion).toBe(2);
    const log = await new OkfStore(dir).readLog(r);
    expect(log.map((e) => e.version)).toEqual([1, 2]);
    expect(log.some((e) => e.note === 'never committed')).toBe(false);
    // A ghost block for version 3, then a real version 3 that logs nothing.
    const ghost3 = { ...ghost, v: 3, e: { ...before[0], version: 3, note: 'never committed' } };
    writeFileSync(logFile, `${readFileSync(logFile, 'utf8')}\n<!-- credence:log ${JSON.stringify(ghost3)} -->\n`);
    const current = await store.loadSlot(r);
    const quiet = { ref: r, expectedVersion: 2, slot: { ...current, version: 3, reviewed: 2 }, changedClaims: [], changedConflicts: [], log: [] };
    expect(await store.commitSlot(quiet)).toBe(true);
    expect((await new OkfStore(dir).readLog(r)).map((e) => e.version)).toEqual([1, 2]);
  });

  it("a long-lived reader sees every log entry after another store's erasure rewrote log.md, even under the old inode number", async () => {
    // Found by a concurrency fuzz: three agents on one bundle, a checker on a
    // fourth store object. An erasure rewrites log.md (new file, renamed in);
    // two rewrites can hand the file its old inode number back, and a reader
    // that trusted the inode kept parsing at its old offset of different text.
    const dir = bundle();
    const writer = new Memory({ store: new OkfStore(dir) });
    const reader = new Memory({ store: new OkfStore(dir) });
    const logFile = path.join(dir, 'log.md');
    const tea = await writer.remember({ subject: 'bo', predicate: 'likes', object: 'tea' });
    const long = 'a value long enough that its history outweighs a block or two of log.md: '.repeat(8);
    const cake = await writer.remember({ subject: 'cy', predicate: 'likes', object: long });
    const one = await writer.remember({ subject: 'ana', predicate: 'notes', object: 'one' });
    await writer.erase({ subject: 'bo', claimId: tea.claim.id }, { by: 'test', reason: 'test' });
    expect((await reader.why(one.claim.id)).log.map((e) => e.rule)).toEqual(['add']); // the reader has parsed log.md
    const two = await writer.remember({ subject: 'ana', predicate: 'notes', object: 'two' }, { strategy: 'append' });
    // Another erasure moves the erased slot's (earlier, long) history to the end, so `two`'s block lands before the
    // reader's offset; the rewrite is then put back under the inode the reader knows (as a reused inode number would be).
    const inode = statSync(logFile).ino;
    linkSync(logFile, `${logFile}.keep`);
    await writer.erase({ subject: 'cy', claimId: cake.claim.id }, { by: 'test', reason: 'test' });
    writeFileSync(`${logFile}.keep`, readFileSync(logFile));
    renameSync(`${logFile}.keep`, logFile);
    expect(statSync(logFile).ino).toBe(inode);
    const reached = statSync(logFile).size;
    await writer.remember({ subject: 'dee', predicate: 'likes', object: 'a value that makes log.md outgrow the offset the reader reached. '.repeat(40) });
    expect(statSync(logFile).size).toBeGreaterThan(reached + 2000);
    expect((await reader.why(two.claim.id)).log.map((e) => e.rule)).toEqual(['append']);
    expect(await reader.checkInvariants()).toEqual([]);
  });

  it('breaks a lock left by a dead process, waits for a live one, and gives up with STORE_FAILED', async () => {
    const dir = bundle();
    const store = new OkfStore(dir, { lockTimeoutMs: 300, staleLockMs: 60000 });
    const memory = new Memory({ store });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    const lock = path.join(dir, 'claims', 'user~likes.md.lock');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), token: 'x' }));
    expect((await memory.remember({ predicate: 'likes', object: 'cake' })).action).toBe('added');
    expect(existsSync(lock)).toBe(false);
    // Held by this very (live) process as if from elsewhere: wait, then fail.
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'y' }));
    const err = await memory.remember({ predicate: 'likes', object: 'pie' }).catch((e) => e);
    expect([err.code, err.message.includes('could not lock')]).toEqual(['STORE_FAILED', true]);
    // From another host: broken once older than staleLockMs.
    writeFileSync(lock, JSON.stringify({ pid: 1, host: 'elsewhere', token: 'z' }));
    const patient = new Memory({ store: new OkfStore(dir, { lockTimeoutMs: 5000, staleLockMs: 200 }) });
    expect((await patient.remember({ predicate: 'likes', object: 'pie' })).action).toBe('added');
    expect((await memory.recall('user')).map((c) => c.object)).toEqual(['tea', 'cake', 'pie']);
  });
});

describe('OkfStore — erasure survives a killed writer', () => {
  const SECRET = '12 Quiet Lane';
  const eraser = path.join(here, '..', 'workers', 'okf-eraser.mjs');

  async function seeded() {
    const dir = bundle();
    const memory = new Memory({ store: new OkfStore(dir) });
    await memory.remember({ predicate: 'home_address', object: SECRET, provenance: { sourceId: 'crm' } });
    await memory.remember({ predicate: 'home_address', object: '7 Loud Street' });
    await memory.remember({ predicate: 'likes', object: 'green tea' });
    return dir;
  }

  /** Spawns the eraser and SIGKILLs it `delayMs` after it is ready; resolves whether it finished first. */
  function eraseAndKill(dir, delayMs) {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [eraser, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('ready') && !child.killTimer) child.killTimer = setTimeout(() => child.kill('SIGKILL'), delayMs);
      });
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(child.killTimer);
        if (code !== 0 && signal !== 'SIGKILL') reject(new Error(`eraser failed (${code}): ${err}`));
        else resolve(out.includes('done'));
      });
    });
  }

  it('leaves the old state or the erased one, never a half; erasing again finishes it', async () => {
    const outcomes = new Set();
    for (let i = 0; i < 10; i++) {
      const dir = await seeded();
      await eraseAndKill(dir, i * 30);
      // What a fresh reader sees (it finishes an erasure left past its marker).
      const seen = JSON.parse(execFileSync(process.execPath, [reader, dir], { encoding: 'utf8' }));
      const slots = JSON.stringify(seen.slots);
      const logs = JSON.stringify(seen.logs);
      const files = ['claims', 'log.md'].map((f) => bundleBytes(path.join(dir, f))).join('\n');
      const state = [slots, logs, files].map((t) => t.includes(SECRET));
      assert(state.every(Boolean) || state.every((x) => !x), `run ${i}: half-erased (slots, log, files) = ${state}`);
      outcomes.add(state[0] ? 'old' : 'erased');
      if (process.env.SHOW_OUTCOMES) process.stderr.write(`erase-kill run ${i}: ${state[0] ? 'old' : 'erased'}\n`);
      expect(slots).toContain('green tea');
      const memory = new Memory({ store: new OkfStore(dir) });
      await memory.erase({ subject: 'user', predicate: 'home_address' }, { reason: 'asked', by: 'dpo' });
      expect(bundleBytes(dir)).not.toContain(SECRET);
      expect((await memory.recall('user')).map((c) => c.object)).toEqual(['green tea']);
    }
    expect(outcomes.size).toBeGreaterThan(0);
  }, 120_000);

  it('a writer killed past its marker, with log.md already replaced, is finished by the next reader', async () => {
    // The worst instant to die: the scrubbed log.md is in place, the slot file still old.
    const dir = await seeded();
    const erased = await seeded();
    await new Memory({ store: new OkfStore(erased) }).erase({ subject: 'user', predicate: 'home_address' }, { reason: 'asked', by: 'dpo' });
    const name = readdirSync(path.join(dir, 'claims')).find((n) => n.includes('home_address'));
    writeFileSync(path.join(dir, 'claims', `.${name}.erase`), readFileSync(path.join(erased, 'claims', name)));
    writeFileSync(path.join(dir, '.erase-pending.json'), JSON.stringify({ slot: `claims/${name}` }));
    writeFileSync(path.join(dir, 'log.md'), readFileSync(path.join(erased, 'log.md')));
    expect(readFileSync(path.join(dir, 'claims', name), 'utf8')).toContain(SECRET);
    const seen = JSON.parse(execFileSync(process.execPath, [reader, dir], { encoding: 'utf8' }));
    expect(JSON.stringify(seen)).not.toContain(SECRET);
    expect(bundleBytes(dir)).not.toContain(SECRET);
    expect(existsSync(path.join(dir, '.erase-pending.json'))).toBe(false);
    expect(seen.slots[`user\u001fhome_address`].erasures).toHaveLength(2);
  });
});
