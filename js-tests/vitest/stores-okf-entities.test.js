// OkfStore's entity key rows (issue #44): each entity is an ordinary slot
// (subject "\u001fentity", predicate its id) whose commits carry
// `index.entity` = { type, id, keys }; findEntities answers by type and key.
// Driven with hand-made commits against the store's source (the installed
// package may predate it).
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { OkfStore } from '../../pkg-templates/src/stores/okf.js';
import { claim, commit, entry, ref, slot } from 'credence/conformance';

const here = path.dirname(fileURLToPath(import.meta.url));
const storeSource = path.join(here, '..', '..', 'pkg-templates', 'src', 'stores', 'okf.js');
const root = mkdtempSync(path.join(tmpdir(), 'credence-okf-entities-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const bundle = () => path.join(root, `b${++n}`);

const ENTITY = '\u001fentity';
const entityRef = (id) => ref(ENTITY, id);
const keyRows = (keys) => keys.map((k) => (typeof k === 'string' ? { key: k, name: k } : k));

/** A commit of entity slot `id` (type before the colon) at `version`, with key rows `keys`. */
function entityCommit(id, version, keys, { type = id.split(':')[0], name = id, writes = [] } = {}) {
  const next = { ...slot(version, [claim(`cl_${id}_${version}`, name, { subject: ENTITY, predicate: id })], { writes }), entities: [{ id, type, name, aliases: [name] }] };
  return { ...commit(entityRef(id), version - 1, next), index: { conflicts: [], unreviewed: false, entity: { type, id, keys: keyRows(keys) } } };
}

const sorted = (rows) => rows.map((r) => `${r.key}|${r.entity}|${r.name}`).sort();

describe('OkfStore — entity key rows', () => {
  it('answers findEntities by type and key, never rows of another type', async () => {
    const store = new OkfStore(bundle());
    expect(await store.findEntities({ type: 'org', keys: ['acme'] })).toEqual([]);
    expect(await store.commitSlot(entityCommit('org:acme', 1, [{ key: 'acme', name: 'Acme Corp' }, { key: 'acme corp', name: 'Acme Corp' }, { key: 'corp', name: 'Acme Corp' }]))).toBe(true);
    expect(await store.commitSlot(entityCommit('org:initech', 1, [{ key: 'initech', name: 'Initech' }, { key: 'corp', name: 'Initech Corp' }]))).toBe(true);
    // Same key, another type.
    expect(await store.commitSlot(entityCommit('city:acme', 1, ['acme']))).toBe(true);
    const awkward = 'Ünïcode — "quoted"\n\t%2F ' + 'x'.repeat(1000);
    expect(await store.commitSlot(entityCommit('org:odd', 1, [awkward]))).toBe(true);
    expect(sorted(await store.findEntities({ type: 'org', keys: ['acme'] }))).toEqual(['acme|org:acme|Acme Corp']);
    expect(sorted(await store.findEntities({ type: 'org', keys: ['corp', 'nope', 'corp'] }))).toEqual(['corp|org:acme|Acme Corp', 'corp|org:initech|Initech Corp']);
    expect(sorted(await store.findEntities({ type: 'city', keys: ['acme', 'corp'] }))).toEqual(['acme|city:acme|acme']);
    expect(sorted(await store.findEntities({ type: 'org', keys: [awkward] }))).toEqual([`${awkward}|org:odd|${awkward}`]);
    expect(await store.findEntities({ type: 'person', keys: ['acme'] })).toEqual([]);
    expect(await store.findEntities({ type: 'org', keys: [] })).toEqual([]);
    // A few hundred keys in one query.
    const many = Array.from({ length: 300 }, (_, i) => `k${i}`);
    expect(await store.commitSlot(entityCommit('org:many', 1, many))).toBe(true);
    expect((await store.findEntities({ type: 'org', keys: [...many, 'acme'] })).length).toBe(301);
    // The slot loads as committed, without the rows (they are the store's).
    const loaded = await store.loadSlot(entityRef('org:acme'));
    expect(loaded.entities).toEqual([{ id: 'org:acme', type: 'org', name: 'org:acme', aliases: ['org:acme'] }]);
    expect(loaded.entityKeys).toBeUndefined();
  });

  it('replaces every row of the entity on its next commit (commitSlot and eraseSlot); a commit without index.entity keeps them', async () => {
    const dir = bundle();
    const store = new OkfStore(dir);
    await store.commitSlot(entityCommit('org:acme', 1, ['acme', 'acme corp']));
    expect(await store.commitSlot(entityCommit('org:acme', 2, ['acme', 'acme inc']))).toBe(true);
    expect(sorted(await store.findEntities({ type: 'org', keys: ['acme', 'acme corp', 'acme inc'] }))).toEqual(['acme inc|org:acme|acme inc', 'acme|org:acme|acme']);
    // A commit of the slot without index.entity leaves its rows as they were.
    const plain = entityCommit('org:acme', 3, []);
    delete plain.index.entity;
    expect(await store.commitSlot(plain)).toBe(true);
    expect(sorted(await store.findEntities({ type: 'org', keys: ['acme inc'] }))).toEqual(['acme inc|org:acme|acme inc']);
    // An erasure replaces them too; the erased name leaves no trace in index/ (keys are hashed there).
    const secret = 'Secret Name Ltd';
    await store.commitSlot(entityCommit('org:acme', 4, ['acme', secret]));
    expect(sorted(await store.findEntities({ type: 'org', keys: [secret] }))).toEqual([`${secret}|org:acme|${secret}`]);
    const erased = entityCommit('org:acme', 5, ['acme']);
    expect(await store.eraseSlot(erased, [entry(1, 'add', [], 'v1')])).toBe(true);
    expect(await store.findEntities({ type: 'org', keys: [secret] })).toEqual([]);
    expect(sorted(await new OkfStore(dir).findEntities({ type: 'org', keys: ['acme', 'acme inc', secret] }))).toEqual(['acme|org:acme|acme']);
    const indexText = readdirSync(path.join(dir, 'index'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => readFileSync(path.join(d.parentPath ?? d.path, d.name), 'utf8')).join('\n');
    expect(indexText).not.toContain('Secret');
  });

  it('changes no row on a refused commit: a moved version, or a write id indexed to another slot', async () => {
    const store = new OkfStore(bundle());
    await store.commitSlot(entityCommit('org:acme', 1, ['acme'], { writes: [{ id: 'w-taken', claimId: 'cl_org:acme_1', action: 'added' }] }));
    expect(await store.commitSlot(entityCommit('org:acme', 3, ['stale']))).toBe(false); // expects version 2
    await store.commitSlot(entityCommit('org:globex', 1, ['globex']));
    const racing = entityCommit('org:globex', 2, ['globex', 'stolen'], { writes: [{ id: 'w-taken', claimId: 'cl_org:globex_2', action: 'added' }] });
    racing.index.writes = ['w-taken'];
    expect(await store.commitSlot(racing)).toBe(false);
    expect(sorted(await store.findEntities({ type: 'org', keys: ['acme', 'stale', 'globex', 'stolen'] }))).toEqual(['acme|org:acme|acme', 'globex|org:globex|globex']);
    // A malformed index.entity is refused before anything is written.
    const bad = entityCommit('org:globex', 2, ['globex']);
    bad.index.entity.keys = [{ key: '', name: 'empty' }];
    await expect(store.commitSlot(bad)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await store.loadSlot(entityRef('org:globex'))).version).toBe(1);
  });

  it('keeps rows across reopening, a rebuilt index, and another store object or process writing', async () => {
    const dir = bundle();
    const first = new OkfStore(dir);
    await first.commitSlot(entityCommit('org:acme', 1, ['acme']));
    expect(sorted(await first.findEntities({ type: 'org', keys: ['acme', 'globex'] }))).toEqual(['acme|org:acme|acme']);
    // Another store object on the bundle writes; the first sees it at once.
    const second = new OkfStore(dir);
    await second.commitSlot(entityCommit('org:globex', 1, ['globex']));
    await second.commitSlot(entityCommit('org:acme', 2, ['acme', 'acme co']));
    expect(sorted(await first.findEntities({ type: 'org', keys: ['acme', 'acme co', 'globex'] }))).toEqual(['acme co|org:acme|acme co', 'acme|org:acme|acme', 'globex|org:globex|globex']);
    // Another process writes.
    const script = `
      const { OkfStore } = await import(${JSON.stringify(storeSource)});
      const store = new OkfStore(${JSON.stringify(dir)});
      const c = ${JSON.stringify(entityCommit('org:initech', 1, ['initech', 'acme']))};
      if (!(await store.commitSlot(c))) process.exit(3);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    expect(sorted(await first.findEntities({ type: 'org', keys: ['acme', 'initech'] }))).toEqual(['acme|org:acme|acme', 'acme|org:initech|acme', 'initech|org:initech|initech']);
    // Reopened, and with index/ gone (rebuilt from the slot files).
    expect(sorted(await new OkfStore(dir).findEntities({ type: 'org', keys: ['acme co', 'globex'] }))).toEqual(['acme co|org:acme|acme co', 'globex|org:globex|globex']);
    rmSync(path.join(dir, 'index'), { recursive: true, force: true });
    expect(sorted(await new OkfStore(dir).findEntities({ type: 'org', keys: ['acme', 'initech'] }))).toEqual(['acme|org:acme|acme', 'acme|org:initech|acme', 'initech|org:initech|initech']);
  });

  it('after a reboot, replays the rows with the slot file the disk lost', async () => {
    const dir = bundle();
    const store = new OkfStore(dir);
    await store.commitSlot(entityCommit('org:acme', 1, ['acme']));
    const file = path.join(dir, 'claims', '%1Fentity~org%3Aacme.md');
    const lost = readFileSync(file);
    await store.commitSlot(entityCommit('org:acme', 2, ['acme', 'acme corp']));
    // The power loss: the journal (fsynced) survives under a dead pid of an earlier boot; the slot file as of v1.
    const journalDir = path.join(dir, 'journal');
    const [name] = readdirSync(journalDir).filter((f) => f.endsWith('.jsonl'));
    const pid = spawnSync(process.execPath, ['-e', '0']).pid;
    const [header, ...records] = readFileSync(path.join(journalDir, name), 'utf8').split('\n');
    writeFileSync(path.join(journalDir, name.replace(/-\d+-/, `-${pid}-`)), [JSON.stringify({ ...JSON.parse(header), pid, boot: 'an-earlier-boot' }), ...records].join('\n'));
    rmSync(path.join(journalDir, name));
    writeFileSync(file, lost);
    expect(sorted(await new OkfStore(dir).findEntities({ type: 'org', keys: ['acme corp'] }))).toEqual(['acme corp|org:acme|acme corp']);
  });
});

describe('OkfStore — a bundle written before entities became keyed records', () => {
  const fixture = path.join(here, '..', 'fixtures', 'legacy-registry', 'okf');
  const expected = JSON.parse(readFileSync(path.join(fixture, 'expected.json'), 'utf8'));
  const registry = (type) => ref('\u001fentities', type);
  const copy = () => {
    const dir = bundle();
    cpSync(path.join(fixture, 'bundle'), dir, { recursive: true });
    return dir;
  };

  it('loads each old registry whole, with its log, conflicts and claim ids', async () => {
    const store = new OkfStore(copy());
    for (const type of ['org', 'city']) {
      expect(await store.loadSlot(registry(type))).toEqual(expected.registries[type]);
      expect(await store.readLog(registry(type))).toEqual(expected.logs[type]);
    }
    const org = expected.registries.org;
    expect(org.entities.map((e) => e.id)).toContain('org:globex');
    expect(org.merges).toHaveLength(1);
    expect((await store.listConflicts({ status: 'open', limit: 10 })).map((c) => c.id)).toEqual(expected.openConflicts);
    expect((await store.listConflicts({ status: 'settled', limit: 10 })).map((c) => c.id)).toEqual(expected.settledConflicts);
    expect(await store.findConflict(expected.openConflicts[0])).toMatchObject({ subject: '\u001fentities', predicate: 'org' });
    expect(await new OkfStore(store.dir).findClaim(org.claims[0].id)).toMatchObject({ subject: '\u001fentities', predicate: 'org' });
    // No entity slot has rows yet: the engine writes them as it moves the registry over.
    expect(await store.findEntities({ type: 'org', keys: ['acme corp'] })).toEqual([]);
  });

  it('takes the registry committed emptied through commitSlot, keeps its log, and drops its old files', async () => {
    const dir = copy();
    const store = new OkfStore(dir);
    const old = await store.loadSlot(registry('org'));
    // The engine's migration: one entity slot per entity, then the registry emptied.
    for (const e of old.entities) expect(await store.commitSlot(entityCommit(e.id, 1, [{ key: e.name.toLowerCase(), name: e.name }], { name: e.name }))).toBe(true);
    const emptied = slot(old.version + 1, []);
    expect(await store.commitSlot(commit(registry('org'), old.version, emptied, { log: [entry(old.version + 1, 'migrate', [], 'moved to entity slots')] }))).toBe(true);
    for (const s of [store, new OkfStore(dir)]) {
      expect(await s.loadSlot(registry('org'))).toEqual(emptied);
      expect((await s.readLog(registry('org'))).map((e) => e.version)).toEqual([...expected.logs.org.map((e) => e.version), old.version + 1]);
      expect(await s.loadSlot(registry('city'))).toEqual(expected.registries.city);
      expect(sorted(await s.findEntities({ type: 'org', keys: ['acme corp'] }))).toEqual(['acme corp|org:acme|Acme Corp']);
    }
    // The old org files are gone; the city registry's stay until it is moved too.
    expect(readdirSync(path.join(dir, 'entities')).sort()).toEqual(['city%3Abergen.md', 'city%3Aoslo.md']);
    expect(await store.listConflicts({ status: 'open', limit: 10 })).toEqual([]);
    const oldCity = await store.loadSlot(registry('city'));
    expect(await store.commitSlot(commit(registry('city'), oldCity.version, slot(oldCity.version + 1, [])))).toBe(true);
    expect(existsSync(path.join(dir, 'entities'))).toBe(false);
  });
});
