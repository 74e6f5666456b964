// One function per command. Each returns `{ json, text, exit? }`: the value
// printed with --json, the text printed for a person, and the exit code.
import { userInfo } from 'node:os';
import { numberOption } from './args.js';
import { EXIT, UsageError } from './exit.js';
import { calibrationText, claimsText, conflictsText, erasureText, outcomeText, retractionText, reviewText, settledText, whyText } from './format.js';
import { interactiveRemember } from './interactive.js';
import { createJudge } from './judge.js';
import { llmSettings } from './llm.js';
import { predicatesText } from '../tools/render.js';

function one(positionals, what, usage) {
  if (positionals.length === 0) throw new UsageError(`missing ${what}\nusage: ${usage}`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}\nusage: ${usage}`);
  return positionals[0];
}

/** The candidate and write options a `remember` command line describes. */
export function rememberRequest({ values, positionals }) {
  const usage = 'credence remember <object> -p <predicate> [options]';
  if (positionals.length === 0) throw new UsageError(`missing the object to remember\nusage: ${usage}`);
  if (values.predicate === undefined) throw new UsageError(`missing -p/--predicate\nusage: ${usage}`);
  let strategy = values.strategy;
  if (values.replace) {
    if (strategy !== undefined && strategy.toLowerCase() !== 'replace') {
      throw new UsageError(`--replace means --strategy replace; it cannot be combined with --strategy ${strategy}`);
    }
    strategy = 'replace';
  }
  if (values.interactive && strategy !== undefined) {
    throw new UsageError('--interactive chooses the strategy by asking; leave out --strategy/--replace');
  }
  const candidate = { predicate: values.predicate, object: positionals.join(' ') };
  if (values.subject !== undefined) candidate.subject = values.subject;
  const confidence = numberOption(values, 'confidence');
  if (confidence !== undefined) candidate.confidence = confidence;
  const sourceTrust = numberOption(values, 'source-trust');
  if (values.source !== undefined || sourceTrust !== undefined) {
    candidate.provenance = { sourceId: values.source ?? 'caller' };
    if (sourceTrust !== undefined) candidate.provenance.sourceTrust = sourceTrust;
  }
  if (values['valid-from'] !== undefined) candidate.validFrom = values['valid-from'];
  if (values['valid-to'] !== undefined) candidate.validTo = values['valid-to'];
  if (values.id !== undefined) candidate.id = values.id;
  const options = {};
  if (strategy !== undefined) options.strategy = strategy;
  const expectedVersion = numberOption(values, 'expected-version', { integer: true });
  if (expectedVersion !== undefined) options.expectedVersion = expectedVersion;
  return { candidate, options };
}

export async function remember(ctx, parsed) {
  const { candidate, options } = rememberRequest(parsed);
  if (parsed.values.interactive) return interactiveRemember(ctx, candidate, options);
  const outcome = await ctx.memory.remember(candidate, options);
  return { json: outcome, text: outcomeText(outcome), exit: outcome.action === 'rejected' ? EXIT.REJECTED : EXIT.OK };
}

export async function recall(ctx, { values, positionals }) {
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  if (positionals.length === 1 && values.subject !== undefined && values.subject !== positionals[0]) {
    throw new UsageError('give the subject once: as the argument or as --subject');
  }
  const subject = positionals[0] ?? values.subject;
  const consolidate = Boolean(values.consolidate || ctx.consolidate);
  if (consolidate && !ctx.hasMerge) {
    ctx.warn('no merge hook (CREDENCE_LLM_URL is not set): merge_on_read slots are consolidated deterministically');
  }
  const options = { includeHistory: Boolean(values.history), consolidate };
  if (values.predicate !== undefined) options.predicate = values.predicate;
  if (values.at !== undefined) options.at = values.at;
  const claims = await ctx.memory.recall(subject, options);
  return { json: claims, text: claimsText(claims, { history: options.includeHistory }) };
}

export async function why(ctx, { positionals }) {
  const id = one(positionals, 'the claim id', 'credence why <claim-id>');
  const answer = await ctx.memory.why(id);
  return { json: answer, text: whyText(answer) };
}

export async function conflicts(ctx, { values, positionals }) {
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.all && values.status !== undefined) throw new UsageError('--all and --status exclude each other');
  const status = values.all ? undefined : (values.status ?? 'open');
  const list = await ctx.memory.conflicts(status === undefined ? {} : { status });
  return { json: list, text: conflictsText(list, status) };
}

const SHORT_SETTLEMENTS = { newer: 'keep_newer', earlier: 'keep_earlier', both: 'keep_both' };

export async function settle(ctx, { values, positionals }) {
  const usage = 'credence settle <conflict-id> keep_newer|keep_earlier|keep_both|same|different [--by <name>]';
  if (positionals.length !== 2) throw new UsageError(`settle takes a conflict id and a settlement\nusage: ${usage}`);
  const [id, raw] = positionals;
  const norm = raw.toLowerCase().replace(/-/g, '_');
  const settlement = SHORT_SETTLEMENTS[norm] ?? norm;
  const by = values.by ?? process.env.USER ?? safeUser();
  const conflict = await ctx.memory.settle(id, settlement, by ? { by } : {});
  return { json: conflict, text: settledText(conflict, 'settled') };
}

function safeUser() {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

export async function undo(ctx, { positionals }) {
  const id = one(positionals, 'the conflict or retraction id', 'credence undo <conflict-id|retraction-id>');
  const undone = await ctx.memory.undo(id);
  if (undone.claim) return { json: undone, text: retractionText(undone) };
  return { json: undone, text: settledText(undone, 'undid the settlement of') };
}

export async function retract(ctx, { values, positionals }) {
  const id = one(positionals, 'the claim id', 'credence retract <claim-id> [--reason <text>]');
  const by = values.by ?? process.env.USER ?? safeUser();
  const options = {};
  if (values.reason !== undefined) options.reason = values.reason;
  if (by) options.by = by;
  if (values.at !== undefined) options.at = values.at;
  const retraction = await ctx.memory.retract(id, options);
  return { json: retraction, text: retractionText(retraction) };
}

export async function erase(ctx, { values, positionals }) {
  const usage = 'credence erase <subject> [-p <predicate> | --claim <claim-id>] --reason <text> --yes';
  const subject = one(positionals, 'the subject to erase', usage);
  if (values.reason === undefined) throw new UsageError(`missing --reason (it is kept on the tombstone)\nusage: ${usage}`);
  if (!values.yes) throw new UsageError(`erasure cannot be undone: add --yes to confirm (credence retract keeps history)\nusage: ${usage}`);
  const target = { subject };
  if (values.predicate !== undefined) target.predicate = values.predicate;
  if (values.claim !== undefined) target.claimId = values.claim;
  const by = values.by ?? process.env.USER ?? safeUser();
  const erasure = await ctx.memory.erase(target, { reason: values.reason, by: by || 'unknown' });
  return { json: erasure, text: erasureText(erasure) };
}

export async function review(ctx, { values, positionals }) {
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const settings = llmSettings(ctx.env, { url: values['judge-url'], model: values['judge-model'] });
  if (!settings) throw new UsageError('review needs a judge: --judge-url <OpenAI-compatible endpoint> (or CREDENCE_LLM_URL)');
  const budget = numberOption(values, 'budget', { integer: true });
  const judge = createJudge(settings);
  const report = await ctx.memory.review(budget === undefined ? { judge } : { judge, budget });
  if (judge.failures.length === 0) return { json: report, text: reviewText(report) };
  const messages = judge.failures.map((e) => e.message);
  return {
    json: { ...report, judgeErrors: messages },
    text: `${reviewText(report)}\nthe judge failed, so the pass stopped early (what it finished is kept): ${messages[0]}`,
    exit: EXIT.SETUP,
  };
}

export async function calibrate(ctx, { values, positionals }) {
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\nusage: credence calibrate [options]`);
  const options = {};
  if (values.predicate?.length) options.predicates = values.predicate;
  if (values.source?.length) options.sources = values.source;
  const min = numberOption(values, 'min-observations', { integer: true });
  if (min !== undefined) options.minObservations = min;
  const record = await ctx.memory.calibrate(options);
  return { json: record, text: calibrationText(record) };
}

export async function predicates(ctx, { values, positionals }) {
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\nusage: credence predicates [--define <name> [--multi] [--not-time-varying]]`);
  if (values.define === undefined) {
    if (values.multi || values['not-time-varying']) throw new UsageError('--multi and --not-time-varying go with --define <name>');
    const list = await ctx.memory.predicates();
    return { json: list, text: predicatesText(list) };
  }
  const defined = await ctx.memory.definePredicate({
    name: values.define,
    cardinality: values.multi ? 'multi' : 'single',
    timeVarying: !values['not-time-varying'],
  });
  return { json: defined, text: predicatesText([defined]).split('\n')[0] };
}
