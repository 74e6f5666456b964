// The review pass with an LLM judge on an OpenAI-compatible endpoint.
//
//   CREDENCE_LLM_URL=http://localhost:11434/v1 CREDENCE_LLM_MODEL=llama3.1 node examples/judge/review.mjs
//
// One grouping call per slot names candidate pairs; at most three strict
// per-pair confirmations follow; only pairs the judge confirms open a
// `review` conflict for a person to settle.
import { Memory } from 'credence';
import { createJudge } from 'credence/judge';

const url = process.env.CREDENCE_LLM_URL;
if (!url) {
  console.error('Set CREDENCE_LLM_URL (e.g. http://localhost:11434/v1 for Ollama) and CREDENCE_LLM_MODEL.');
  process.exit(2);
}
const judge = createJudge({ url, model: process.env.CREDENCE_LLM_MODEL, apiKey: process.env.CREDENCE_LLM_API_KEY });
const memory = new Memory({ judge });

for (const note of ['Is vegetarian', 'Enjoys hiking on weekends', 'Started eating fish again this spring', 'Has a cat named Miso']) {
  await memory.remember({ predicate: 'experience.profile_notes', object: note });
}

const report = await memory.review({ budget: 20 });
console.log(`judge calls: ${report.calls}, pairs named: ${report.pairsNamed}, confirmed: ${report.pairsConfirmed}, slots left: ${report.slotsLeft}`);
if (report.stopped) console.log(`the pass stopped early: ${report.stopped}`);
for (const c of report.conflicts) console.log(`conflict ${c.id}: "${c.earlier.object}" → "${c.newer.object}" — ${c.reason}`);
