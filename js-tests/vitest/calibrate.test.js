// memory.calibrate() through the packed package, on every shipped store:
// options checked strictly, the same store gives the same calibration, the
// record survives reopening, two calibrations leave one consistent record,
// and a write made while a calibration runs is not lost.
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { CredenceError, IndexedDbStore, Memory, MemoryStore, OkfStore, PostgresStore } from 'credence';
import { mulberry32 } from '../lib/mulberry32.mjs';
import { delegating } from 'credence/conformance';
import { tempRootAndPglite } from '../lib/temp-stores.mjs';

const { root, db } = tempRootAndPglite('credence-calibrate-');
const indexedDB = new IDBFactory();

let n = 0;
/** Each store: a fresh one, and a second handle on the same data (a reopen). */
const STORES = {
  MemoryStore: () => { const s = new MemoryStore(); return { store: s, reopen: () => s }; },
  OkfStore: () => { const dir = path.join(root, `b${++n}`); return { store: new OkfStore(dir), reopen: () => new OkfStore(dir) }; },
  'PostgresStore (PGlite)': () => { const scope = `s${++n}`; return { store: new PostgresStore(db, { scope }), reopen: () => new PostgresStore(db, { scope }) }; },
  IndexedDbStore: () => { const name = `calibrate-${++n}`; return { store: new IndexedDbStore(name, { indexedDB, IDBKeyRange }), reopen: () => new IndexedDbStore(name, { indexedDB, IDBKeyRange }) }; },
};

const PLACES = ['Paris', 'Oslo', 'Lima', 'Rome', 'Kyiv', 'Quito'];
const NOW = '2026-01-01T00:00:00.000Z';
const day = (d) => new Date(Date.parse('2024-01-01T00:00:00Z') + d * 86400000).toISOString();

/** 6 subjects whose place moves every ~60 days; "good" is right 95% of the time, "poor" 50%; both state 0.8. */
async function fill(memory) {
  const rand = mulberry32(11);
  for (let s = 0; s < 6; s++) {
    let truth = s;
    for (let step = 0; step < 40; step++) {
      if (rand() < 8 / 60) truth = (truth + 1 + Math.floor(rand() * 5)) % 6;
      const [source, r] = step % 2 ? ['poor', 0.5] : ['good', 0.95];
      const value = rand() < r ? truth : (truth + 1 + Math.floor(rand() * 5)) % 6;
      await memory.remember({ subject: `p${s}`, predicate: 'located_in', object: PLACES[value],
        provenance: { sourceId: source, sourceTrust: 0.8, observedAt: day(step * 8) } });
    }
  }
}

const strip = (record) => JSON.parse(JSON.stringify(record));

describe.each(Object.entries(STORES))('memory.calibrate on %s', (_, open) => {
  it('learns, is deterministic, survives reopening, and why names the version', async () => {
    const a = open();
    const b = open();
    const memory = new Memory({ store: a.store, now: () => NOW });
    await fill(memory);
    await fill(new Memory({ store: b.store, now: () => NOW }));
    expect(await memory.calibration()).toBeNull();
    const record = await memory.calibrate({ minObservations: 10 });
    expect(record.version).toBe(1);
    const good = record.sources.find((s) => s.sourceId === 'good');
    const poor = record.sources.find((s) => s.sourceId === 'poor');
    expect(good.reliability).toBeGreaterThan(poor.reliability + 0.2);
    expect(good).toMatchObject({ observations: 120, statedTrust: expect.closeTo(0.8, 9), used: true });
    expect(record.predicates[0]).toMatchObject({ predicate: 'located_in', configuredHalfLifeDays: 365, used: true });
    expect(record.predicates[0].halfLifeDays).toBeLessThan(200);
    // The same history elsewhere gives the same calibration.
    expect(strip(await new Memory({ store: b.store, now: () => NOW }).calibrate({ minObservations: 10 }))).toEqual(strip(record));
    // Reopened, the record is in force and recall uses it.
    const reopened = new Memory({ store: a.reopen(), now: () => NOW });
    expect(strip(await reopened.calibration())).toEqual(strip(record));
    const [claim] = await reopened.recall('p0', { predicate: 'located_in' });
    expect((await reopened.why(claim.id)).calibrationVersion).toBe(1);
    expect(await reopened.recall('p0', { predicate: 'located_in' })).toEqual(await memory.recall('p0', { predicate: 'located_in' }));
    expect((await memory.recall('p1')).length).toBeGreaterThan(0);
  });

  it('two calibrations at once leave one consistent record, and a write during calibration is kept', async () => {
    const { store } = open();
    const writer = new Memory({ store, now: () => NOW });
    await fill(writer);
    // A store handle that, the first time a calibration reads a slot, lets another writer write first.
    let wrote;
    const busy = delegating(store, {
      async loadSlot(ref) {
        if (!wrote && ref.subject === 'p3') wrote = await writer.remember({ subject: 'p9', predicate: 'located_in', object: 'Lima' });
        return store.loadSlot(ref);
      },
    }, { without: ['eraseSlot'] });
    const one = new Memory({ store: busy, now: () => NOW });
    const two = new Memory({ store, now: () => NOW });
    const [r1, r2] = await Promise.all([one.calibrate(), two.calibrate({ sources: ['good'] })]);
    expect([r1.version, r2.version].sort()).toEqual([1, 2]);
    const last = r1.version === 2 ? r1 : r2;
    const fresh = new Memory({ store, now: () => NOW });
    expect(strip(await fresh.calibration())).toEqual(strip(last));
    expect(last.sources.map((s) => s.sourceId)).toEqual(['good', 'poor']);
    expect(wrote.action).toBe('added');
    expect((await fresh.recall('p9')).map((c) => c.object)).toEqual(['Lima']);
  });
});

