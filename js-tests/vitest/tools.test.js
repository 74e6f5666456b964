// credence/tools: one definition of the agent tools, driven the three ways an
// agent calls tools — the Vercel AI SDK (its own mock model, no glue beyond
// the import and one line), a plain JSON-Schema function-calling loop, and
// execute() — plus the predicates and sources they rely on.
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Memory, builtinPredicates } from 'credence';
import { aiSdkTools, agentInstructions, createTools } from 'credence/tools';
import { describe, expect, it } from 'vitest';

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const toolCalls = (...calls) => ({
  content: calls.map(([toolName, input], i) => ({ type: 'tool-call', toolCallId: `call-${toolName}-${i}`, toolName, input: JSON.stringify(input) })),
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const text = (t) => ({ content: [{ type: 'text', text: t }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });

/** A scripted model: one response per step. */
function scripted(...steps) {
  let i = 0;
  return new MockLanguageModelV3({ doGenerate: async () => steps[Math.min(i++, steps.length - 1)] });
}

describe('AI SDK generateText with the SDK\'s own mock model', () => {
  it('calls credence tools wired in one line; hobby declared multi coexists', async () => {
    const memory = new Memory();
    const model = scripted(
      toolCalls(['remember', { predicate: 'hobby', object: 'chess', cardinality: 'multi' }], ['remember', { predicate: 'lives in', object: 'Lisbon' }]),
      toolCalls(['remember', { predicate: 'hobby', object: 'climbing' }]),
      toolCalls(['recall', {}]),
      text('You play chess and climb, and live in Lisbon.'),
    );
    const result = await generateText({ model, tools: aiSdkTools(memory), stopWhen: isStepCount(6), prompt: 'I play chess and climb; I live in Lisbon.' });

    expect(result.text).toBe('You play chess and climb, and live in Lisbon.');
    const results = result.steps.flatMap((s) => s.toolResults);
    expect(results.map((r) => r.toolName)).toEqual(['remember', 'remember', 'remember', 'recall']);
    const recalled = results.at(-1).output;
    expect(recalled).toMatch(/^hobby: chess \(active/m);
    expect(recalled).toMatch(/^hobby: climbing \(active/m);
    expect(recalled).toMatch(/^located_in: Lisbon \(active/m);
    const hobbies = await memory.recall('user', { predicate: 'hobby' });
    expect(hobbies.map((c) => [c.object, c.status])).toEqual([['chess', 'active'], ['climbing', 'active']]);
  });

  it('hands a refusal to the model as a tool error, naming the argument', async () => {
    const memory = new Memory();
    const model = scripted(toolCalls(['remember', { predicate: 'likes', object: 'tea', confidence: 3 }]), text('ok'));
    const result = await generateText({ model, tools: aiSdkTools(memory), stopWhen: isStepCount(3), prompt: 'x' });
    const errors = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
    expect(errors).toHaveLength(1);
    expect(String(errors[0].error?.message ?? errors[0].error)).toMatch(/confidence/);
    expect(await memory.recall()).toEqual([]);
  });

  it('sends the tools\' JSON Schemas to the model', async () => {
    const model = scripted(text('hi'));
    await generateText({ model, tools: aiSdkTools(new Memory(), { peopleTools: false }), prompt: 'x' });
    const sent = model.doGenerateCalls[0].tools;
    expect(sent.map((t) => t.name).sort()).toEqual(['conflicts', 'predicates', 'recall', 'remember', 'why']);
    const remember = sent.find((t) => t.name === 'remember');
    expect(remember.inputSchema).toMatchObject({ type: 'object', required: ['object', 'predicate'], additionalProperties: false });
    expect(remember.inputSchema.properties.cardinality.enum).toEqual(['single', 'multi']);
  });
});

describe('a plain JSON-Schema function-calling loop', () => {
  it('runs tool calls from OpenAI-style messages through execute()', async () => {
    const memory = new Memory();
    const tools = createTools(memory);
    const offered = tools.openai();
    expect(offered.every((t) => t.type === 'function' && t.function.parameters.type === 'object')).toBe(true);
    expect(tools.anthropic().map((t) => t.name)).toEqual(offered.map((t) => t.function.name));
    // What a model would answer with: tool calls whose arguments are JSON strings.
    const turns = [
      [{ id: '1', function: { name: 'remember', arguments: '{"predicate":"works_at","object":"Acme"}' } }],
      [{ id: '2', function: { name: 'remember', arguments: '{"predicate":"employer","object":"Globex","source":"user"}' } }],
      [{ id: '3', function: { name: 'recall', arguments: '{"predicate":"works_at","includeHistory":true}' } }],
      [{ id: '4', function: { name: 'recall', arguments: '{"asOf":"2026-01-01"}' } }],
    ];
    const messages = [];
    for (const calls of turns) {
      for (const call of calls) {
        const r = await tools.execute(call.function.name, JSON.parse(call.function.arguments));
        messages.push({ role: 'tool', tool_call_id: call.id, content: r.text, isError: r.isError });
      }
    }
    expect(messages[0].content).toMatch(/^added: works_at: Acme \(active/);
    expect(messages[1].content).toMatch(/^superseded \(relation supersede\): works_at: Globex/);
    expect(messages[1].content).toMatch(/^changed: works_at: Acme \(superseded/m);
    expect(messages[2].content.split('\n').slice(1)).toHaveLength(2);
    expect(messages[3]).toMatchObject({ isError: true });
    expect(messages[3].content).toMatch(/^INVALID_INPUT \(asOf\): .*unknown key "asOf"/);
    const why = await tools.execute('why', { claimId: (await memory.recall()).at(0).id });
    expect(why.data.claim.provenance[0]).toMatchObject({ sourceId: 'user' });
  });
});

describe('execute()', () => {
  it('reads 18 facts back in under 2,000 characters, full JSON on request', async () => {
    const memory = new Memory();
    const tools = createTools(memory);
    const facts = [
      ['located_in', 'San Francisco'], ['works_at', 'Acme Robotics'], ['job_title', 'Staff engineer'], ['born_on', '1990-04-12'],
      ['email', 'ana@example.com'], ['timezone', 'America/Los_Angeles'], ['married_to', 'Sam'], ['allergic_to', 'peanuts'],
      ['allergic_to', 'penicillin'], ['likes', 'espresso'], ['likes', 'trail running'], ['speaks', 'Portuguese'],
      ['speaks', 'English'], ['has_pet', 'a cat named Miso'], ['manager', 'Dana'], ['preferences.coding.style', 'tabs over spaces'],
      ['favorite_book', 'The Dispossessed'], ['dislikes', 'cilantro'],
    ];
    for (const [predicate, object] of facts) expect((await tools.execute('remember', { predicate, object })).isError).toBe(false);
    const compact = await tools.execute('recall', {});
    expect(compact.text.split('\n')).toHaveLength(19);
    expect(compact.text.length).toBeLessThanOrEqual(2000);
    const full = await tools.execute('recall', { format: 'json' });
    expect(full.data.claims).toHaveLength(18);
    expect(JSON.parse(full.text)).toEqual(full.data);
    expect(full.text.length).toBeGreaterThan(compact.text.length * 3);
  });

  it('withholds the people tools on request, and refuses them by name', async () => {
    const tools = createTools(new Memory(), { peopleTools: false });
    expect(tools.definitions.map((d) => d.name)).toEqual(['remember', 'recall', 'why', 'conflicts', 'predicates']);
    const r = await tools.execute('settle', { conflictId: 'cf_x', settlement: 'keep_newer' });
    expect(r).toMatchObject({ isError: true, error: { code: 'INVALID_INPUT', field: 'name' } });
    const all = createTools(new Memory()).definitions.filter((d) => d.person);
    expect(all.map((d) => d.name)).toEqual(['settle', 'undo', 'retract']);
    for (const d of all) expect(d.description).toMatch(/only when the user explicitly told you to/);
  });

  it('declares a predicate through remember, and refuses one that contradicts a built-in', async () => {
    const memory = new Memory();
    const tools = createTools(memory);
    const first = await tools.execute('remember', { predicate: 'hobby', object: 'chess', cardinality: 'multi', format: 'json' });
    expect(first.data.spec).toEqual({ name: 'hobby', cardinality: 'multi', timeVarying: true, assumed: false });
    const undeclared = await tools.execute('remember', { predicate: 'favorite_book', object: 'Dune' });
    expect(undeclared.text).toMatch(/favorite_book was never declared/);
    const clash = await tools.execute('remember', { predicate: 'lives in', object: 'Oslo', cardinality: 'multi' });
    expect(clash).toMatchObject({ isError: true, error: { code: 'INVALID_INPUT', field: 'cardinality' } });
    expect(await memory.recall('user', { predicate: 'located_in' })).toEqual([]);
    const listed = await tools.execute('predicates', {});
    expect(listed.text).toMatch(/^hobby: multi, time-varying$/m);
    expect(listed.text).toMatch(/^located_in: single, time-varying; aliases .*lives_in/m);
  });

  it('tells the agent how to name subjects and read status, listing the multi-valued built-ins', () => {
    const text = agentInstructions();
    const multi = builtinPredicates().filter((p) => p.cardinality === 'multi').map((p) => p.name);
    expect(multi).toEqual(expect.arrayContaining(['likes', 'allergic_to']));
    for (const name of multi) expect(text).toContain(name);
    expect(text).toMatch(/"user"/);
    expect(text).toMatch(/Status, not confidence/);
    const remember = createTools(new Memory()).definitions.find((d) => d.name === 'remember');
    for (const name of multi) expect(remember.description).toContain(name);
  });
});

describe('predicates and sources on Memory', () => {
  it('lists the specs in force and reports the one each write used', async () => {
    const memory = new Memory({ predicates: [{ name: 'hobby', cardinality: 'multi', timeVarying: false }] });
    const list = await memory.predicates();
    expect(list.find((p) => p.name === 'hobby')).toMatchObject({ origin: 'configured', cardinality: 'multi', memoryType: 'semantic' });
    expect(list.find((p) => p.name === 'located_in')).toMatchObject({ origin: 'builtin', halfLifeDays: 365, halfLifeSource: 'predicate' });
    const o = await memory.remember({ predicate: 'city', object: 'Oslo' });
    expect(o.spec).toEqual({ name: 'located_in', cardinality: 'single', timeVarying: true, assumed: false });
    expect((await memory.remember({ predicate: 'mood', object: 'fine' })).spec.assumed).toBe(true);
    const defined = await memory.definePredicate({ name: 'favorite_book', cardinality: 'multi' });
    expect(defined).toMatchObject({ name: 'favorite_book', origin: 'defined', cardinality: 'multi' });
    await expect(memory.definePredicate({ name: 'x', cardinalty: 'multi' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('gives a configured source its trust when a write states none', async () => {
    const memory = new Memory({ sources: { user: { trust: 0.95 } } });
    const o = await memory.remember({ predicate: 'likes', object: 'tea', provenance: { sourceId: 'user' } });
    expect(o.claim.provenance[0].sourceTrust).toBe(0.95);
    expect(() => new Memory({ sources: { user: { trust: 2 } } })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', field: 'sources.user.trust' }));
    expect(() => new Memory({ sources: { user: { trust: 0.9, weight: 1 } } })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    let err;
    try {
      new Memory({ sources: { user: { trusst: 0.9 } } });
    } catch (e) {
      err = e;
    }
    expect(err.message).toMatch(/trusst/);
  });
});
