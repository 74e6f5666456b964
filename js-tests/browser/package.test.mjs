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
    const name = `credence-two-tabs-${Date.now()}`;
    const tabs = await Promise.all([openTab('tests/pages/cases.html'), openTab('tests/pages/cases.html')]);
    // Each tab runs three writers of five sequential writes each; both tabs
    // start at the same agreed moment.
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
    const [a, b] = await Promise.all([write(tabs[0], 'A'), write(tabs[1], 'B')]);
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
    const retried = acknowledged.filter((o) => o.attempts > 1).length;
    assert.ok(retried > 0, 'writers raced (some writes retried after a stale version)');
    // Both tabs really interleaved: neither tab's writes form one contiguous run.
    const tabOf = new Map(acknowledged.map((o) => [o.version, o.object[0]]));
    const switches = [...tabOf.keys()].sort((x, y) => x - y).filter((v, i, all) => i && tabOf.get(v) !== tabOf.get(all[i - 1])).length;
    t.diagnostic(`${switches} switches between tabs in commit order, ${retried} of 30 writes retried`);
    assert.ok(switches > 1, `the tabs' commits interleave (${switches} switches, ${retried} retried writes)`);
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
