// The package in real Chromium: native ESM with no bundler, IndexedDbStore's
// cases, two tabs writing one database at once, and a Vite build of a page
// that imports 'credence' from the packed tarball.
//
//   node --test js-tests/browser/package.test.mjs   (after `npm run build`)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HERE, ROOT, start } from './harness.mjs';

const viteDir = mkdtempSync(join(tmpdir(), 'credence-vite-'));
let env;

before(async () => {
  env = await start({ mounts: { '/vite/': join(viteDir, 'dist') } });
});

after(async () => {
  await env?.stop();
  rmSync(viteDir, { recursive: true, force: true });
});

async function openTab(path) {
  const page = await env.context.newPage();
  const wasm = [];
  page.on('response', (r) => {
    if (r.url().endsWith('.wasm')) wasm.push({ url: r.url(), type: r.headers()['content-type'], status: r.status() });
  });
  await page.goto(env.url + path);
  await page.waitForSelector('body[data-ready]', { timeout: 20_000 });
  return { page, wasm };
}

describe('credence in Chromium', () => {
  it('loads as native ESM with no bundler and passes the IndexedDbStore cases', async () => {
    const { page, wasm } = await openTab('tests/pages/cases.html');
    assert.deepEqual(wasm, [{ url: `${env.url}credence/web/credence_bg.wasm`, type: 'application/wasm', status: 200 }]);
    const exported = await page.evaluate(() => Object.keys(window.credence).sort());
    for (const name of ['IndexedDbStore', 'Memory', 'MemoryStore', 'CredenceError', 'ConcurrencyError', 'reconcile']) {
      assert.ok(exported.includes(name), `the browser entry exports ${name}`);
    }
    const results = await page.evaluate(() => window.runIndexedDbCases());
    const failed = results.filter((r) => !r.ok);
    assert.deepEqual(failed, [], failed.map((r) => `${r.name}: ${r.error}`).join('\n'));
    assert.ok(results.length >= 10, `ran ${results.length} cases`);
    await page.close();
  });

  it('two tabs writing one slot at the same time never lose an update', async (t) => {
    const tabs = await Promise.all([openTab('tests/pages/cases.html'), openTab('tests/pages/cases.html')]);
    // Each tab runs three writers of five sequential writes each; both tabs
    // start at the same agreed moment.
    const race = (name) => {
      const startAt = Date.now() + 500;
      const write = (tab, label) =>
        tab.page.evaluate(async ({ name, label, startAt }) => {
          const { Memory, IndexedDbStore } = window.credence;
          const memory = new Memory({ store: new IndexedDbStore(name), retries: 100 });
          await memory.recall('user'); // opens the database before the start line
          await new Promise((go) => setTimeout(go, startAt - Date.now()));
          const writer = async (w) => {
            const outcomes = [];
            for (let i = 0; i < 5; i++) {
              const o = await memory.remember({ predicate: 'likes', object: `${label}-${w}-${i}` }, { strategy: 'append' });
              outcomes.push({ object: o.claim.object, attempts: o.attempts, version: o.slotVersion });
            }
            return outcomes;
          };
          return (await Promise.all([0, 1, 2].map(writer))).flat();
        }, { name, label, startAt });
      return Promise.all([write(tabs[0], 'A'), write(tabs[1], 'B')]);
    };
    // Losing no update is asserted on every round. Whether the writers really
    // raced (some write retried after a stale version, and the two tabs'
    // commits interleave) depends on the scheduler: a busy machine can start
    // one tab's writers after the other's have finished. A round that did not
    // race is run again, on a fresh database, up to three rounds.
    let switches = 0;
    let retried = 0;
    for (let round = 1; round <= 3 && !(switches > 1 && retried > 0); round++) {
      const name = `credence-two-tabs-${Date.now()}-${round}`;
      const [a, b] = await race(name);
      const acknowledged = [...a, ...b];
      assert.equal(acknowledged.length, 30);
      const stored = await tabs[1].page.evaluate(async (name) => {
        const { Memory, IndexedDbStore } = window.credence;
        const memory = new Memory({ store: new IndexedDbStore(name) });
        return (await memory.recall('user', { predicate: 'likes' })).map((c) => c.object);
      }, name);
      assert.deepEqual([...stored].sort(), acknowledged.map((o) => o.object).sort(), 'every acknowledged write is stored');
      assert.deepEqual(acknowledged.map((o) => o.version).sort((x, y) => x - y), Array.from({ length: 30 }, (_, i) => i + 1),
        'each write got its own slot version');
      retried = acknowledged.filter((o) => o.attempts > 1).length;
      // Both tabs really interleaved: neither tab's writes form one contiguous run.
      const tabOf = new Map(acknowledged.map((o) => [o.version, o.object[0]]));
      switches = [...tabOf.keys()].sort((x, y) => x - y).filter((v, i, all) => i && tabOf.get(v) !== tabOf.get(all[i - 1])).length;
      t.diagnostic(`round ${round}: ${switches} switches between tabs in commit order, ${retried} of 30 writes retried`);
    }
    assert.ok(retried > 0, 'writers raced in one of three rounds (some writes retried after a stale version)');
    assert.ok(switches > 1, `the tabs' commits interleave in one of three rounds (last round: ${switches} switches)`);
    await Promise.all(tabs.map((t) => t.page.close()));
  });

  it('works through a bundler: a Vite build of a page importing the packed package', async () => {
    // The packed tarball, unpacked where Vite resolves 'credence' from.
    const app = join(viteDir, 'app');
    cpSync(join(HERE, 'vite-app'), app, { recursive: true });
    const modules = join(app, 'node_modules', 'credence');
    mkdirSync(modules, { recursive: true });
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', viteDir], { cwd: join(ROOT, 'pkg'), encoding: 'utf8' }).trim().split('\n').pop();
    execFileSync('tar', ['-xzf', join(viteDir, tarball), '-C', modules, '--strip-components=1']);
    const { build } = await import('vite');
    await build({ root: app, base: './', logLevel: 'warn', configFile: false, build: { outDir: join(viteDir, 'dist'), emptyOutDir: true } });

    const page = await env.context.newPage();
    const wasm = [];
    page.on('response', (r) => r.url().endsWith('.wasm') && wasm.push(r.url()));
    await page.goto(env.url + 'vite/');
    await page.waitForSelector('body[data-result]', { timeout: 20_000 });
    const text = await page.textContent('#result');
    assert.equal(await page.getAttribute('body', 'data-result'), 'ok', text);
    assert.deepEqual(JSON.parse(text), {
      action: 'disputed',
      conflicts: [['dispute', '1990-01-01', '1991-02-02']],
      errorIsCredenceError: true,
    });
    assert.equal(wasm.length, 1, 'the bundle fetched the wasm once');
    assert.match(wasm[0], /\/vite\/assets\/.+\.wasm$/, 'Vite emitted the wasm as an asset');
    await page.close();
  });

  it('raised no uncaught errors in any page', () => {
    assert.deepEqual(env.errors, []);
  });
});
