// importBlob into an occupied slot and claim kinds (SPEC §5, issue 43), through the package.
import { describe, expect, it } from 'vitest';
import { Memory } from 'credence';

const clock = (iso = '2026-06-01T00:00:00.000Z') => {
  let t = Date.parse(iso);
  const now = () => new Date(t).toISOString();
  now.advance = (days) => { t += days * 86_400_000; };
  return now;
};
const secs = (iso) => Date.parse(iso) / 1000;
const blob = (key, entries) => ({
  key, content: '', confidence: 1, timestamp: 0, schema_version: 2,
  entries: entries.map(([content, confidence, at, status = 'active']) => ({ content, confidence, timestamp: secs(at), status })),
});
const current = async (memory, predicate) => (await memory.recall(undefined, { predicate })).map((c) => c.object).sort();

describe('importBlob into an occupied slot (issue 43)', () => {
  it('entries sent without schema_version 2 are refused, not dropped by the v1 reading, and nothing is written', async () => {
    const memory = new Memory();
    const blob = { key: 'notes', content: '', entries: [{ content: 'uses vim', confidence: 0.9, timestamp: 1_700_000_000, status: 'active' }] };
    const e = await memory.importBlob(blob).then(() => null, (err) => err);
    expect(e?.code).toBe('INVALID_INPUT');
    expect(e.field).toBe('blob.schema_version');
    expect(await memory.recall('user', { predicate: 'notes', includeHistory: true })).toEqual([]);
    const outs = await memory.importBlob({ ...blob, schema_version: 2 });
    expect(outs.map((o) => o.claim.object)).toEqual(['uses vim']);
  });

  it('a newer value supersedes the held one in a single-valued slot: never two current values', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'located_in', object: 'Rome', provenance: { sourceId: 'crm', observedAt: '2026-05-01' } });
    const [o] = await memory.importBlob(blob('located_in', [['Paris', 1, '2026-05-20']]));
    expect([o.action, o.relation, o.claim.object]).toEqual(['superseded', 'supersede', 'Paris']);
    expect(await current(memory, 'located_in')).toEqual(['Paris']);
    const [old] = await memory.importBlob(blob('located_in', [['Lima', 1, '2025-01-01']]));
    expect(old.action).toBe('historical');
    expect(await memory.checkInvariants()).toEqual([]);
  });

  it('a held value imported again corroborates it, never a second copy in a multi-valued slot', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'likes', object: 'coffee', provenance: { sourceId: 'chat', observedAt: '2026-05-01' } });
    const outs = await memory.importBlob(blob('likes', [['coffee', 0.6, '2026-05-10'], ['tea', 0.9, '2026-05-11']]));
    expect(outs.map((o) => o.action)).toEqual(['confirmed', 'added']);
    const all = await memory.recall(undefined, { predicate: 'likes', includeHistory: true });
    expect(all.filter((c) => c.object === 'coffee')).toHaveLength(1);
    expect(await current(memory, 'likes')).toEqual(['coffee', 'tea']);
    expect(await memory.checkInvariants()).toEqual([]);
  });

  it('the same blob imported twice, or a blob this memory exported, changes memory once', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'located_in', object: 'Rome', provenance: { sourceId: 'crm', observedAt: '2026-05-01' } });
    const b = blob('located_in', [['Paris', 1, '2026-05-20'], ['Rome', 0.9, '2026-05-02']]);
    const first = await memory.importBlob(b);
    const saved = JSON.stringify(await memory.recall(undefined, { predicate: 'located_in', includeHistory: true }));
    const again = await memory.importBlob(b);
    expect(again.map((o) => o.claim.id)).toEqual(first.map((o) => o.claim.id));
    expect(again.every((o) => o.replayed)).toBe(true);
    const own = await memory.importBlob(await memory.blob('located_in'));
    expect(own.every((o) => o.replayed && o.action === 'confirmed')).toBe(true);
    expect(JSON.stringify(await memory.recall(undefined, { predicate: 'located_in', includeHistory: true }))).toBe(saved);
  });

  it('into an empty slot a blob loads as it is, its entries of kind import; history entries meeting an occupied slot are skipped', async () => {
    const memory = new Memory({ now: clock() });
    const outs = await memory.importBlob(blob('notes', [['a', 0.7, '2026-01-01'], ['b', 0.7, '2026-01-02']]));
    expect(outs.map((o) => [o.action, o.claim.kind])).toEqual([['added', 'import'], ['appended', 'import']]);
    const [skipped] = await memory.importBlob(blob('notes', [['c', 0.7, '2026-01-03', 'superseded']]));
    expect(skipped.action).toBe('skipped');
    expect(await memory.recall(undefined, { predicate: 'notes', includeHistory: true })).toHaveLength(2);
  });
});

describe('claims know their kind (issue 43)', () => {
  it('free-text entries sharing a slot with values are never weighed as rival values', async () => {
    const now = clock();
    const plain = new Memory({ now });
    const mixed = new Memory({ now });
    for (const memory of [plain, mixed]) {
      await memory.remember({ predicate: 'located_in', object: 'Rome', provenance: { sourceId: 'crm', observedAt: '2026-05-01' } });
    }
    for (const text of ['flew in on Monday', 'hotel by the station', 'Rome']) {
      const o = await mixed.remember({ predicate: 'located_in', object: text, provenance: { sourceId: 'diary', observedAt: '2026-05-02' } }, { strategy: 'append' });
      expect(o.claim.kind).toBe('append');
    }
    const belief = async (memory) => (await memory.recall(undefined, { predicate: 'located_in' })).find((c) => c.object === 'Rome' && c.kind === undefined).confidence;
    expect(await belief(mixed)).toBeCloseTo(await belief(plain), 12);
    // A valued write after the entries is weighed against the values alone.
    const a = await plain.remember({ predicate: 'located_in', object: 'Paris', provenance: { sourceId: 'crm', observedAt: '2026-05-10' } });
    const b = await mixed.remember({ predicate: 'located_in', object: 'Paris', provenance: { sourceId: 'crm', observedAt: '2026-05-10' } });
    expect(b.claim.kind).toBeUndefined();
    expect(b.claim.confidence).toBeCloseTo(a.claim.confidence, 12);
    expect(await mixed.checkInvariants()).toEqual([]);
  });
});