describe('memory.calibrate — bad input', () => {
  it('refuses unknown and ill-typed options, naming the key', async () => {
    const memory = new Memory();
    for (const [options, message] of [[{ minObs: 3 }, /minObs/], [{ minObservations: -1 }, /minObservations/], [{ predicates: 'located_in' }, /predicates/], [{ predicates: [''] }, /predicates\[0\]/], [{ sources: ['a', ' '] }, /sources\[1\]/]]) {
      const err = await memory.calibrate(options).then(() => null, (e) => e);
      expect(err, JSON.stringify(options)).toBeInstanceOf(CredenceError);
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.message).toMatch(message);
    }
    expect(await memory.calibration()).toBeNull();
  });

  it('refuses a calibrate setting other than true, false or "inline", naming it', () => {
    for (const calibrate of [1, 'fast', {}]) {
      let err;
      try { new Memory({ calibrate }).free(); } catch (e) { err = e; }
      expect(err, JSON.stringify(calibrate)).toBeInstanceOf(CredenceError);
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.message).toMatch(/calibrate/);
      expect(err.message).toMatch(/true, false or "inline"/);
    }
  });

  it('an empty memory calibrates to an empty record that changes nothing', async () => {
    const memory = new Memory({ now: () => NOW });
    const record = await memory.calibrate();
    expect(record).toMatchObject({ version: 1, predicates: [], sources: [] });
    const outcome = await memory.remember({ predicate: 'located_in', object: 'Oslo', provenance: { sourceId: 'a', sourceTrust: 0.7 } });
    expect(outcome.claim.confidence).toBeCloseTo(0.7, 9);
  });
});

