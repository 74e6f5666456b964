// Issue 7: entity resolution through the package.
import { describe, expect, it } from 'vitest';
import { Memory } from 'credence';

describe('entities', () => {
  it('resolves "Acme" / "Acme Corp" / "ACME, Inc." to one slot, keeps "Acme Bank" apart', async () => {
    const memory = new Memory();
    await memory.remember({ subject: 'Acme', subjectType: 'org', predicate: 'located_in', object: 'Boston' });
    const moved = await memory.remember({ subject: 'Acme Corp', subjectType: 'org', predicate: 'located_in', object: 'Austin' });
    expect([moved.action, moved.claim.subject, moved.resolutions[0].rule]).toEqual(['superseded', 'org:acme', 'alias']);
    const bank = await memory.remember({ subject: 'Acme Bank', subjectType: 'org', predicate: 'located_in', object: 'Zurich' });
    expect(bank.claim.subject).toBe('org:acme-bank');
    expect(bank.resolutions[0].nearMatches[0]).toMatchObject({ entityId: 'org:acme', score: 0.5 });
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
});
