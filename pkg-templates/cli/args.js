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
      --history           include superseded, outweighed, retired and retracted claims
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
    usage: 'credence settle <conflict-id> keep_newer|keep_earlier|keep_both|same|different [--by <name>]',
    summary: 'settle a conflict',
    options: { by: { type: 'string' } },
    help: '      --by <name>  who settled it (default $USER)',
    notes: 'keep_newer retires the earlier claim, keep_earlier the newer, keep_both dismisses the conflict;\nnewer, earlier and both are accepted too. A same_entity conflict (two names that look alike)\nis settled same (merge the entities; undoable) or different (never asked again). For a dependent\nconflict (a fact that hangs on one that changed): keep_earlier = it still holds, keep_newer = retract it.',
  },
  undo: {
    usage: 'credence undo <conflict-id|retraction-id>',
    summary: 'revert a settlement (reopening the conflict) or a retraction, exactly',
    options: {},
    help: '',
    notes: 'Refused with UNDO_STALE, writing nothing, when the claims it changed changed since.',
  },
  retract: {
    usage: 'credence retract <claim-id> [--reason <text>] [--by <name>] [--at <time>]',
    summary: 'a fact no longer holds and nothing replaces it (undoable)',
    options: { reason: { type: 'string' }, by: { type: 'string' }, at: { type: 'string' } },
    help: `      --reason <text>  why it no longer holds (kept in the log)
      --by <name>      who retracted it (default $USER)
      --at <time>      when it stopped holding (ISO 8601, default now)`,
    notes: 'Prints a retraction id; credence undo <that id> puts the claim back.',
  },
  erase: {
    usage: 'credence erase <subject> [-p <predicate> | --claim <claim-id>] --reason <text> --yes [--by <name>]',
    summary: 'privacy erasure: remove what memory holds about a subject (cannot be undone)',
    options: {
      predicate: { type: 'string', short: 'p' },
      claim: { type: 'string' },
      reason: { type: 'string' },
      by: { type: 'string' },
      yes: { type: 'boolean' },
    },
    help: `  -p, --predicate <name>  only this predicate of the subject
      --claim <claim-id>  only this claim (of that subject)
      --reason <text>     why (required; kept on the tombstone)
      --by <name>         who asked (default $USER)
      --yes               confirm: the text is removed for good`,
    notes: 'Removes the text of the matched claims from every record the store keeps (slot documents, logs,\nindexes, log.md, PostgreSQL rows), leaving tombstones: credence why <claim-id> shows who erased what\nwhen, never what it said. To say a fact no longer holds, keeping history, use credence retract.',
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
  calibrate: {
    usage: 'credence calibrate [--predicate <name>]... [--source <id>]... [--min-observations <n>]',
    summary: 'learn how fast each kind of fact changes and how far each source can be trusted',
    options: { predicate: { type: 'string', short: 'p', multiple: true }, source: { type: 'string', multiple: true }, 'min-observations': { type: 'string' } },
    help: `      -p, --predicate <name>    estimate this predicate's half-life (repeatable; default every one)
      --source <id>             estimate this source's reliability (repeatable; default every one)
      --min-observations <n>    fewer observations keep the stated/configured value (default 20)`,
    notes: 'Stores the next calibration version; later writes and reads use it (credence why names it).',
  },
  predicates: {
    usage: 'credence predicates [--define <name> [--multi] [--not-time-varying]]',
    summary: 'list the declared predicates (built-in, configured, defined), or declare one',
    options: { define: { type: 'string' }, multi: { type: 'boolean' }, 'not-time-varying': { type: 'boolean' } },
    help: `      --define <name>       declare a predicate nobody declared (kept in the store)
      --multi               …as multi-valued: its values coexist (default single: a new one supersedes)
      --not-time-varying    …as holding for good (a birthday)`,
    notes: 'A predicate not listed is single-valued and time-varying: a new value supersedes the old.',
  },
  mcp: {
    usage: 'credence mcp',
    summary: 'serve remember/recall/why/conflicts/predicates (+ settle/undo/retract) over MCP (stdio)',
    options: {},
    help: '',
  },
};

const ENV_HELP = `Environment:
  CREDENCE_BUNDLE_DIR    markdown bundle directory (default ~/.credence/bundle)
  DATABASE_URL           PostgreSQL instead of a bundle (needs \`npm install pg\`);
                         CREDENCE_SCOPE picks the tenant (default "default"; with
                         a bundle, its scopes/<scope>/ part)
  CREDENCE_STORE_MODULE  a module whose default export (env) => ClaimStore
  CREDENCE_MERGE_POLICY  engine-wide strategy
  CREDENCE_MAX_ENTRIES   active entries kept by append (0 = no cap)
  CREDENCE_RETRIES       retries after a lost race (default 3)
  CREDENCE_RECALL_MERGE  "llm": recall consolidates merge_on_read slots
  CREDENCE_MCP_PEOPLE_TOOLS  "off": credence mcp withholds settle, undo and retract
                         ("on", the default, offers them; other values are refused)
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

// Plain decimal only: `Number()` alone would also read "0x1", "0b1", "1e1"
// and "Infinity", which nobody types as a confidence or a version.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const WHOLE = /^\d+$/;

/** A number option: undefined when absent, a UsageError when not a plain decimal number. */
export function numberOption(values, name, { integer = false } = {}) {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const n = Number(text);
  if (!(integer ? WHOLE : DECIMAL).test(text) || !Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'}, got ${JSON.stringify(raw)}`);
  }
  return n;
}
