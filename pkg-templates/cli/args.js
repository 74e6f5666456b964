// Command-line grammar (node:util parseArgs) and help texts.
import { parseArgs } from 'node:util';
import { EXIT_HELP, UsageError } from './exit.js';

const COMMON = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

export const COMMANDS = {
  remember: {
    usage: 'credence remember <object> -p <predicate> [options]',
    summary: 'write a fact; memory decides what it means against what it holds',
    options: {
      predicate: { type: 'string', short: 'p' },
      subject: { type: 'string', short: 's' },
      strategy: { type: 'string' },
      replace: { type: 'boolean' },
      confidence: { type: 'string', short: 'c' },
      source: { type: 'string' },
      'source-trust': { type: 'string' },
      'valid-from': { type: 'string' },
      'valid-to': { type: 'string' },
      id: { type: 'string' },
      'expected-version': { type: 'string' },
      interactive: { type: 'boolean', short: 'i' },
    },
    help: `  -p, --predicate <name>     predicate, alias or taxonomy path (required)
  -s, --subject <name>       subject (default "user")
      --strategy <name>      reconcile | append | replace | confidence_gated | llm_merge |
                             merge_on_read | reject | ask_user (default: CREDENCE_MERGE_POLICY,
                             then the predicate's spec, then its memory type)
      --replace              same as --strategy replace
  -c, --confidence <0..1>    how sure the extractor is (default 1)
      --source <id>          who observed it (default "caller")
      --source-trust <0..1>  how far that source is trusted (default 0.8)
      --valid-from <time>    when it became true (ISO 8601)
      --valid-to <time>      when it stopped being true
      --id <key>             idempotency key: the same id written twice changes memory once
      --expected-version <n> compare-and-swap against the slot version you last saw
  -i, --interactive          on a collision, show existing vs incoming and ask:
                             [k]eep [r]eplace [a]ppend [m]erge [s]kip (needs a terminal)`,
    notes: 'The object may be several words; they are joined with spaces.',
  },
  recall: {
    usage: 'credence recall [subject] [options]',
    summary: 'what memory believes about a subject',
    options: {
      subject: { type: 'string', short: 's' },
      predicate: { type: 'string', short: 'p' },
      at: { type: 'string' },
      history: { type: 'boolean' },
      consolidate: { type: 'boolean' },
    },
    help: `  -s, --subject <name>    subject (default "user"; also the first argument)
  -p, --predicate <name>  one predicate only
      --at <time>         as of that moment (valid time)
      --history           include superseded, outweighed and retired claims
      --consolidate       merge merge_on_read slots with the merge hook
                          (default on when CREDENCE_RECALL_MERGE=llm)`,
  },
  why: {
    usage: 'credence why <claim-id>',
    summary: 'why memory believes a claim: its lineage and log',
    options: {},
    help: '',
  },
  conflicts: {
    usage: 'credence conflicts [--status open|settled|resolved_by_evidence|moot] [--all]',
    summary: 'conflicts waiting for a person (open ones by default)',
    options: { status: { type: 'string' }, all: { type: 'boolean' } },
    help: `      --status <s>  open (default) | settled | resolved_by_evidence | moot
      --all         every conflict, open first`,
  },
  settle: {
    usage: 'credence settle <conflict-id> keep_newer|keep_earlier|keep_both [--by <name>]',
    summary: 'settle a conflict',
    options: { by: { type: 'string' } },
    help: '      --by <name>  who settled it (default $USER)',
    notes: 'keep_newer retires the earlier claim, keep_earlier the newer, keep_both dismisses the conflict;\nnewer, earlier and both are accepted too.',
  },
  undo: {
    usage: 'credence undo <conflict-id>',
    summary: 'revert a settlement exactly and reopen the conflict',
    options: {},
    help: '',
  },
  review: {
    usage: 'credence review --judge-url <url> [--judge-model <m>] [--budget <n>]',
    summary: 'let an LLM judge look for entries that invalidate older ones',
    options: { 'judge-url': { type: 'string' }, 'judge-model': { type: 'string' }, budget: { type: 'string' } },
    help: `      --judge-url <url>    OpenAI-compatible endpoint, e.g. http://localhost:11434/v1
                           (default CREDENCE_LLM_URL; key from CREDENCE_LLM_API_KEY or OPENAI_API_KEY)
      --judge-model <m>    model name (default CREDENCE_LLM_MODEL, else gpt-4o-mini)
      --budget <n>         judge calls at most (default 160)`,
  },
  mcp: {
    usage: 'credence mcp',
    summary: 'serve remember/recall/why/conflicts/settle/undo over MCP (stdio)',
    options: {},
    help: '',
  },
};

const ENV_HELP = `Environment:
  CREDENCE_BUNDLE_DIR    markdown bundle directory (default ~/.credence/bundle)
  DATABASE_URL           PostgreSQL instead of a bundle (needs \`npm install pg\`);
                         CREDENCE_SCOPE picks the tenant (default "default")
  CREDENCE_STORE_MODULE  a module whose default export (env) => ClaimStore
  CREDENCE_MERGE_POLICY  engine-wide strategy
  CREDENCE_MAX_ENTRIES   active entries kept by append (0 = no cap)
  CREDENCE_RETRIES       retries after a lost race (default 3)
  CREDENCE_RECALL_MERGE  "llm": recall consolidates merge_on_read slots
  CREDENCE_LLM_URL       OpenAI-compatible endpoint for the merge hook and the judge
                         (CREDENCE_LLM_MODEL, CREDENCE_LLM_API_KEY or OPENAI_API_KEY)`;

export function mainHelp(version) {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const list = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  return `credence ${version}: the write side of AI memory

Usage: credence <command> [options]   (credence help <command> for its options)

Commands:
${list.join('\n')}

Every command takes --json for output scripts can parse.

${ENV_HELP}

${EXIT_HELP}`;
}

export function commandHelp(name) {
  const c = COMMANDS[name];
  const options = [c.help, '      --json                 machine-readable output'].filter(Boolean).join('\n');
  const notes = c.notes ? `\n\n${c.notes}` : '';
  return `Usage: ${c.usage}\n\n${c.summary[0].toUpperCase()}${c.summary.slice(1)}.\n\nOptions:\n${options}${notes}\n\n${EXIT_HELP}`;
}

/** Parses one command's arguments; bad flags are UsageErrors. */
export function parseCommand(name, argv) {
  const spec = COMMANDS[name];
  try {
    return parseArgs({ args: argv, options: { ...COMMON, ...spec.options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${err.message.replace(/\. To specify a positional.*$/s, '')}\nusage: ${spec.usage}`);
  }
}

/** A number option: undefined when absent, a UsageError when not a number. */
export function numberOption(values, name, { integer = false } = {}) {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'}, got ${JSON.stringify(raw)}`);
  }
  return n;
}
