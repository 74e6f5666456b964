// Issue 4: strategies, precedence and the Memoir blob through the package, with a JS merge hook.
import { describe, expect, it } from 'vitest';
import { Memory, CredenceError, upgradeBlob } from 'credence';

const merge = async (entries, incoming) => [...entries.map((e) => e.object), incoming.object].join(' | ');

describe('strategies through the package', () => {
  it('the memory type picks the default strategy and the outcome says so', async () => {
    const memory = new Memory({ merge });
    await memory.remember({ predicate: 'workflow.release', object: 'tag' });
    const o = await memory.remember({ predicate: 'workflow.release', object: 'publish' });
    expect([o.action, o.strategy, o.strategySource]).toEqual(['merged', 'llm_merge', 'memory_type']);
    expect(o.claim.object).toBe('tag | publish');
    const w = await memory.remember({ predicate: 'context.current.task', object: 'a' });
    const w2 = await memory.remember({ predicate: 'context.current.task', object: 'b' });
    expect([w.action, w2.action, w2.strategy]).toEqual(['added', 'replaced', 'replace']);
    const e = await memory.remember({ predicate: 'experience.debug', object: 'x' });
    const e2 = await memory.remember({ predicate: 'experience.debug', object: 'y' });
    expect([e.action, e2.action]).toEqual(['added', 'appended']);
  });

  it('per-call beats config beats predicate spec; names are case-insensitive', async () => {
    const memory = new Memory({ strategy: 'APPEND', predicates: [{ name: 'notes', cardinality: 'single', timeVarying: true, strategy: 'replace' }] });
    await memory.remember({ predicate: 'notes', object: 'a' });
    const cfg = await memory.remember({ predicate: 'notes', object: 'b' });
    expect([cfg.strategy, cfg.strategySource]).toEqual(['append', 'config']);
    const call = await memory.remember({ predicate: 'notes', object: 'c' }, { strategy: 'Replace' });
    expect([call.action, call.strategySource]).toEqual(['replaced', 'call']);
    const bad = await memory.remember({ predicate: 'notes', object: 'd' }, { strategy: 'overwrite' }).catch((x) => x);
    expect(bad).toBeInstanceOf(CredenceError);
    expect(bad.code).toBe('INVALID_STRATEGY');
    expect(bad.message).toContain('"overwrite"');
  });

  it('llm_merge without a hook is MERGE_HOOK_MISSING; a throwing hook changes nothing', async () => {
    const bare = new Memory();
    await bare.remember({ predicate: 'notes', object: 'a' });
    const missing = await bare.remember({ predicate: 'notes', object: 'b' }, { strategy: 'llm_merge' }).catch((x) => x);
    expect(missing.code).toBe('MERGE_HOOK_MISSING');
    const boom = new Error('model offline');
    const failing = new Memory({ merge: async () => { throw boom; } });
    await failing.remember({ predicate: 'workflow.x', object: 'a' });
    const err = await failing.remember({ predicate: 'workflow.x', object: 'b' }).catch((x) => x);
    expect(err.code).toBe('HOOK_FAILED');
    expect(err.cause).toBe(boom);
    expect((await failing.recall('user', { includeHistory: true })).map((c) => c.object)).toEqual(['a']);
  });

  it('merge_on_read consolidates on recall and falls back when the hook fails', async () => {
    let fail = false;
    const memory = new Memory({ strategy: 'merge_on_read', merge: async (e, i) => { if (fail) throw new Error('x'); return { content: merge(e, i) && [...e.map((c) => c.object), i.object].join(' & ') }; } });
    await memory.remember({ predicate: 'notes', object: 'one' });
    await memory.remember({ predicate: 'notes', object: 'two' });
    expect((await memory.recall('user', { consolidate: true })).map((c) => c.object)).toEqual(['one & two']);
    fail = true;
    expect((await memory.recall('user', { consolidate: true })).map((c) => c.object)).toEqual(['one\n\n[update] two']);
    expect((await memory.recall('user')).length).toBe(2);
  });

  it('confidence_gated skips weaker writes; reject reports existing vs incoming; ask_user opens a conflict', async () => {
    const memory = new Memory();
    await memory.remember({ predicate: 'pref', object: 'vim', confidence: 0.9 }, { strategy: 'confidence_gated' });
    const skipped = await memory.remember({ predicate: 'pref', object: 'emacs', confidence: 0.3 }, { strategy: 'confidence_gated' });
    expect(skipped.action).toBe('skipped');
    const rejected = await memory.remember({ predicate: 'pref', object: 'nano' }, { strategy: 'reject' });
    expect(rejected.action).toBe('rejected');
    expect([rejected.affected[0].object, rejected.claim.object]).toEqual(['vim', 'nano']);
    const asked = await memory.remember({ predicate: 'pref', object: 'helix' }, { strategy: 'ask_user' });
    expect(asked.conflicts[0]).toMatchObject({ kind: 'ask_user', status: 'open' });
    expect((await memory.recall()).map((c) => c.object)).toEqual(['vim', 'helix']);
  });

  it('append keeps the newest entries under maxEntries', async () => {
    const memory = new Memory({ maxEntries: 3 });
    for (const e of ['e1', 'e2', 'e3', 'e4', 'e5', 'e6']) await memory.remember({ predicate: 'experience.log', object: e });
    expect((await memory.recall()).map((c) => c.object)).toEqual(['e4', 'e5', 'e6']);
  });

  it('blob(), upgradeBlob() and importBlob() speak Memoir v2', async () => {
    const memory = new Memory();
    expect((await memory.blob('experience.log')).content).toBe('');
    const v1 = { key: 'experience.log', content: 'legacy', timestamp: 1700000000, owner: 'ana' };
    const v2 = upgradeBlob(v1);
    expect(v2).toMatchObject({ schema_version: 2, confidence: 1, owner: 'ana', entries: [{ content: 'legacy', status: 'active' }] });
    expect(upgradeBlob(v2)).toEqual(v2);
    await memory.importBlob(v1);
    await memory.remember({ predicate: 'experience.log', object: 'new', confidence: 0.4 });
    const blob = await memory.blob('experience.log');
    expect(blob.content).toBe('legacy\n\n[update] new');
    expect(blob.confidence).toBe(1);
    expect(blob.timestamp).toBeGreaterThan(1700000000);
    expect(() => upgradeBlob('nope')).toThrow(CredenceError);
    const refused = (v1) => { try { upgradeBlob(v1); } catch (e) { return [e.code, e.field]; } return null; };
    expect(refused({ key: 'k', content: 'x', confidence: 2 })).toEqual(['INVALID_INPUT', 'blob.confidence']);
    expect(refused({ key: 'k', content: 'x', timestamp: -5 })).toEqual(['INVALID_TIME', 'blob.timestamp']);
    expect(refused({ key: ['k'], content: 'x' })).toEqual(['INVALID_INPUT', 'blob.key']);
  });

  it('importBlob of a blob this memory holds (a restore at start-up) writes nothing', async () => {
    const memory = new Memory();
    await memory.remember({ predicate: 'experience.log', object: 'a' });
    await memory.remember({ predicate: 'experience.log', object: 'b' });
    const saved = await memory.blob('experience.log');
    const before = await memory.recall(undefined, { predicate: 'experience.log', includeHistory: true });
    for (let i = 0; i < 3; i++) {
      const back = await memory.importBlob(JSON.parse(JSON.stringify(saved)));
      expect(back.map((o) => o.claim.id)).toEqual(before.map((c) => c.id));
      expect(back.every((o) => o.replayed && o.action === 'confirmed')).toBe(true);
    }
    expect(await memory.blob('experience.log')).toEqual(saved);
    const shape = (cs) => cs.map((c) => [c.id, c.object, c.status, c.provenance.length]);
    expect(shape(await memory.recall(undefined, { predicate: 'experience.log', includeHistory: true }))).toEqual(shape(before));
  });
});
