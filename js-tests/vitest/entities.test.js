// Issue 7: entity resolution through the package.
import { describe, expect, it } from 'vitest';
import { Memory } from 'credence';
import { MapStore } from '../../examples/map-store.mjs';

describe('entities', () => {
  it('resolves "Acme" / "Acme Corp" / "ACME, Inc." to one slot, keeps "Acme Bank" apart', async () => {
    const memory = new Memory();
    await memory.remember({ subject: 'Acme', subjectType: 'org', predicate: 'located_in', object: 'Boston' });
    const moved = await memory.remember({ subject: 'Acme Corp', subjectType: 'org', predicate: 'located_in', object: 'Austin' });
    expect([moved.action, moved.claim.subject, moved.resolutions[0].rule]).toEqual(['superseded', 'org:acme', 'alias']);
    const bank = await memory.remember({ subject: 'Acme Bank', subjectType: 'org', predicate: 'located_in', object: 'Zurich' });
    expect(bank.claim.subject).toBe('org:acme-bank');
    expect(bank.resolutions[0]).toMatchObject({ rule: 'near', nearMatches: [{ entityId: 'org:acme', name: 'Acme', score: 0.5 }] });
    expect(bank.conflicts).toMatchObject([{ kind: 'same_entity', status: 'open', earlier: { object: 'Acme' }, newer: { object: 'Acme Bank' } }]);
    expect((await memory.recall('ACME, Inc.', { subjectType: 'org' })).map((c) => c.object)).toEqual(['Austin']);
    const view = await memory.entity('acme corporation', { type: 'org' });
    expect(view.entity.id).toBe('org:acme');
    expect(view.resolution).toMatchObject({ rule: 'alias', score: 1 });
  });

  it('resolves employers so spellings confirm; merges and un-merges people', async () => {
    const memory = new Memory();
    await memory.remember({ predicate: 'works_at', object: 'Globex', provenance: { sourceId: 'a' } });
    const same = await memory.remember({ predicate: 'works_at', object: 'Globex Corporation', provenance: { sourceId: 'b' } });
    expect(same.action).toBe('confirmed');
    await memory.remember({ subject: 'Bob Smith', subjectType: 'person', predicate: 'likes', object: 'golf' });
    await memory.remember({ subject: 'Robert Smith', subjectType: 'person', predicate: 'likes', object: 'chess' });
    const merge = await memory.mergeEntities('person:bob-smith', 'person:robert-smith');
    expect((await memory.recall('person:bob-smith')).map((c) => c.object).sort()).toEqual(['chess', 'golf']);
    await memory.undoEntityMerge(merge.id);
    expect((await memory.recall('person:bob-smith')).map((c) => c.object)).toEqual(['golf']);
    expect((await memory.recall('person:robert-smith')).map((c) => c.object)).toEqual(['chess']);
  });

  it('a name written before skips its look-up, and follows another writer\'s merge and its undo', async () => {
    const scope = `remembered-${Math.random()}`;
    const store = new MapStore({ scope });
    let lookUps = 0;
    const find = store.findEntities.bind(store);
    store.findEntities = (query) => {
      lookUps++;
      return find(query);
    };
    const a = new Memory({ store, calibrate: false });
    const b = new Memory({ store: new MapStore({ scope }), calibrate: false }); // another writer, same data
    const likes = (object) => a.remember({ subject: 'Robert Smith', subjectType: 'person', predicate: 'likes', object });
    await a.remember({ subject: 'Bob Smith', subjectType: 'person', predicate: 'likes', object: 'golf' });
    await likes('tennis');
    lookUps = 0;
    const known = await likes('cards');
    expect([known.claim.subject, known.resolutions[0].rule, lookUps]).toEqual(['person:robert-smith', 'alias', 0]);
    const merge = await b.mergeEntities('person:bob-smith', 'person:robert-smith');
    expect((await likes('darts')).claim.subject).toBe('person:bob-smith');
    expect(lookUps).toBeGreaterThan(0); // the entity's slot moved on: looked up again
    await b.undoEntityMerge(merge.id);
    expect((await likes('bridge')).claim.subject).toBe('person:robert-smith');
    expect((await b.recall('person:robert-smith')).map((c) => c.object).sort()).toEqual(['bridge', 'cards', 'tennis']);
  });

  it('German is not Germany: the near name asks, and "same"/"different" are the only answers', async () => {
    const memory = new Memory({ entityAliases: { country: [['Germany', 'Deutschland', 'Federal Republic of Germany']] } });
    await memory.remember({ subject: 'Germany', subjectType: 'country', predicate: 'capital', object: 'Berlin' });
    const known = await memory.remember({ subject: 'Deutschland', subjectType: 'country', predicate: 'capital', object: 'Berlin', provenance: { sourceId: 'b' } });
    expect([known.action, known.resolutions[0].rule]).toEqual(['confirmed', 'known_alias']);
    const german = await memory.remember({ subject: 'German', subjectType: 'country', predicate: 'capital', object: 'Bonn' });
    expect([german.action, german.claim.subject]).toEqual(['added', 'country:german']);
    const [conflict] = german.conflicts;
    expect(conflict.reason).toMatch(/"German" looks like "Germany"/);
    await expect(memory.settle(conflict.id, 'keep_newer')).rejects.toMatchObject({ code: 'INVALID_SETTLEMENT', field: 'settlement' });
    await expect(memory.settle(conflict.id, 'maybe')).rejects.toMatchObject({ code: 'INVALID_SETTLEMENT' });
    expect((await memory.recall('Germany', { subjectType: 'country' })).map((c) => c.object)).toEqual(['Berlin']);
    let refused;
    try {
      new Memory({ entityAliases: { country: [['A', 'B'], ['C', 'b']] } });
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', field: 'entityAliases.country[1]' });
  });

  it('an entity merge is undone exactly, or refused with UNDO_STALE once its claims changed; nothing is unfinished', async () => {
    const memory = new Memory();
    await memory.remember({ subject: 'Bob Smith', subjectType: 'person', predicate: 'born_on', object: '1980-01-01', provenance: { sourceId: 'a' } });
    await memory.remember({ subject: 'Robert Smith', subjectType: 'person', predicate: 'born_on', object: '1980-01-01', provenance: { sourceId: 'b' } });
    const merge = await memory.mergeEntities('person:bob-smith', 'person:robert-smith');
    expect(merge).toMatchObject({ state: 'done', into: 'person:bob-smith', from: 'person:robert-smith', slotsDone: ['born_on'] });
    expect(await memory.unfinishedEntityMerges()).toEqual([]);
    await memory.remember({ subject: 'Robert Smith', subjectType: 'person', predicate: 'born_on', object: '1980-01-01', provenance: { sourceId: 'passport' } });
    await expect(memory.undoEntityMerge(merge.id)).rejects.toMatchObject({ code: 'UNDO_STALE', field: 'mergeId' });
    const [born] = await memory.recall('person:bob-smith');
    expect(born.provenance.map((p) => p.sourceId)).toEqual(['a', 'b', 'passport']);
    expect((await memory.resumeEntityMerge(merge.id)).state).toBe('done');
  });
});
