// Issue 3 seed examples through the packed package.
import { describe, expect, it } from 'vitest';
import { Memory, MemoryStore, reconcile } from 'credence';

function clock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return { now: () => new Date((t += 86_400_000)).toISOString() };
}

describe('reconcile through the package', () => {
  it('"moved to SF (was NYC)" supersedes and keeps NYC as history', async () => {
    const memory = new Memory(clock());
    await memory.remember({ predicate: 'located_in', object: 'NYC' });
    const moved = await memory.remember({ predicate: 'located_in', object: 'SF' });
    expect([moved.action, moved.relation]).toEqual(['superseded', 'supersede']);
    expect(moved.affected[0]).toMatchObject({ object: 'NYC', status: 'superseded', supersededBy: moved.claim.id });
    expect(moved.affected[0].validTo).toBe(moved.claim.recordedAt);
    expect((await memory.recall()).map((c) => c.object)).toEqual(['SF']);
    const history = await memory.recall('user', { includeHistory: true });
    expect(history.map((c) => [c.object, c.status])).toEqual([['NYC', 'superseded'], ['SF', 'active']]);
    const asOf = await memory.recall('user', { predicate: 'located_in', at: moved.affected[0].recordedAt });
    expect(asOf.map((c) => c.object)).toEqual(['NYC']);
  });

  it('"allergic to shellfish" coexists with peanuts', async () => {
    const memory = new Memory(clock());
    await memory.remember({ predicate: 'allergic_to', object: 'peanuts' });
    const o = await memory.remember({ predicate: 'allergic_to', object: 'shellfish' });
    expect([o.action, o.relation]).toEqual(['added', 'independent']);
    expect((await memory.recall()).map((c) => c.object).sort()).toEqual(['peanuts', 'shellfish']);
  });

  it('two sources disagreeing on a birthday are disputed and surfaced; a third breaks the tie', async () => {
    const memory = new Memory(clock());
    await memory.remember({ predicate: 'born_on', object: '1990-03-04', provenance: { sourceId: 'crm' } });
    const b = await memory.remember({ predicate: 'birthday', object: '1990-04-03', provenance: { sourceId: 'chat' } });
    expect(b.action).toBe('disputed');
    expect(b.conflicts).toHaveLength(1);
    const open = await memory.conflicts({ status: 'open' });
    expect(open.map((c) => [c.kind, c.earlier.object, c.newer.object])).toEqual([['dispute', '1990-03-04', '1990-04-03']]);
    expect((await memory.recall()).map((c) => c.status)).toEqual(['disputed', 'disputed']);
    const c = await memory.remember({ predicate: 'born_on', object: '1990-03-04', provenance: { sourceId: 'passport' } });
    expect(c.action).toBe('confirmed');
    expect(c.claim.confidence).toBeGreaterThan(0.9);
    expect((await memory.recall()).map((x) => [x.object, x.status])).toEqual([['1990-03-04', 'active']]);
    expect((await memory.conflicts())[0].status).toBe('resolved_by_evidence');
    const why = await memory.why(c.claim.id);
    expect(why.log.map((e) => e.rule)).toEqual(['add', 'dispute_opened', 'confirm', 'dispute_resolved']);
    expect(why.log[3]).toMatchObject({ claimIds: [c.claim.id, b.claim.id] });
  });

  it('a low-confidence guess is outweighed, not written over a confident fact', async () => {
    const memory = new Memory(clock());
    await memory.remember({ predicate: 'works_at', object: 'Acme', provenance: { sourceId: 'hr', sourceTrust: 0.99 } });
    const guess = await memory.remember({ predicate: 'works_at', object: 'Globex', confidence: 0.2 });
    expect(guess.action).toBe('outweighed');
    expect((await memory.recall()).map((c) => c.object)).toEqual(['Acme']);
  });

  it('compares values after NFKC and case folding (from the host in wasm), storing text untouched', async () => {
    const memory = new Memory(clock());
    await memory.remember({ predicate: 'located_in', object: 'Ｎｅｗ York', provenance: { sourceId: 'a' } });
    const same = await memory.remember({ predicate: 'located_in', object: 'new york', provenance: { sourceId: 'b' } });
    expect([same.action, same.claim.object]).toEqual(['confirmed', 'Ｎｅｗ York']);
    await memory.remember({ predicate: 'street', object: 'Hauptstraße', provenance: { sourceId: 'a' } });
    expect((await memory.remember({ predicate: 'street', object: 'HAUPTSTRASSE', provenance: { sourceId: 'b' } })).action).toBe('confirmed');
  });

  it('predicate specs from config extend the registry', async () => {
    const memory = new Memory({
      ...clock(),
      predicates: [{ name: 'favourite_colour', aliases: ['fav colour'], cardinality: 'multi', timeVarying: false }],
    });
    await memory.remember({ predicate: 'fav colour', object: 'red' });
    const o = await memory.remember({ predicate: 'favourite_colour', object: 'blue' });
    expect(o.relation).toBe('independent');
    expect(o.claim.predicate).toBe('favourite_colour');
  });

  it('the one-shot reconcile() decides against the store', async () => {
    const store = new MemoryStore();
    await reconcile({ predicate: 'located_in', object: 'NYC' }, { store, ...clock(Date.UTC(2026, 0, 1)) });
    const o = await reconcile({ predicate: 'located_in', object: 'SF' }, { store, ...clock(Date.UTC(2026, 5, 1)) });
    expect(o.action).toBe('superseded');
  });
});
