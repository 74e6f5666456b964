// `credence mcp` through the SDK's own Client + StdioClientTransport, as
// Claude Code or Claude Desktop would drive it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, STORE_KIND, credence, credenceJson, sandbox } from './support/cli.js';

async function connect(env) {
  const transport = new StdioClientTransport({ command: BIN, args: ['mcp'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'credence-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The tools whose answer to a model is text unless `format: "json"` asks for the full objects. */
const FORMATTED = ['remember', 'recall', 'conflicts', 'predicates'];

/** Calls a tool (asking for the full JSON where a tool has a format); returns the parsed result and the raw one. */
async function call(client, name, args) {
  const json = FORMATTED.includes(name) && args && !('format' in args) ? { ...args, format: 'json' } : args;
  const raw = await client.callTool({ name, arguments: json });
  return { raw, isError: raw.isError === true, text: raw.content[0]?.text, data: raw.structuredContent };
}

/** Calls a tool as a model would: the text it reads. */
async function read(client, name, args) {
  const raw = await client.callTool({ name, arguments: args });
  return { raw, isError: raw.isError === true, text: raw.content.map((c) => c.text).join('\n') };
}

let box;
let server;
beforeEach(async () => {
  box = sandbox();
  server = await connect(box.env);
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

describe(`credence mcp (${STORE_KIND} store)`, () => {
  it('lists the eight tools with their input schemas; the people tools say they are a person\'s acts', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['conflicts', 'predicates', 'recall', 'remember', 'retract', 'settle', 'undo', 'why']);
    for (const name of ['settle', 'undo', 'retract']) {
      const t = tools.find((x) => x.name === name);
      expect(t.title, name).toMatch(/a person's act/);
      expect(t.description, name).toMatch(/only when the user explicitly told you to/);
    }
    for (const name of ['remember', 'recall', 'why', 'conflicts']) {
      expect(tools.find((x) => x.name === name).description, name).not.toMatch(/person's decision/);
    }
    expect(tools.find((t) => t.name === 'retract').inputSchema.required).toEqual(['claimId']);
    const remember = tools.find((t) => t.name === 'remember');
    expect(remember.inputSchema.required.sort()).toEqual(['object', 'predicate']);
    expect(Object.keys(remember.inputSchema.properties)).toEqual(expect.arrayContaining(['subject', 'strategy', 'expectedVersion', 'confidence']));
    expect(tools.find((t) => t.name === 'recall').annotations?.readOnlyHint).toBe(true);
    expect(server.stderr()).toContain('credence mcp: serving');
  });

  it('remembers twice and reports what memory did; recall and why agree', async () => {
    const a = await call(server.client, 'remember', { object: 'NYC', predicate: 'located_in' });
    expect(a.isError).toBe(false);
    expect(a.data).toMatchObject({ action: 'added', claim: { object: 'NYC' }, slotVersion: 1 });
    expect(JSON.parse(a.text)).toEqual(a.data);

    const b = await call(server.client, 'remember', { object: 'San Francisco', predicate: 'lives in', source: 'chat', sourceTrust: 0.9 });
    expect(b.data).toMatchObject({ action: 'superseded', relation: 'supersede', affected: [{ object: 'NYC', status: 'superseded' }] });

    const recall = await call(server.client, 'recall', {});
    expect(recall.data.claims.map((c) => c.object)).toEqual(['San Francisco']);
    const history = await call(server.client, 'recall', { predicate: 'located_in', includeHistory: true });
    expect(history.data.claims.map((c) => c.status)).toEqual(['superseded', 'active']);

    const why = await call(server.client, 'why', { claimId: b.data.claim.id });
    expect(why.data.lineage.map((c) => c.object)).toEqual(['NYC', 'San Francisco']);
    expect(why.data.claim.provenance[0]).toMatchObject({ sourceId: 'chat', sourceTrust: 0.9 });
  });

  it('takes a strategy and an expectedVersion (compare-and-swap)', async () => {
    const first = await call(server.client, 'remember', { object: 'CET', predicate: 'timezone' });
    const rejected = await call(server.client, 'remember', { object: 'PST', predicate: 'timezone', strategy: 'reject' });
    expect(rejected.data).toMatchObject({ action: 'rejected', affected: [{ object: 'CET' }] });
    const stale = await call(server.client, 'remember', { object: 'PST', predicate: 'timezone', strategy: 'replace', expectedVersion: first.data.slotVersion - 1 });
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(/^CONCURRENCY/);
    expect(stale.data.error.code).toBe('CONCURRENCY');
    const ok = await call(server.client, 'remember', { object: 'PST', predicate: 'timezone', strategy: 'replace', expectedVersion: first.data.slotVersion });
    expect(ok.data.action).toBe('replaced');
  });

  it('lists a conflict, settles it, undoes it, and explains the claim', async () => {
    await call(server.client, 'remember', { object: 'CET', predicate: 'timezone' });
    const asked = await call(server.client, 'remember', { object: 'PST', predicate: 'timezone', strategy: 'ask_user' });
    const id = asked.data.conflicts[0].id;

    const open = await call(server.client, 'conflicts', { status: 'open' });
    expect(open.data.conflicts).toHaveLength(1);
    expect(open.data.conflicts[0]).toMatchObject({ id, kind: 'ask_user', earlier: { object: 'CET' }, newer: { object: 'PST' } });

    const settled = await call(server.client, 'settle', { conflictId: id, settlement: 'keep_newer', by: 'claude' });
    expect(settled.data).toMatchObject({ status: 'settled', settledBy: 'claude', earlier: { status: 'retired' } });
    expect((await call(server.client, 'conflicts', { status: 'open' })).data.conflicts).toEqual([]);

    const why = await call(server.client, 'why', { claimId: asked.data.conflicts[0].earlier.id });
    expect(why.data.claim.status).toBe('retired');
    expect(why.data.log.map((e) => e.rule)).toContain('settle');

    const undone = await call(server.client, 'undo', { conflictId: id });
    expect(undone.data).toMatchObject({ status: 'open', earlier: { status: 'active' } });

    // The CLI on the same store sees what the MCP server wrote.
    const cli = await credenceJson(['conflicts'], { env: box.env });
    expect(cli.json.map((c) => c.id)).toEqual([id]);
  });

  it('asks whether two look-alike names are one entity; settle same merges, undo splits', async () => {
    await call(server.client, 'remember', { object: 'Initech', predicate: 'works_at' });
    const asked = await call(server.client, 'remember', { object: 'Initech Labs', predicate: 'works_at' });
    const question = asked.data.conflicts.find((c) => c.kind === 'same_entity');
    expect(question).toMatchObject({ earlier: { object: 'Initech' }, newer: { object: 'Initech Labs' } });
    const open = await call(server.client, 'conflicts', { status: 'open' });
    expect(open.data.conflicts.map((c) => c.id)).toContain(question.id);
    const wrong = await call(server.client, 'settle', { conflictId: question.id, settlement: 'keep_both' });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toContain('INVALID_SETTLEMENT');
    const same = await call(server.client, 'settle', { conflictId: question.id, settlement: 'same', by: 'claude' });
    expect(same.data).toMatchObject({ status: 'settled', settlement: 'same', settledBy: 'claude' });
    const undone = await call(server.client, 'undo', { conflictId: question.id });
    expect(undone.data).toMatchObject({ status: 'open' });
  });

  it('retracts a fact with no replacement, undoes it by the retraction id, and refuses a stale undo', async () => {
    const job = await call(server.client, 'remember', { object: 'Acme', predicate: 'works_at' });
    const r = await call(server.client, 'retract', { claimId: job.data.claim.id, reason: 'left Acme, no new job yet', by: 'ana' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ by: 'ana', reason: 'left Acme, no new job yet', undone: false, claim: { id: job.data.claim.id, status: 'retracted' } });
    expect(r.data.id).toMatch(/^rt:/);
    expect(r.data.claim.validTo).toBeDefined();
    expect((await call(server.client, 'recall', { predicate: 'works_at' })).data.claims).toEqual([]);
    const why = await call(server.client, 'why', { claimId: job.data.claim.id });
    expect(why.data.log.find((e) => e.rule === 'retract')).toMatchObject({ cause: { op: 'retract', by: 'ana' } });

    const undone = await call(server.client, 'undo', { id: r.data.id });
    expect(undone.data).toMatchObject({ id: r.data.id, undone: true, claim: { status: 'active' } });
    expect(undone.data.claim.validTo).toBeUndefined();
    expect((await call(server.client, 'recall', { predicate: 'works_at' })).data.claims.map((c) => c.object)).toEqual(['Acme']);

    const again = await call(server.client, 'retract', { claimId: job.data.claim.id });
    await call(server.client, 'remember', { object: 'Globex', predicate: 'works_at' });
    const stale = await call(server.client, 'undo', { id: again.data.id });
    expect(stale.isError).toBe(true);
    expect(stale.data.error.code).toBe('UNDO_STALE');
    expect(stale.text).toMatch(/Globex/);
    expect((await call(server.client, 'recall', { predicate: 'works_at' })).data.claims.map((c) => c.object)).toEqual(['Globex']);

    // The CLI on the same store sees the retraction.
    const cli = await credenceJson(['recall', '-p', 'works_at', '--history'], { env: box.env });
    expect(cli.json.map((c) => c.status)).toEqual(['retracted', 'active']);
  });

  it('reports a dependent flag on the write that caused it, and settles it keep_earlier', async () => {
    await call(server.client, 'remember', { object: 'Acme', predicate: 'works_at' });
    await call(server.client, 'remember', { object: 'Dana', predicate: 'manager' });
    const moved = await call(server.client, 'remember', { object: 'Globex', predicate: 'works_at' });
    expect(moved.data.conflicts).toMatchObject([{ kind: 'dependent', predicate: 'manager', earlier: { object: 'Dana' }, newer: { object: 'Globex' } }]);
    const listed = await call(server.client, 'conflicts', { status: 'open' });
    expect(listed.data.conflicts.map((c) => c.kind)).toEqual(['dependent']);
    const kept = await call(server.client, 'settle', { conflictId: moved.data.conflicts[0].id, settlement: 'keep_earlier', by: 'ana' });
    expect(kept.data).toMatchObject({ status: 'settled', settlement: 'keep_earlier', earlier: { status: 'active' } });
    expect((await call(server.client, 'recall', { predicate: 'manager' })).data.claims.map((c) => c.object)).toEqual(['Dana']);
  });

  it('answers bad input with tool errors carrying the CredenceError code, and keeps serving', async () => {
    const cases = [
      ['remember', { object: 'x', predicate: ' ' }, 'INVALID_INPUT', 'predicate'],
      ['remember', { object: '', predicate: 'likes' }, 'INVALID_INPUT', 'object'],
      ['remember', { object: 'x', predicate: 'likes', confidence: 7 }, 'INVALID_INPUT', 'confidence'],
      ['remember', { object: 'x', predicate: 'likes', strategy: 'yolo' }, 'INVALID_STRATEGY', 'strategy'],
      ['remember', { object: 'x', predicate: 'likes', validFrom: 'soon' }, 'INVALID_TIME', 'validFrom'],
      ['remember', { object: 'x', predicate: 'likes', expectedVersion: -1 }, 'INVALID_INPUT', 'expectedVersion'],
      ['recall', { at: 'yesterdayish' }, 'INVALID_TIME', 'at'],
      ['why', { claimId: 'cl_nope' }, 'CLAIM_NOT_FOUND', 'claimId'],
      ['conflicts', { status: 'bogus' }, 'INVALID_INPUT', 'status'],
      ['settle', { conflictId: 'cf_nope', settlement: 'keep_newer' }, 'CONFLICT_NOT_FOUND', 'conflictId'],
      ['settle', { conflictId: 'cf_nope', settlement: 'keep_all' }, 'INVALID_SETTLEMENT', 'settlement'],
      ['undo', { conflictId: 'cf_nope' }, 'CONFLICT_NOT_FOUND', 'conflictId'],
      ['undo', {}, 'INVALID_INPUT', 'id'],
      ['retract', { claimId: 'cl_nope' }, 'CLAIM_NOT_FOUND', 'claimId'],
      ['retract', { claimId: 'cl_nope', at: 'whenever' }, 'INVALID_TIME', 'at'],
    ];
    for (const [tool, args, code, field] of cases) {
      const r = await call(server.client, tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(r.data.error, `${tool} ${JSON.stringify(args)}`).toMatchObject({ code, field });
      expect(r.text.startsWith(code)).toBe(true);
    }
    // What the input schema refuses (a missing or mistyped argument) is the same
    // tool error: INVALID_INPUT naming the field, in the text and structuredContent.
    for (const [args, field] of [[{ object: 'x' }, 'predicate'], [{ object: 'x', predicate: 'likes', confidence: 'high' }, 'confidence'], [{ object: 3, predicate: 'likes' }, 'object']]) {
      const r = await call(server.client, 'remember', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.data.error, JSON.stringify(args)).toMatchObject({ code: 'INVALID_INPUT', field });
      expect(r.text.startsWith(`INVALID_INPUT (${field}): `), r.text).toBe(true);
    }
    // So are unknown arguments, named, and nothing is written.
    for (const [tool, args, key] of [['remember', { object: 'x', predicate: 'likes', valid_from: '2026-01-01' }, 'valid_from'], ['recall', { asOf: '2026-01-01' }, 'asOf'], ['settle', { conflictId: 'cf_x', settlement: 'keep_newer', reason: 'r' }, 'reason']]) {
      const r = await call(server.client, tool, args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.data.error, JSON.stringify(args)).toMatchObject({ code: 'INVALID_INPUT', field: key });
      expect(r.text).toContain(`unknown key "${key}"`);
    }
    expect((await call(server.client, 'recall', {})).data.claims).toEqual([]);
    expect((await server.client.listTools()).tools).toHaveLength(8);
  });

  it('sends instructions, and the same tool definitions as credence/tools', async () => {
    const instructions = server.client.getInstructions();
    expect(instructions).toMatch(/Status, not confidence/);
    expect(instructions).toMatch(/"user"/);
    const { createTools } = await import('credence/tools');
    const { Memory } = await import('credence');
    const local = createTools(new Memory()).definitions;
    const { tools } = await server.client.listTools();
    for (const d of local) {
      const served = tools.find((t) => t.name === d.name);
      expect(served, d.name).toBeDefined();
      expect(served.description).toBe(d.description);
      expect(served.inputSchema).toEqual(d.inputSchema);
    }
    expect(tools).toHaveLength(local.length);
  });

  it('recalls 18 facts in under 2,000 characters of text', async () => {
    const facts = [
      ['located_in', 'San Francisco'], ['works_at', 'Acme Robotics'], ['job_title', 'Staff engineer'], ['born_on', '1990-04-12'],
      ['email', 'ana@example.com'], ['timezone', 'America/Los_Angeles'], ['married_to', 'Sam'], ['allergic_to', 'peanuts'],
      ['allergic_to', 'penicillin'], ['likes', 'espresso'], ['likes', 'trail running'], ['speaks', 'Portuguese'],
      ['speaks', 'English'], ['has_pet', 'a cat named Miso'], ['manager', 'Dana'], ['preferences.coding.style', 'tabs over spaces'],
      ['favorite_book', 'The Dispossessed'], ['dislikes', 'cilantro'],
    ];
    for (const [predicate, object] of facts) expect((await read(server.client, 'remember', { predicate, object, source: 'chat' })).isError).toBe(false);
    const r = await read(server.client, 'recall', {});
    expect(r.raw.structuredContent).toBeUndefined();
    expect(r.text.split('\n')).toHaveLength(19);
    expect(r.text.length).toBeLessThanOrEqual(2000);
    expect(r.text).toMatch(/^located_in: San Francisco \(active, [01]\.\d\d, since \d{4}-\d\d-\d\d, id \S+\)$/m);
  });

  it('declares hobby multi through remember: chess and climbing coexist', async () => {
    const first = await read(server.client, 'remember', { predicate: 'hobby', object: 'chess', cardinality: 'multi' });
    expect(first.text).toMatch(/^added: hobby: chess/);
    expect(first.text).toMatch(/hobby is multi-valued/);
    const second = await read(server.client, 'remember', { predicate: 'hobby', object: 'climbing' });
    expect(second.isError).toBe(false);
    const hobbies = await call(server.client, 'recall', { predicate: 'hobby' });
    expect(hobbies.data.claims.map((c) => [c.object, c.status])).toEqual([['chess', 'active'], ['climbing', 'active']]);
    const listed = await read(server.client, 'predicates', {});
    expect(listed.text).toMatch(/^hobby: multi, time-varying$/m);
    // The definition is kept in the store: another server process sees it.
    const other = await connect(box.env);
    try {
      const third = await call(other.client, 'remember', { predicate: 'hobby', object: 'go' });
      expect(third.data.spec).toEqual({ name: 'hobby', cardinality: 'multi', timeVarying: true, assumed: false });
    } finally {
      await other.close();
    }
  });

  it('exits when the client goes away', async () => {
    const extra = await connect(box.env);
    const transport = extra.client.transport;
    const pid = transport.pid;
    expect(pid).toBeGreaterThan(0);
    await extra.close();
    const deadline = Date.now() + 10000;
    let alive = true;
    while (alive && Date.now() < deadline) {
      try {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 50));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });
});

describe(`two MCP servers on one store (${STORE_KIND} store)`, () => {
  it('never lose an update, on one slot or many', async () => {
    const env = { ...box.env, CREDENCE_RETRIES: '60', CREDENCE_MAX_ENTRIES: '0' };
    const [a, b] = await Promise.all([connect(env), connect(env)]);
    try {
      const N = 12;
      const writes = [];
      for (let i = 0; i < N; i++) {
        writes.push(call(a.client, 'remember', { object: `a${i}`, predicate: 'notes', strategy: 'append' }));
        writes.push(call(b.client, 'remember', { object: `b${i}`, predicate: 'notes', strategy: 'append' }));
        writes.push(call(i % 2 ? a.client : b.client, 'remember', { object: `v${i}`, predicate: `slot_${i % 3}`, strategy: 'append' }));
      }
      const results = await Promise.all(writes);
      for (const r of results) expect(r.isError, r.text).toBe(false);
      const acknowledged = results.map((r) => r.data.claim.id);

      const notes = await call(a.client, 'recall', { predicate: 'notes', includeHistory: true });
      expect(notes.data.claims.map((c) => c.object).sort()).toEqual(
        [...Array.from({ length: N }, (_, i) => `a${i}`), ...Array.from({ length: N }, (_, i) => `b${i}`)].sort(),
      );
      const all = await call(b.client, 'recall', { includeHistory: true });
      const stored = new Set(all.data.claims.map((c) => c.id));
      for (const id of acknowledged) expect(stored.has(id), id).toBe(true);
      expect(all.data.claims).toHaveLength(3 * N);
      // Every slot's versions are gapless: one commit per acknowledged write.
      const versions = results.filter((r) => r.data.claim.predicate === 'notes').map((r) => r.data.slotVersion).sort((x, y) => x - y);
      expect(versions).toEqual(Array.from({ length: 2 * N }, (_, i) => i + 1));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('CREDENCE_MCP_PEOPLE_TOOLS', () => {
  it('refuses a value it does not know instead of offering the people tools', async () => {
    for (const value of ['disabled', 'none', 'n']) {
      const r = await credence(['mcp'], { env: { ...box.env, CREDENCE_MCP_PEOPLE_TOOLS: value }, input: '' });
      expect(r.code, value).toBe(2);
      expect(r.stderr, value).toContain('CREDENCE_MCP_PEOPLE_TOOLS must be "off" or "on"');
    }
  });
});

describe('credence mcp with CREDENCE_MCP_PEOPLE_TOOLS=off', () => {
  it('withholds settle, undo and retract from the agent; a call to one is refused', async () => {
    const off = await connect({ ...box.env, CREDENCE_MCP_PEOPLE_TOOLS: 'off' });
    try {
      const { tools } = await off.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['conflicts', 'predicates', 'recall', 'remember', 'why']);
      await call(off.client, 'remember', { object: 'CET', predicate: 'timezone' });
      const asked = await call(off.client, 'remember', { object: 'PST', predicate: 'timezone', strategy: 'ask_user' });
      const id = asked.data.conflicts[0].id;
      const tried = await off.client.callTool({ name: 'settle', arguments: { conflictId: id, settlement: 'keep_newer' } }).catch((e) => ({ thrown: e }));
      expect(tried.thrown ?? tried.isError).toBeTruthy();
      const retried = await off.client.callTool({ name: 'retract', arguments: { claimId: asked.data.claim.id } }).catch((e) => ({ thrown: e }));
      expect(retried.thrown ?? retried.isError).toBeTruthy();
      // Nothing was settled or retracted: the person still decides.
      expect((await call(off.client, 'conflicts', { status: 'open' })).data.conflicts.map((c) => c.id)).toEqual([id]);
      expect((await call(off.client, 'recall', { predicate: 'timezone' })).data.claims.every((c) => c.status !== 'retracted')).toBe(true);
    } finally {
      await off.close();
    }
  });
});
