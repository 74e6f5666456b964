// `credence remember -i`: probe with strategy "reject"; when memory already
// holds a different value, show existing vs incoming, ask what to do, and
// re-issue the write with the chosen strategy as a compare-and-swap against
// the slot version the person saw. The dialogue goes to stderr, the result
// to stdout. Without a terminal it refuses up front, so it never waits on a pipe.
import { createInterface } from 'node:readline/promises';
import { EXIT, UsageError } from './exit.js';
import { age, outcomeText } from './format.js';

const CHOICES = {
  k: { decision: 'keep' },
  r: { decision: 'replace', strategy: 'replace' },
  a: { decision: 'append', strategy: 'append' },
  m: { decision: 'merge', strategy: 'llm_merge' },
  s: { decision: 'skip' },
};
const WORDS = { keep: 'k', replace: 'r', append: 'a', merge: 'm', skip: 's' };

const NO_MERGE_HOOK =
  'merge needs a merge hook, and none is configured: set CREDENCE_LLM_URL to an OpenAI-compatible ' +
  'endpoint (e.g. http://localhost:11434/v1) to merge with an LLM. Choose another option.';

function conf(claim) {
  return Number(claim.statedConfidence ?? 1).toFixed(2);
}

function describe(probe) {
  const c = probe.claim;
  const lines = [`${c.subject} · ${c.predicate} already holds${probe.relation ? ` (incoming: ${probe.relation})` : ''}:`];
  for (const e of probe.affected) {
    lines.push(`  existing  ${JSON.stringify(e.object)}  confidence ${conf(e)}, belief ${e.confidence.toFixed(2)}, ${e.status}, recorded ${age(e.recordedAt)}  ${e.id}`);
  }
  const when = c.validFrom ? `valid from ${c.validFrom}` : 'now';
  lines.push(`  incoming  ${JSON.stringify(c.object)}  confidence ${conf(c)}, ${when}`);
  return lines.join('\n');
}

/** A readline prompt that resolves null on end of input and reports Ctrl-C. */
function prompter(input, output) {
  const rl = createInterface({ input, output, terminal: true });
  const state = { closed: false, interrupted: false, pending: null };
  rl.on('close', () => {
    state.closed = true;
    state.pending?.(null);
  });
  rl.on('SIGINT', () => {
    state.interrupted = true;
    rl.close();
  });
  return {
    state,
    ask(question) {
      if (state.closed) return Promise.resolve(null);
      return new Promise((resolve) => {
        state.pending = resolve;
        rl.question(question).then(resolve, () => resolve(null));
      });
    },
    close: () => rl.close(),
  };
}

export async function interactiveRemember(ctx, candidate, options) {
  if (!ctx.stdin.isTTY) {
    throw new UsageError(
      '--interactive needs a terminal to ask on, and stdin is not one; nothing was written.\n' +
        'Choose without asking: --strategy reject (exit 5 on a collision), replace, append or ask_user.',
    );
  }
  const probe = await ctx.memory.remember(candidate, { ...options, strategy: 'reject' });
  if (probe.action !== 'rejected') return { json: probe, text: outcomeText(probe) };

  ctx.stderr.write(`${describe(probe)}\n`);
  const mergeLabel = ctx.hasMerge ? '[m]erge' : '[m]erge (needs CREDENCE_LLM_URL)';
  const question = `[k]eep existing  [r]eplace  [a]ppend  ${mergeLabel}  [s]kip? `;
  const prompt = prompter(ctx.stdin, ctx.stderr);
  try {
    for (;;) {
      const answer = await prompt.ask(question);
      if (answer === null) {
        if (prompt.state.interrupted) return { json: { ...probe, decision: 'interrupted' }, text: 'interrupted; nothing written', exit: EXIT.INTERRUPTED };
        return { json: { ...probe, decision: 'skip' }, text: 'no answer; nothing written' };
      }
      const key = answer.trim().toLowerCase();
      const choice = CHOICES[WORDS[key] ?? key];
      if (!choice) {
        ctx.stderr.write('please answer k, r, a, m or s\n');
        continue;
      }
      if (choice.decision === 'keep') return { json: { ...probe, decision: 'keep' }, text: 'kept what memory holds; nothing written' };
      if (choice.decision === 'skip') return { json: { ...probe, decision: 'skip' }, text: 'skipped; nothing written' };
      if (choice.decision === 'merge' && !ctx.hasMerge) {
        ctx.stderr.write(`${NO_MERGE_HOOK}\n`);
        continue;
      }
      try {
        const outcome = await ctx.memory.remember(candidate, { strategy: choice.strategy, expectedVersion: probe.slotVersion });
        return { json: { ...outcome, decision: choice.decision }, text: outcomeText(outcome) };
      } catch (err) {
        if (err?.code === 'MERGE_HOOK_MISSING') {
          ctx.stderr.write(`${NO_MERGE_HOOK}\n`);
          continue;
        }
        if (err?.code === 'CONCURRENCY') {
          err.message = `memory changed while you were deciding (${err.message}); nothing written, run the command again`;
        }
        throw err;
      }
    }
  } finally {
    prompt.close();
  }
}