describe('memory.calibrate against a known world', () => {
  it('a sighting of a superseded value, made after the supersession, speaks for its own time', async () => {
    // 40 subjects moving every ~240 days among 6 places, reported every 10 days
    // by five sources right 95% … 45% of the time (stated honestly). A wrong
    // report supersedes the right value; the next sightings of it join the claim
    // it superseded. Read at the end memory gave that claim, they looked old and
    // the world seemed to change twice as often as it does (half-life ~65 d
    // against 139 d; the poorest source 0.60 against 0.45).
    const rand = mulberry32(8);
    const reliability = [0.95, 0.85, 0.75, 0.6, 0.45];
    const other = (v) => (v + 1 + Math.floor(rand() * 5)) % 6;
    const memory = new Memory({ calibrate: false, now: () => NOW });
    const reports = [];
    for (let s = 0; s < 40; s++) {
      let truth = s % 6;
      for (let step = 0; step < 100; step++) {
        if (rand() < 10 / 240) truth = other(truth);
        const source = Math.floor(rand() * 5);
        const value = rand() < reliability[source] ? truth : other(truth);
        reports.push({ subject: `p${s}`, predicate: 'located_in', object: PLACES[value],
          provenance: { sourceId: `s${source}`, sourceTrust: reliability[source], observedAt: day(step * 10) } });
      }
    }
    await memory.rememberMany(reports);
    const record = await memory.calibrate();
    const truth = Math.LN2 * 240 * 5 / 6;
    expect(record.predicates[0].halfLifeDays).toBeGreaterThan(0.7 * truth);
    expect(record.predicates[0].halfLifeDays).toBeLessThan(1.3 * truth);
    const poorest = record.sources.find((s) => s.sourceId === 's4');
    expect(poorest.reliability).toBeCloseTo(0.45, 1);
  });

  it('the same reports written in another order give the same calibration', async () => {
    // 60 books at one instant: zeta right 75% of the time, alpha and mid copying zeta 80% of the time,
    // beta right 70%, gamma 50%. Sources were numbered as first met, and the numbers decided whose
    // agreeing report a likely copy was discounted against: mid and zeta came out dependent with
    // probability 0.32 one way and 0.96 the other.
    const rand = mulberry32(5);
    const places = ['Paris', 'Oslo', 'Lima', 'Rome', 'Kyiv', 'Quito'];
    const reports = [];
    for (let book = 0; book < 60; book++) {
      const truth = book % 6;
      const answer = (right) => (rand() < right ? truth : (truth + 1 + Math.floor(rand() * 5)) % 6);
      const zeta = answer(0.75);
      const copy = () => (rand() < 0.8 ? zeta : answer(0.6));
      const said = { zeta, alpha: copy(), mid: copy(), beta: answer(0.7), gamma: answer(0.5) };
      for (const [sourceId, value] of Object.entries(said)) {
        reports.push({ subject: `book${book}`, predicate: 'born_in', object: places[value], provenance: { sourceId, observedAt: NOW } });
      }
    }
    const calibrated = async (order) => {
      const memory = new Memory({ calibrate: false, now: () => NOW });
      for (const r of order) await memory.remember(r);
      const record = await memory.calibrate();
      memory.free();
      return record;
    };
    const [forward, reverse] = [await calibrated(reports), await calibrated([...reports].reverse())];
    expect(forward.dependencies.length).toBeGreaterThan(0);
    expect(reverse.sources.map((s) => s.sourceId)).toEqual(forward.sources.map((s) => s.sourceId));
    forward.sources.forEach((s, i) => expect(reverse.sources[i].reliability).toBeCloseTo(s.reliability, 9));
    expect(reverse.dependencies.map((d) => d.sources)).toEqual(forward.dependencies.map((d) => d.sources));
    forward.dependencies.forEach((d, i) => expect(reverse.dependencies[i].probability).toBeCloseTo(d.probability, 9));
  });

  it('sources that say more than the truth are learned to, and the fuller form gives its place back', async () => {
    // 60 books listed by 12 stores (stating 0.8). In one book of three, three
    // stores list a fuller form than the cover ("author0 smith jones"); the other
    // nine list the cover. Uncalibrated, a fuller report is a plain miss for the
    // shorter form while each short report lends the fuller one half its weight:
    // three fuller reports carry the book. calibrate() learns how often these
    // sources say more than the truth (ε) and the cover holds again.
    const memory = new Memory({ calibrate: false, now: () => NOW,
      predicates: [{ name: 'book_authors', cardinality: 'single', timeVarying: false }] });
    const reports = [];
    for (let book = 0; book < 60; book++) {
      const cover = `author${book} smith`;
      const j = Math.floor(book / 3) % 12;
      const fuller = [j, (j + 1) % 12, (j + 3) % 12];
      for (let store = 0; store < 12; store++) {
        let object = cover;
        if (book % 3 === 0 && fuller.includes(store)) object = `${cover} jones`;
        else if (book % 5 === 1 && store === book % 12) object = `author${book + store} brown`;
        reports.push({ subject: `book${book}`, predicate: 'book_authors', object,
          provenance: { sourceId: `store${store}`, sourceTrust: 0.8 } });
      }
    }
    await memory.rememberMany(reports);
    const answer = async (book) => {
      const current = (await memory.recall(`book${book}`, { predicate: 'book_authors' }))
        .filter((c) => c.status === 'active' || c.status === 'disputed');
      return current.reduce((a, c) => (c.confidence > a.confidence ? c : a)).object;
    };
    expect(await answer(30)).toBe('author30 smith jones');
    const record = await memory.calibrate();
    const forms = record.forms.find((f) => f.predicate === 'book_authors');
    expect(forms.used).toBe(true);
    expect(forms.embellished).toBeGreaterThan(0.15);
    expect(forms.embellished).toBeLessThan(0.4);
    expect(forms.refinedSupport).toBeCloseTo(0.5, 1);
    for (let book = 0; book < 60; book += 3) expect(await answer(book)).toBe(`author${book} smith`);
    const why = await memory.why((await memory.recall('book30', { predicate: 'book_authors' }))[0].id);
    expect(why.log.map((e) => e.rule)).toContain('refine_reverted');
    memory.free();
  });
});
