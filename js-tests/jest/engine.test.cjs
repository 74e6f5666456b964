// The same engine behaviours through require(), with a JS merge hook.
const { Memory, MemoryStore } = require('credence');

test('supersede, coexist, dispute and tie-break', async () => {
  const memory = new Memory();
  await memory.remember({ predicate: 'located_in', object: 'NYC' });
  expect((await memory.remember({ predicate: 'located_in', object: 'SF' })).action).toBe('superseded');
  await memory.remember({ predicate: 'allergic_to', object: 'peanuts' });
  expect((await memory.remember({ predicate: 'allergic_to', object: 'shellfish' })).relation).toBe('independent');
  await memory.remember({ predicate: 'born_on', object: '1990-03-04', provenance: { sourceId: 'a' } });
  expect((await memory.remember({ predicate: 'born_on', object: '1990-04-03', provenance: { sourceId: 'b' } })).action).toBe('disputed');
  await memory.remember({ predicate: 'born_on', object: '1990-03-04', provenance: { sourceId: 'c' } });
  const born = (await memory.recall('user', { predicate: 'born_on' })).map((c) => [c.object, c.status]);
  expect(born).toEqual([['1990-03-04', 'active']]);
});

test('llm_merge with a JS hook, settle and undo from a second Memory', async () => {
  const store = new MemoryStore();
  const memory = new Memory({ store, merge: async (entries, incoming) => `${entries.length} earlier + ${incoming.object}` });
  await memory.remember({ predicate: 'workflow.deploy', object: 'ssh in' });
  const merged = await memory.remember({ predicate: 'workflow.deploy', object: 'run make' });
  expect([merged.action, merged.claim.object]).toEqual(['merged', '1 earlier + run make']);
  const other = new Memory({ store });
  await other.remember({ predicate: 'timezone', object: 'CET' });
  const asked = await other.remember({ predicate: 'timezone', object: 'PST' }, { strategy: 'ask_user' });
  await memory.settle(asked.conflicts[0].id, 'keep_newer');
  expect((await other.recall('user', { predicate: 'timezone' })).map((c) => c.object)).toEqual(['PST']);
  await other.undo(asked.conflicts[0].id);
  expect((await memory.recall('user', { predicate: 'timezone' })).map((c) => c.object)).toEqual(['CET', 'PST']);
});
