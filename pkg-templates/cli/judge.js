// The review judge (SPEC §6) on an OpenAI-compatible chat endpoint.
// `findPairs` names pairs of entries that may describe the same thing with the
// newer one invalidating the older; `confirmPair` checks one pair. The engine
// ignores malformed pairs and ends the pass when a call throws; `failures`
// records why, so the CLI can say the pass stopped early.
import { createChat } from './llm.js';

const FIND_PAIRS = `You review a memory slot: free-text entries about one subject and one topic, oldest first.
Name pairs where a newer entry may update, correct or invalidate an older one (same thing, changed).
Reply {"pairs":[{"earlier":"<older id>","newer":"<newer id>"}]} using the ids given; {"pairs":[]} when none.`;

const CONFIRM_PAIR = `Two memory entries about the same subject and topic, an earlier and a newer one.
Decide: do they describe the same thing (sameThing), and does the newer one make the earlier no longer true (newerInvalidatesEarlier)?
Reply {"sameThing":true|false,"newerInvalidatesEarlier":true|false,"reason":"<one short sentence>"}.`;

function describe(claim) {
  return `id ${claim.id} (recorded ${claim.recordedAt}): ${claim.object}`;
}

/**
 * @param {{ url: string, model?: string, apiKey?: string }} settings
 * @returns {import('../index.d.ts').Judge & { failures: Error[] }}
 */
export function createJudge(settings) {
  const ask = createChat(settings);
  const failures = [];
  const guard = (fn) => async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      failures.push(err);
      throw err;
    }
  };
  return {
    failures,
    findPairs: guard(async (claims) => {
      const subject = claims[0] ? `${claims[0].subject} · ${claims[0].predicate}` : '';
      const answer = await ask(FIND_PAIRS, `${subject}\n${claims.map(describe).join('\n')}`);
      const pairs = Array.isArray(answer) ? answer : answer?.pairs;
      return Array.isArray(pairs) ? pairs : [];
    }),
    confirmPair: guard(async (earlier, newer) => {
      const answer = await ask(CONFIRM_PAIR, `earlier: ${describe(earlier)}\nnewer: ${describe(newer)}`);
      return {
        sameThing: answer?.sameThing === true,
        newerInvalidatesEarlier: answer?.newerInvalidatesEarlier === true,
        reason: typeof answer?.reason === 'string' && answer.reason ? answer.reason : 'the judge confirmed the pair',
      };
    }),
  };
}
