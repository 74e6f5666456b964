// The Memory the CLI and the MCP server work on, configured from the environment:
//
//   CREDENCE_MERGE_POLICY  engine-wide strategy (above predicate specs and memory types)
//   CREDENCE_MAX_ENTRIES   active entries kept by `append` (0 = no cap)
//   CREDENCE_RETRIES       reloads after a lost race before CONCURRENCY
//   CREDENCE_RECALL_MERGE  "llm": recall consolidates merge_on_read slots
//   CREDENCE_LLM_URL       an OpenAI-compatible endpoint for the merge hook
//                          (CREDENCE_LLM_MODEL, CREDENCE_LLM_API_KEY / OPENAI_API_KEY)
// plus the store variables read by ./store.js.
import { CredenceError, Memory } from '../index.node.js';
import { UsageError } from './exit.js';
import { llmSettings } from './llm.js';
import { createMergeHook } from './merge.js';
import { openStore } from './store.js';

function count(env, name) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`${name} must be a whole number ≥ 0, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Engine config and CLI settings read from the environment (no store opened). */
export function settingsFromEnv(env = process.env) {
  const config = {};
  if (env.CREDENCE_MERGE_POLICY) config.strategy = env.CREDENCE_MERGE_POLICY;
  const maxEntries = count(env, 'CREDENCE_MAX_ENTRIES');
  if (maxEntries !== undefined) config.maxEntries = maxEntries;
  const retries = count(env, 'CREDENCE_RETRIES');
  if (retries !== undefined) config.retries = retries;
  const llm = llmSettings(env);
  if (llm) config.merge = createMergeHook(llm);
  const recallMerge = (env.CREDENCE_RECALL_MERGE ?? '').trim().toLowerCase();
  if (!['', 'llm', 'off', 'none'].includes(recallMerge)) {
    throw new UsageError(`CREDENCE_RECALL_MERGE must be "llm" or "off", got ${JSON.stringify(env.CREDENCE_RECALL_MERGE)}`);
  }
  return { config, hasMerge: Boolean(llm), consolidate: recallMerge === 'llm' };
}

/**
 * Opens the store and builds the Memory. Throws UsageError (bad variables),
 * SetupError (store) or CredenceError (e.g. INVALID_STRATEGY in CREDENCE_MERGE_POLICY).
 */
export async function openMemory(env = process.env) {
  const settings = settingsFromEnv(env);
  const opened = await openStore(env);
  try {
    const memory = new Memory({ ...settings.config, store: opened.store });
    return { memory, ...settings, storeLabel: opened.label, close: opened.close };
  } catch (err) {
    await opened.close().catch(() => {});
    if (err?.code === 'INVALID_STRATEGY' && settings.config.strategy) {
      throw new CredenceError(`CREDENCE_MERGE_POLICY: ${err.message}`, { code: err.code, field: err.field, cause: err });
    }
    throw err;
  }
}
