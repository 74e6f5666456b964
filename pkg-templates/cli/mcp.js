// `credence mcp`: a stdio MCP server (official SDK) exposing remember, recall,
// why and conflicts, and the people tools settle, undo and retract, on the
// store the environment names. Settling, undoing and retracting are a
// person's acts (SPEC §10): their descriptions say so, and
// CREDENCE_MCP_PEOPLE_TOOLS=off withholds them so an agent cannot approve its
// own writes. The input schemas check types; the engine checks meaning, and a
// refusal comes back as a tool result with `isError: true` whose text starts
// with the CredenceError code (also in `structuredContent.error`). stdout
// carries the protocol only.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { CredenceError } from '../index.node.js';
import { UsageError, errorJson } from './exit.js';
import { openMemory } from './memory.js';

const STRATEGIES = 'reconcile, append, replace, confidence_gated, llm_merge, merge_on_read, reject, ask_user';

function ok(value) {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

function fail(err) {
  const error = errorJson(err);
  const text = `${error.code}${error.field ? ` (${error.field})` : ''}: ${error.message}`;
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { error } };
}

function defined(obj) {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

const PERSON_ONLY =
  'This is a person\'s decision, not yours: call it only when the user explicitly told you to, in this conversation, ' +
  'for this item; never to resolve a conflict or withdraw a fact on your own judgment.';

/**
 * `CREDENCE_MCP_PEOPLE_TOOLS=off` (or false, 0, no) withholds settle, undo and
 * retract; on, true, 1, yes or unset offers them. Anything else is refused: a
 * misspelled "off" must not hand an agent the people tools (SPEC §11).
 */
export function peopleToolsEnabled(env) {
  const given = env.CREDENCE_MCP_PEOPLE_TOOLS;
  const v = String(given ?? '').trim().toLowerCase();
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  if (['', 'on', 'true', '1', 'yes'].includes(v)) return true;
  throw new UsageError(`CREDENCE_MCP_PEOPLE_TOOLS must be "off" or "on", got ${JSON.stringify(given)}`);
}

const INVALID = Symbol('credence.invalidArguments');

/** The first problem zod found with a tool's arguments, as a CredenceError naming the field. */
function invalidArguments(schema, args) {
  const issue = schema.safeParse(args ?? {}).error?.issues?.[0];
  if (!issue) return new CredenceError('arguments: refused by the tool\'s schema', { code: 'INVALID_INPUT' });
  const keys = issue.code === 'unrecognized_keys' ? issue.keys ?? [] : [];
  const field = [...issue.path, ...keys.slice(0, 1)].join('.') || 'arguments';
  const message = keys.length ? `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')}` : issue.message;
  return new CredenceError(`arguments.${field}: ${message}`, { code: 'INVALID_INPUT', field });
}

/**
 * The SDK answers arguments its schema refuses with a protocol message
 * ("MCP error -32602: Input validation error…") and no code. Here they reach
 * the tool, which answers `INVALID_INPUT` naming the field, like every other
 * refusal. Only this one SDK method is overridden; should a later SDK stop
 * calling it, its own message comes back instead.
 */
class CredenceMcpServer extends McpServer {
  async validateToolInput(tool, args, toolName) {
    try {
      return await super.validateToolInput(tool, args, toolName);
    } catch (err) {
      if (!tool.inputSchema?.safeParse) throw err;
      return { [INVALID]: invalidArguments(tool.inputSchema, args) };
    }
  }
}

/** The server with its tools, on an open Memory; `peopleTools: false` leaves out settle, undo and retract. */
export function createMcpServer({ memory, consolidate = false, version = '0.0.0', peopleTools = true }) {
  const server = new CredenceMcpServer({ name: 'credence', version });
  // Strict: an unknown argument (`valid_from`, `asOf`) is a tool error naming it, as the listed
  // schema (additionalProperties: false) says, not dropped in silence (SPEC §11).
  const tool = (name, config, run) =>
    server.registerTool(name, { ...config, inputSchema: config.inputSchema && z.object(config.inputSchema).strict() }, async (args) => {
      if (args?.[INVALID]) return fail(args[INVALID]);
      try {
        return ok(await run(args ?? {}));
      } catch (err) {
        return fail(err);
      }
    });

  tool(
    'remember',
    {
      title: 'Remember a fact',
      description:
        'Write one fact (subject, predicate, object) to memory. Memory decides what it means against what it already holds ' +
        '(confirm, refine, coexist, supersede, contradict) and returns the outcome: action, relation, the stored claim, ' +
        'the claims it changed and any conflict opened for a person to settle.',
      inputSchema: {
        object: z.string().describe('The value, e.g. "San Francisco" or "prefers tabs over spaces"'),
        predicate: z.string().describe('A predicate (located_in, works_at, likes), an alias ("lives in") or a taxonomy path (preferences.coding.style)'),
        subject: z.string().optional().describe('Who or what the fact is about (default "user")'),
        strategy: z.string().optional().describe(`How to write into an occupied slot: ${STRATEGIES}. Omit for the configured default.`),
        expectedVersion: z.number().optional().describe('Compare-and-swap: fail with CONCURRENCY unless the slot is still at this version (outcome.slotVersion of your last read)'),
        confidence: z.number().optional().describe('How sure you are, 0..1 (default 1)'),
        source: z.string().optional().describe('Who observed the fact (default "caller")'),
        sourceTrust: z.number().optional().describe('How far that source is trusted, 0..1 (default 0.8)'),
        validFrom: z.string().optional().describe('When it became true (ISO 8601)'),
        validTo: z.string().optional().describe('When it stopped being true (ISO 8601)'),
        id: z.string().optional().describe('Idempotency key: the same id written twice changes memory once'),
      },
    },
    async (a) => {
      const candidate = defined({ subject: a.subject, predicate: a.predicate, object: a.object, confidence: a.confidence, validFrom: a.validFrom, validTo: a.validTo, id: a.id });
      if (a.source !== undefined || a.sourceTrust !== undefined) {
        candidate.provenance = defined({ sourceId: a.source ?? 'caller', sourceTrust: a.sourceTrust });
      }
      return memory.remember(candidate, defined({ strategy: a.strategy, expectedVersion: a.expectedVersion }));
    },
  );

  tool(
    'recall',
    {
      title: 'Recall beliefs',
      description: 'What memory currently believes about a subject (default "user"), optionally one predicate, as of a time, or with history.',
      inputSchema: {
        subject: z.string().optional(),
        predicate: z.string().optional(),
        at: z.string().optional().describe('As of this moment (ISO 8601)'),
        includeHistory: z.boolean().optional().describe('Include superseded, outweighed, retired and retracted claims'),
      },
      annotations: { readOnlyHint: true },
    },
    async (a) => ({
      claims: await memory.recall(a.subject, defined({ predicate: a.predicate, at: a.at, includeHistory: a.includeHistory, consolidate: consolidate || undefined })),
    }),
  );

  tool(
    'why',
    {
      title: 'Explain a claim',
      description: 'Why memory believes a claim: the claim, its lineage (what it superseded) and every log entry that explains it.',
      inputSchema: { claimId: z.string() },
      annotations: { readOnlyHint: true },
    },
    async (a) => memory.why(a.claimId),
  );

  tool(
    'conflicts',
    {
      title: 'List conflicts',
      description:
        'Conflicts waiting for a person, open first then oldest first; each shows the earlier and newer claim and the reason. ' +
        'A dependent conflict flags a fact (earlier) that hangs on one that changed or was retracted (newer): ask the person whether it still holds.',
      inputSchema: { status: z.string().optional().describe('open | settled | resolved_by_evidence | moot (default: all)') },
      annotations: { readOnlyHint: true },
    },
    async (a) => ({ conflicts: await memory.conflicts(defined({ status: a.status })) }),
  );

  if (!peopleTools) return server;

  tool(
    'settle',
    {
      title: 'Settle a conflict (a person\'s act)',
      description:
        'Settle a conflict as the user decided: keep_newer retires the earlier claim, keep_earlier the newer, keep_both dismisses the conflict ' +
        '(for a dependent conflict: keep_earlier = it still holds, keep_newer = retract it). ' +
        'A same_entity conflict (two entity names that look alike) is settled same (merge the two entities) or different (never asked again). ' +
        `Undoable. ${PERSON_ONLY}`,
      inputSchema: {
        conflictId: z.string(),
        settlement: z.string().describe('keep_newer | keep_earlier | keep_both; same | different for a same_entity conflict'),
        by: z.string().optional().describe('The person who decided'),
      },
    },
    async (a) => memory.settle(a.conflictId, a.settlement, defined({ by: a.by })),
  );

  tool(
    'undo',
    {
      title: 'Undo a settlement or retraction (a person\'s act)',
      description:
        'Revert a settlement (reopening the conflict) or a retraction (an id starting "rt:"), exactly; refused with UNDO_STALE ' +
        `when the claims it changed changed since. ${PERSON_ONLY}`,
      inputSchema: {
        id: z.string().optional().describe('A conflict id, or a retraction id from retract'),
        conflictId: z.string().optional().describe('Same as id (the name earlier versions used)'),
      },
    },
    async (a) => {
      const id = a.id ?? a.conflictId;
      if (id === undefined) throw new CredenceError('id: give the conflict or retraction id to undo', { code: 'INVALID_INPUT', field: 'id' });
      return memory.undo(id);
    },
  );

  tool(
    'retract',
    {
      title: 'Retract a fact (a person\'s act)',
      description:
        'Withdraw a claim that no longer holds and has no replacement (a cancelled plan, a job left with no new one, a wrong fact): ' +
        'it becomes retracted, its validity ends, the reason is logged. Returns a retraction whose id undo accepts. ' +
        `To record a new value instead, use remember. ${PERSON_ONLY}`,
      inputSchema: {
        claimId: z.string(),
        reason: z.string().optional().describe('Why it no longer holds, in the user\'s words'),
        by: z.string().optional().describe('The person who asked'),
        at: z.string().optional().describe('When it stopped holding (ISO 8601, default now)'),
      },
    },
    async (a) => memory.retract(a.claimId, defined({ reason: a.reason, by: a.by, at: a.at })),
  );

  return server;
}

/** Serves on stdin/stdout until the client closes the stream. */
export async function runMcpServer({ env = process.env, version } = {}) {
  const opened = await openMemory(env);
  const server = createMcpServer({ memory: opened.memory, consolidate: opened.consolidate, version, peopleTools: peopleToolsEnabled(env) });
  const transport = new StdioServerTransport();
  const closed = new Promise((resolve) => {
    server.server.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(transport);
  process.stderr.write(`credence mcp: serving ${opened.storeLabel}\n`);
  await closed;
  await server.close().catch(() => {});
  await opened.close().catch(() => {});
}
