// `credence remember -i` in a real pseudo-terminal: the person sees existing
// vs incoming and chooses; the write is re-issued with that strategy.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KIND, credence, credenceJson, credencePty, sandbox } from './support/cli.js';
import { startFakeLlm } from './support/fake-llm.js';

const PROMPT = '\\[k\\]eep existing.*\\[s\\]kip\\? ';

let box;
beforeEach(async () => {
  box = sandbox();
  await credence(['remember', 'CET', '-p', 'timezone', '--confidence', '0.9'], { env: box.env });
});
afterEach(() => box.cleanup());

const recall = async () => (await credenceJson(['recall', '-p', 'timezone'], { env: box.env })).json.map((c) => c.object);
const ask = (answers, env = box.env, args = []) =>
  credencePty(['remember', 'PST', '-p', 'timezone', '-i', ...args], answers, { env });

describe(`remember -i (${STORE_KIND} store)`, () => {
  it('shows existing vs incoming, then replaces on [r]', async () => {
    const r = await ask([[PROMPT, 'r']]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('user · timezone already holds (incoming: contradict)');
    expect(r.output).toMatch(/existing +"CET" +confidence 0\.90, belief \d\.\d\d, active, recorded (just now|\d+ seconds? ago)/);
    expect(r.output).toMatch(/incoming +"PST" +confidence 1\.00, now/);
    expect(r.output).toMatch(/replaced.*"PST"/);
    expect(await recall()).toEqual(['PST']);
  });

  it('[k]eep writes nothing', async () => {
    const r = await ask([[PROMPT, 'k']]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('kept what memory holds; nothing written');
    expect(await recall()).toEqual(['CET']);
  });

  it('[a]ppend keeps both active; full words work too', async () => {
    const r = await ask([[PROMPT, 'append']]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/appended.*"PST"/);
    expect(await recall()).toEqual(['CET', 'PST']);
  });

  it('[m]erge without a merge hook says so clearly and asks again', async () => {
    const r = await ask([[PROMPT, 'm'], [PROMPT, 's']]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('[m]erge (needs CREDENCE_LLM_URL)');
    expect(r.output).toContain('merge needs a merge hook, and none is configured');
    expect(r.output).toContain('skipped; nothing written');
    expect(await recall()).toEqual(['CET']);
  });

  it('asks again after an answer it does not know; end of input writes nothing', async () => {
    const r = await ask([[PROMPT, 'x'], ['please answer k, r, a, m or s', null]]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('no answer; nothing written');
    expect(await recall()).toEqual(['CET']);
  });

  it('Ctrl-C at the prompt exits 130 and writes nothing', async () => {
    const r = await ask([[PROMPT, '^C']]);
    expect(r.code, r.output).toBe(130);
    expect(r.output).toContain('interrupted; nothing written');
    expect(await recall()).toEqual(['CET']);
  });

  it('writes straight away, without asking, when nothing collides', async () => {
    const r = await credencePty(['remember', 'Lisbon', '-p', 'located_in', '-i'], [], { env: box.env });
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain('[k]eep');
    expect(r.output).toMatch(/^added: user · located_in = "Lisbon"/m);
  });

  it('prints the final outcome as JSON with the decision when --json is given', async () => {
    const r = await ask([[PROMPT, 'r']], box.env, ['--json']);
    expect(r.code, r.output).toBe(0);
    const json = JSON.parse(r.output.slice(r.output.indexOf('{')));
    expect(json).toMatchObject({ decision: 'replace', action: 'replaced', claim: { object: 'PST' } });
  });

  it('refuses to replace what changed while the person was deciding (exit 3)', async () => {
    const signal = join(box.dir, 'prompted');
    const go = join(box.dir, 'go');
    const pending = ask([[PROMPT, 'r', { signal, waitFor: go }]]);
    while (!existsSync(signal)) await sleep(20);
    await credence(['remember', 'UTC', '-p', 'timezone', '--replace'], { env: box.env });
    await import('node:fs').then((fs) => fs.writeFileSync(go, ''));
    const r = await pending;
    expect(r.code, r.output).toBe(3);
    expect(r.output).toContain('memory changed while you were deciding');
    expect(await recall()).toEqual(['UTC']);
  });

  describe('with a merge hook', () => {
    let llm;
    beforeAll(async () => {
      llm = await startFakeLlm();
    });
    afterAll(() => llm.close());

    it('[m]erge consolidates through the LLM', async () => {
      const r = await ask([[PROMPT, 'm']], { ...box.env, CREDENCE_LLM_URL: llm.url });
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(/merged.*"CET \+ PST"/);
      expect(await recall()).toEqual(['CET + PST']);
    });
  });
});
