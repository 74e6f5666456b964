// A minimal client for an OpenAI-compatible chat endpoint (OpenAI, Ollama,
// llama.cpp server, vLLM, LM Studio, …), shared by the judge and the merge hook.
// It asks for JSON and parses it leniently (models wrap JSON in prose or fences).

/**
 * @param {{ url: string, model?: string, apiKey?: string, timeoutMs?: number }} options
 *   `url` is the base (`http://localhost:11434/v1`) or the full
 *   `…/chat/completions` address.
 */
export function createChat({ url, model, apiKey, timeoutMs = 60_000 }) {
  const endpoint = /\/chat\/completions\/?$/.test(url) ? url : `${url.replace(/\/+$/, '')}/chat/completions`;
  const headers = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;

  /** Sends one system + user exchange and returns the parsed JSON reply. */
  return async function askJson(system, user) {
    const body = {
      model: model || 'gpt-4o-mini',
      temperature: 0,
      messages: [
        { role: 'system', content: `${system}\nAnswer with one JSON value and nothing else.` },
        { role: 'user', content: user },
      ],
    };
    let res;
    try {
      res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new Error(`LLM endpoint ${endpoint} unreachable: ${err.cause?.message ?? err.message}`, { cause: err });
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      throw new Error(`LLM endpoint ${endpoint} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    const data = await res.json().catch(() => null);
    const content = data?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new Error(`LLM endpoint ${endpoint}: no choices[0].message.content in the reply`);
    return parseJsonLoose(content);
  };
}

/** The first JSON object or array in `text`. */
export function parseJsonLoose(text) {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/```\s*$/, '');
  try {
    return JSON.parse(trimmed);
  } catch {
    const start = trimmed.search(/[[{]/);
    const end = Math.max(trimmed.lastIndexOf('}'), trimmed.lastIndexOf(']'));
    if (start >= 0 && end > start) {
      try {
        return JSON.parse(trimmed.slice(start, end + 1));
      } catch {
        // fall through
      }
    }
    throw new Error(`the model did not answer with JSON: ${text.slice(0, 120)}`);
  }
}

/** LLM settings from the environment (CREDENCE_LLM_URL/MODEL/API_KEY, OPENAI_API_KEY). */
export function llmSettings(env = process.env, overrides = {}) {
  const url = overrides.url || env.CREDENCE_LLM_URL;
  if (!url) return null;
  return {
    url,
    model: overrides.model || env.CREDENCE_LLM_MODEL,
    apiKey: env.CREDENCE_LLM_API_KEY || env.OPENAI_API_KEY,
  };
}
