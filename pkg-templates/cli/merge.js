// The merge hook (strategies llm_merge and merge_on_read) on an
// OpenAI-compatible chat endpoint: consolidates a slot's active entries (oldest
// first) with the incoming one into one statement.
import { createChat } from './llm.js';

const MERGE = `You consolidate memory entries about one subject and topic into one concise statement that keeps every fact still true.
Newer entries win over older ones when they disagree. If the incoming entry contradicts an earlier entry outright, say so.
Reply {"content":"<the consolidated statement>","contradicts":true|false,"reason":"<why, when contradicts>"}.`;

/** @returns {import('../index.d.ts').MergeHook} */
export function createMergeHook(settings) {
  const ask = createChat(settings);
  return async (entries, incoming) => {
    const lines = entries.map((e, i) => `${i + 1}. (${e.recordedAt}) ${e.object}`);
    const answer = await ask(MERGE, `entries, oldest first:\n${lines.join('\n')}\nincoming: ${incoming.object}`);
    if (typeof answer === 'string') return answer;
    const result = { content: String(answer?.content ?? '') };
    if (answer?.contradicts === true) {
      result.contradicts = true;
      if (typeof answer.reason === 'string') result.reason = answer.reason;
    }
    return result;
  };
}
