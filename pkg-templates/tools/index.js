// `credence/tools`: one definition of the agent-facing operations (SPEC §10),
// rendered for every way an agent calls tools:
//
//   aiSdkTools(memory)                 Vercel AI SDK tools: generateText({ tools: aiSdkTools(memory) })
//   createTools(memory).schemas()      plain JSON Schemas for function calling
//     .openai() / .anthropic()         the same in each vendor's envelope
//   createTools(memory).execute(n, a)  the dispatcher: { text, data, isError, error }
//   credence mcp                       the MCP server, built on the same definitions
//
// Tool arguments are flat (`source`, `sourceTrust`), the library's candidate
// nests them (`provenance: { sourceId, sourceTrust }`): remember maps one to
// the other and nothing else differs. Settling, undoing and retracting are a
// person's acts: `peopleTools: false` (or CREDENCE_MCP_PEOPLE_TOOLS=off for
// the MCP server) withholds them.
import { CredenceError, builtinPredicates } from 'credence';
import { checkArguments } from './schema.js';
import { conflictsText, outcomeText, predicatesText, recallText } from './render.js';

const STRATEGIES = 'reconcile, append, replace, confidence_gated, llm_merge, merge_on_read, reject, ask_user';

const PERSON_ONLY =
  'This is a person\'s decision, not yours: call it only when the user explicitly told you to, in this conversation, ' +
  'for this item; never to resolve a conflict or withdraw a fact on your own judgment.';

const FORMAT = {
  type: 'string',
  enum: ['text', 'json'],
  description: '"text" (default): a line per item, for reading; "json": the full objects',
};

/** The built-in predicates that hold several values at once, by name. */
function multiValuedBuiltins() {
  return builtinPredicates()
    .filter((p) => p.cardinality === 'multi')
    .map((p) => p.name);
}

/**
 * What the MCP server sends as `instructions` (and what a system prompt can
 * include): how to name subjects, read status and confidence, and declare
 * multi-valued predicates.
 */
export function agentInstructions() {
  const multi = multiValuedBuiltins().join(', ');
  return [
    'credence is this assistant\'s long-term memory of facts about the user and the world. Write facts with remember as you learn them; read them with recall before answering from memory.',
    '- Keep subjects stable: the user is "user" (the default), never their name; other people and things by one canonical name.',
    '- Status, not confidence, says what holds now: "active" is current; "disputed" means two reports disagree and a person may have to settle it; superseded, outweighed, retired and retracted are history. Confidence (0-1) is belief in the value: a fact just changed (a move) can be active at 0.46 because one report has not yet outweighed the history, and it is still the current value.',
    `- Most predicates hold one value: a new value supersedes the old. Multi-valued built-ins, whose values coexist: ${multi}. For a new predicate that can hold several values at once (hobby, favorite_book), pass cardinality "multi" with its first remember; the predicates tool lists every declared predicate.`,
    '- A stated confidence below 1 lowers a report\'s weight: omit it unless you are unsure.',
    '- conflicts lists what waits for a person; settle, undo and retract only on the person\'s explicit instruction.',
  ].join('\n');
}

