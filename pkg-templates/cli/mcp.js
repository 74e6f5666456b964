// `credence mcp`: a stdio MCP server (official SDK) serving the agent tools of
// `credence/tools` — the same names, descriptions, JSON Schemas and answers
// as the AI SDK and function-calling renderings — on the store the
// environment names, with `instructions` for the agent. Settling, undoing
// and retracting are a person's acts (SPEC §10): their descriptions say so,
// and CREDENCE_MCP_PEOPLE_TOOLS=off withholds them so an agent cannot approve
// its own writes. A refusal (bad arguments included) comes back as a tool
// result with `isError: true` whose text starts with the CredenceError code
// (also in `structuredContent.error`). stdout carries the protocol only.
//
// The MCP SDK is not a dependency of the library (an app that only imports
// credence installs a few MB): it is loaded here, and its absence explained.
import { createTools } from '../tools/index.js';
import { SetupError, UsageError } from './exit.js';
import { openMemory } from './memory.js';

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

/** The SDK's server pieces, or a SetupError saying how to install them. */
export async function loadMcpSdk() {
  try {
    const [server, stdio, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return { Server: server.Server, StdioServerTransport: stdio.StdioServerTransport, types };
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' && err?.code !== 'MODULE_NOT_FOUND') throw err;
    throw new SetupError(
      'credence mcp needs the MCP SDK, which the library does not install: run `npm install @modelcontextprotocol/sdk` ' +
        'next to credence (or run `npx -y -p credence -p @modelcontextprotocol/sdk credence mcp`)',
      { cause: err },
    );
  }
}

/** MCP's tool result for an `execute` result: text for the model; the full objects as structuredContent when asked for JSON or on a refusal. */
function toolResult(r, args) {
  const result = { content: [{ type: 'text', text: r.text }] };
  if (r.isError) return { ...result, isError: true, structuredContent: r.data };
  if (args?.format === 'json' || !('format' in (r.definition?.inputSchema?.properties ?? {}))) result.structuredContent = r.data;
  return result;
}

/** The server with its tools, on an open Memory; `peopleTools: false` leaves out settle, undo and retract. */
export function createMcpServer(sdk, { memory, consolidate = false, version = '0.0.0', peopleTools = true }) {
  const tools = createTools(memory, { peopleTools, consolidate });
  const { Server, types } = sdk;
  const server = new Server({ name: 'credence', version }, { capabilities: { tools: {} }, instructions: tools.instructions() });
  const listed = tools.definitions.map((d) => ({ name: d.name, title: d.title, description: d.description, inputSchema: d.inputSchema, ...(d.annotations ? { annotations: d.annotations } : {}) }));
  const byName = new Map(tools.definitions.map((d) => [d.name, d]));
  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools: listed }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const r = await tools.execute(name, args);
    return toolResult({ ...r, definition: byName.get(name) }, args);
  });
  return server;
}

/** Serves on stdin/stdout until the client closes the stream. */
export async function runMcpServer({ env = process.env, version } = {}) {
  const peopleTools = peopleToolsEnabled(env);
  const sdk = await loadMcpSdk();
  const opened = await openMemory(env);
  const server = createMcpServer(sdk, { memory: opened.memory, consolidate: opened.consolidate, version, peopleTools });
  const transport = new sdk.StdioServerTransport();
  const closed = new Promise((resolve) => {
    server.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(transport);
  process.stderr.write(`credence mcp: serving ${opened.storeLabel}\n`);
  await closed;
  await server.close().catch(() => {});
  await opened.close().catch(() => {});
}
