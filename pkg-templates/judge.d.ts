// `credence/judge`: a review judge on any OpenAI-compatible chat endpoint
// (OpenAI, Ollama, llama.cpp, vLLM, LM Studio).
import type { Judge } from './index.js';

export interface JudgeSettings {
  /** Base URL (`http://localhost:11434/v1`) or the full `…/chat/completions` address. */
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** The two prompts of the review pass; `failures` records why a call threw. */
export declare function createJudge(settings: JudgeSettings): Judge & { failures: Error[] };