function defined(obj) {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/**
 * The tool definitions: name, title, description, input JSON Schema,
 * annotations, whether a person's act, and how each runs on a Memory.
 * `run` resolves to `{ data, text }`.
 */
function definitions({ consolidate = false } = {}) {
  const multi = multiValuedBuiltins().join(', ');
  return [
    {
      name: 'remember',
      title: 'Remember a fact',
      description:
        'Write one fact (subject, predicate, object) to memory. Memory decides what it means against what it already holds ' +
        '(confirm, refine, coexist, supersede, contradict) and answers with the outcome: what it did, the claims it changed, any conflict opened for a person, and the predicate\'s spec. ' +
        `Most predicates hold one value, so a new value supersedes the old; these built-ins hold several: ${multi}. ` +
        'For a new predicate that can hold several values (hobby, favorite_book), pass cardinality "multi".',
      inputSchema: {
        type: 'object',
        properties: {
          object: { type: 'string', description: 'The value, e.g. "San Francisco" or "prefers tabs over spaces"' },
          predicate: { type: 'string', description: 'A predicate (located_in, works_at, likes), an alias ("lives in") or a taxonomy path (preferences.coding.style)' },
          subject: { type: 'string', description: 'Who or what the fact is about (default "user"; keep it stable, never the user\'s name)' },
          cardinality: { type: 'string', enum: ['single', 'multi'], description: 'Declares a new predicate: "multi" if several values hold at once (hobbies), "single" if a new value replaces the old (the default). Refused if it contradicts a declared predicate.' },
          timeVarying: { type: 'boolean', description: 'Declares a new predicate: false if its value holds for good (a birthday); default true' },
          strategy: { type: 'string', description: `How to write into an occupied slot: ${STRATEGIES}. Omit for the configured default.` },
          expectedVersion: { type: 'integer', minimum: 0, description: 'Compare-and-swap: fail with CONCURRENCY unless the slot is still at this version (slotVersion of your last outcome)' },
          confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure you are, 0..1 (default 1; below 1 lowers the report\'s weight: omit unless unsure)' },
          source: { type: 'string', description: 'Who stated the fact (provenance.sourceId; default "caller")' },
          sourceTrust: { type: 'number', minimum: 0, maximum: 1, description: 'How far that source is trusted, 0..1 (default: the configured trust of the source, else 0.8)' },
          validFrom: { type: 'string', description: 'When it became true (ISO 8601)' },
          validTo: { type: 'string', description: 'When it stopped being true (ISO 8601)' },
          id: { type: 'string', description: 'Idempotency key: the same id written twice changes memory once' },
          format: FORMAT,
        },
        required: ['object', 'predicate'],
        additionalProperties: false,
      },
      async run(memory, a) {
        if (a.cardinality !== undefined || a.timeVarying !== undefined) {
          await memory.definePredicate(defined({ name: a.predicate, cardinality: a.cardinality, timeVarying: a.timeVarying })).catch((err) => {
            // The definition's name is the tool's predicate.
            if (err?.field !== 'name') throw err;
            throw new CredenceError(err.message.replace(/^name\b/, 'predicate'), { code: err.code, field: 'predicate', cause: err });
          });
        }
        const candidate = defined({ subject: a.subject, predicate: a.predicate, object: a.object, confidence: a.confidence, validFrom: a.validFrom, validTo: a.validTo, id: a.id });
        if (a.source !== undefined || a.sourceTrust !== undefined) {
          candidate.provenance = defined({ sourceId: a.source ?? 'caller', sourceTrust: a.sourceTrust });
        }
        const data = await memory.remember(candidate, defined({ strategy: a.strategy, expectedVersion: a.expectedVersion }));
        return { data, text: a.format === 'json' ? undefined : outcomeText(data) };
      },
    },
    {
      name: 'recall',
      title: 'Recall beliefs',
      description:
        'What memory currently believes about a subject (default "user"), optionally one predicate, as of a time, or with history. ' +
        'One line per fact: predicate: value (status, confidence, since, id). Status "active" is current, whatever the confidence.',
      inputSchema: {
        type: 'object',
        properties: {
          subject: { type: 'string', description: 'Who or what (default "user")' },
          predicate: { type: 'string', description: 'Only this predicate (a name or an alias)' },
          at: { type: 'string', description: 'As of this moment (ISO 8601)' },
          includeHistory: { type: 'boolean', description: 'Include superseded, outweighed, retired and retracted claims' },
          format: FORMAT,
        },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      async run(memory, a) {
        const claims = await memory.recall(a.subject, defined({ predicate: a.predicate, at: a.at, includeHistory: a.includeHistory, consolidate: consolidate || undefined }));
        return { data: { claims }, text: a.format === 'json' ? undefined : recallText(claims, a.subject) };
      },
    },
    {
      name: 'why',
      title: 'Explain a claim',
      description: 'Why memory believes a claim: the claim, its lineage (what it superseded) and every log entry that explains it.',
      inputSchema: {
        type: 'object',
        properties: { claimId: { type: 'string', description: 'A claim id (from recall or remember)' } },
        required: ['claimId'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      run: async (memory, a) => ({ data: await memory.why(a.claimId) }),
    },
    {
      name: 'conflicts',
      title: 'List conflicts',
      description:
        'Conflicts waiting for a person, open first then oldest first; each shows the earlier and newer claim and the reason. ' +
        'A dependent conflict flags a fact (earlier) that hangs on one that changed or was retracted (newer): ask the person whether it still holds.',
      inputSchema: {
        type: 'object',
        properties: {
          status: { type: 'string', description: 'open | settled | resolved_by_evidence | moot (default: all)' },
          format: FORMAT,
        },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      async run(memory, a) {
        const conflicts = await memory.conflicts(defined({ status: a.status }));
        return { data: { conflicts }, text: a.format === 'json' ? undefined : conflictsText(conflicts) };
      },
    },
    {
      name: 'predicates',
      title: 'List declared predicates',
      description:
        'The declared predicates (built-in, configured, defined): name, aliases, single or multi-valued, time-varying or not. ' +
        'Any other predicate is single-valued: a new value supersedes the old.',
      inputSchema: { type: 'object', properties: { format: FORMAT }, additionalProperties: false },
      annotations: { readOnlyHint: true },
      async run(memory, a) {
        const predicates = await memory.predicates();
        return { data: { predicates }, text: a.format === 'json' ? undefined : predicatesText(predicates) };
      },
    },
    {
      name: 'settle',
      person: true,
      title: 'Settle a conflict (a person\'s act)',
      description:
        'Settle a conflict as the user decided: keep_newer retires the earlier claim, keep_earlier the newer, keep_both dismisses the conflict ' +
        '(for a dependent conflict: keep_earlier = it still holds, keep_newer = retract it). ' +
        'A same_entity conflict (two entity names that look alike) is settled same (merge the two entities) or different (never asked again). ' +
        `Undoable. ${PERSON_ONLY}`,
      inputSchema: {
        type: 'object',
        properties: {
          conflictId: { type: 'string' },
          settlement: { type: 'string', description: 'keep_newer | keep_earlier | keep_both; same | different for a same_entity conflict' },
          by: { type: 'string', description: 'The person who decided' },
        },
        required: ['conflictId', 'settlement'],
        additionalProperties: false,
      },
      run: async (memory, a) => ({ data: await memory.settle(a.conflictId, a.settlement, defined({ by: a.by })) }),
    },
    {
      name: 'undo',
      person: true,
      title: 'Undo a settlement or retraction (a person\'s act)',
      description:
        'Revert a settlement (reopening the conflict) or a retraction (an id starting "rt:"), exactly; refused with UNDO_STALE ' +
        `when the claims it changed changed since. ${PERSON_ONLY}`,
      inputSchema: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'A conflict id, or a retraction id from retract' },
          conflictId: { type: 'string', description: 'Same as id (the name earlier versions used)' },
        },
        additionalProperties: false,
      },
      async run(memory, a) {
        const id = a.id ?? a.conflictId;
        if (id === undefined) throw new CredenceError('id: give the conflict or retraction id to undo', { code: 'INVALID_INPUT', field: 'id' });
        return { data: await memory.undo(id) };
      },
    },
    {
      name: 'retract',
      person: true,
      title: 'Retract a fact (a person\'s act)',
      description:
        'Withdraw a claim that no longer holds and has no replacement (a cancelled plan, a job left with no new one, a wrong fact): ' +
        'it becomes retracted, its validity ends, the reason is logged. Returns a retraction whose id undo accepts. ' +
        `To record a new value instead, use remember. ${PERSON_ONLY}`,
      inputSchema: {
        type: 'object',
        properties: {
          claimId: { type: 'string' },
          reason: { type: 'string', description: 'Why it no longer holds, in the user\'s words' },
          by: { type: 'string', description: 'The person who asked' },
          at: { type: 'string', description: 'When it stopped holding (ISO 8601, default now)' },
        },
        required: ['claimId'],
        additionalProperties: false,
      },
      run: async (memory, a) => ({ data: await memory.retract(a.claimId, defined({ reason: a.reason, by: a.by, at: a.at })) }),
    },
  ];
}

/** `{ code, field?, message }` of a refusal. */
function errorJson(err) {
  const out = { code: err?.code ?? 'INTERNAL', message: err?.message ?? String(err) };
  if (err?.field !== undefined) out.field = err.field;
  return out;
}

/** `CREDENCE_MCP_PEOPLE_TOOLS`-style switch: off, false, 0, no withhold; on, true, 1, yes or unset offer. */
function peopleToolsFrom(value) {
  if (typeof value === 'boolean' || value === undefined) return value ?? true;
  throw new CredenceError(`peopleTools: must be true or false, got ${JSON.stringify(value)}`, { code: 'INVALID_INPUT', field: 'peopleTools' });
}

/**
 * The agent tools on one Memory.
 *
 * Options: `peopleTools` (default true; false withholds settle, undo and
 * retract), `only` (tool names to offer), `consolidate` (recall runs the
 * merge hook over merge_on_read slots).
 */
export function createTools(memory, options = {}) {
  if (!memory || typeof memory.remember !== 'function' || typeof memory.recall !== 'function') {
    throw new CredenceError('memory: must be a credence Memory', { code: 'INVALID_INPUT', field: 'memory' });
  }
  const known = ['peopleTools', 'only', 'consolidate'];
  const unknown = Object.keys(options ?? {}).filter((k) => !known.includes(k));
  if (unknown.length) throw new CredenceError(`options: unknown key ${JSON.stringify(unknown[0])}; the options are ${known.join(', ')}`, { code: 'INVALID_INPUT', field: unknown[0] });
  const peopleTools = peopleToolsFrom(options.peopleTools);
  let list = definitions({ consolidate: options.consolidate === true }).filter((t) => peopleTools || !t.person);
  if (options.only) {
    const names = new Set(options.only);
    const missing = [...names].filter((n) => !list.some((t) => t.name === n));
    if (missing.length) throw new CredenceError(`only: no tool ${JSON.stringify(missing[0])} here; the tools are ${list.map((t) => t.name).join(', ')}`, { code: 'INVALID_INPUT', field: 'only' });
    list = list.filter((t) => names.has(t.name));
  }
  const byName = new Map(list.map((t) => [t.name, t]));

  /** Runs one tool; never throws for a refusal: `{ isError: true, error, text }` says what a model should fix. */
  async function execute(name, args) {
    try {
      const tool = byName.get(name);
      if (!tool) {
        throw new CredenceError(`no tool ${JSON.stringify(name)}; the tools are ${[...byName.keys()].join(', ')}`, { code: 'INVALID_INPUT', field: 'name' });
      }
      const problem = checkArguments(tool.inputSchema, args);
      if (problem) throw problem;
      const { data, text } = await tool.run(memory, args ?? {});
      return { isError: false, data, text: text ?? JSON.stringify(data) };
    } catch (err) {
      const error = errorJson(err);
      const text = `${error.code}${error.field ? ` (${error.field})` : ''}: ${error.message}`;
      return { isError: true, error, data: { error }, text };
    }
  }

  const publicDefinition = (t) => defined({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations, person: t.person === true });

  return {
    /** The definitions: name, title, description, inputSchema (JSON Schema), annotations, person. */
    definitions: list.map(publicDefinition),
    execute,
    /** Plain JSON Schemas: `[{ name, description, parameters }]`. */
    schemas: () => list.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
    /** OpenAI Chat Completions `tools`: `[{ type: "function", function: { name, description, parameters } }]`. */
    openai: () => list.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })),
    /** Anthropic Messages `tools`: `[{ name, description, input_schema }]`. */
    anthropic: () => list.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    /** Vercel AI SDK tools (a record by name), for `generateText({ tools })`. */
    aiSdk: () => Object.fromEntries(list.map((t) => [t.name, aiSdkTool(t, execute)])),
    instructions: agentInstructions,
  };
}

