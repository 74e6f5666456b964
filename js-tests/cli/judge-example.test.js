// examples/judge/review.mjs against a scripted OpenAI-compatible endpoint.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeLlm } from './support/fake-llm.js';

const run = promisify(execFile);
let llm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm?.close());

it('runs the review pass with the LLM judge and opens one review conflict', async () => {
  const { stdout } = await run(process.execPath, ['examples/judge/review.mjs'], { env: { ...process.env, CREDENCE_LLM_URL: llm.url, CREDENCE_LLM_MODEL: 'test' } });
  expect(stdout).toMatch(/judge calls: 2, pairs named: 1, confirmed: 1, slots left: 0/);
  expect(stdout).toMatch(/"Is vegetarian" → "Has a cat named Miso"/);
  expect(llm.requests.map((r) => r.body.model)).toEqual(['test', 'test']);
});

it('says what to set when no endpoint is configured', async () => {
  const err = await run(process.execPath, ['examples/judge/review.mjs'], { env: { ...process.env, CREDENCE_LLM_URL: '' } }).catch((e) => e);
  expect(err.code).toBe(2);
  expect(err.stderr).toMatch(/CREDENCE_LLM_URL/);
});