/**
 * An AI SDK tool without depending on `ai`: the input schema is a Standard
 * Schema with its JSON Schema (`~standard.jsonSchema`, what the AI SDK
 * reads), also marked as the SDK's own `jsonSchema()` value for releases that
 * read that instead. A refusal throws, which the SDK hands to the model as a
 * tool error.
 */
function aiSdkTool(t, execute) {
  const validate = (value) => {
    const problem = checkArguments(t.inputSchema, value);
    return problem ? { issues: [{ message: problem.message, path: problem.field ? [problem.field] : [] }] } : { value };
  };
  const inputSchema = {
    '~standard': {
      version: 1,
      vendor: 'credence',
      validate,
      jsonSchema: { input: () => t.inputSchema, output: () => t.inputSchema },
    },
    [Symbol.for('vercel.ai.schema')]: true,
    jsonSchema: t.inputSchema,
    validate: (value) => {
      const r = validate(value);
      return r.issues ? { success: false, error: new CredenceError(r.issues[0].message, { code: 'INVALID_INPUT' }) } : { success: true, value };
    },
  };
  return {
    type: 'function',
    description: t.description,
    title: t.title,
    inputSchema,
    execute: async (args) => {
      const r = await execute(t.name, args);
      if (r.isError) throw new CredenceError(r.text, { code: r.error.code, field: r.error.field });
      return r.text;
    },
  };
}

/** Vercel AI SDK tools on a Memory: `generateText({ model, tools: aiSdkTools(memory), prompt })`. */
export function aiSdkTools(memory, options) {
  return createTools(memory, options).aiSdk();
}
