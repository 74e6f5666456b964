// The browser assistant end to end in Chromium: two contradicting facts open a
// dispute, the Conflicts tab shows it, Keep newer retires the earlier, Undo
// restores it, and a reload shows the same state from IndexedDB. Saves
// artifacts/dashboard.png (set DASHBOARD_PNG to write it elsewhere).
//
//   node --test js-tests/browser/dashboard.test.mjs   (after `npm run build`)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, start } from './harness.mjs';

const SCREENSHOT = process.env.DASHBOARD_PNG ?? join(ROOT, 'artifacts', 'dashboard.png');
let env;
let page;

before(async () => {
  env = await start();
  page = await env.context.newPage();
  await page.goto(env.url);
  await page.waitForSelector('body[data-ready]', { timeout: 20_000 });
});

after(() => env?.stop());

/**
 * Writes one fact through the form and waits until the whole submit handler ran:
 * the app announces the outcome in #status *before* it re-renders the lists, so
 * waiting for the status alone races the Conflicts list; the Value field is
 * cleared only after the re-render (and the tab switch).
 */
async function tell(predicate, value, source, { subject = 'user' } = {}) {
  await page.getByLabel('Subject', { exact: true }).fill(subject);
  await page.getByLabel('Predicate').fill(predicate);
  await page.getByLabel('Value').fill(value);
  await page.getByLabel('Source').fill(source);
  await page.getByRole('button', { name: 'Remember' }).click();
  await page.waitForFunction((v) => document.getElementById('status').textContent.includes(v)
    && document.getElementById('value').value === '', value);
}

const openCards = () => page.locator('#open-list article');
const settledCards = () => page.locator('#settled-list article');
const selected = (id) => page.getAttribute(`#${id}`, 'aria-selected');

/** [object, status] of every claim in the Beliefs table, history included. */
async function beliefs() {
  await page.getByRole('tab', { name: /Beliefs/ }).click();
  if (!(await page.isChecked('#history'))) {
    const renders = await page.getAttribute('body', 'data-renders');
    await page.getByLabel('Show history').check();
    await page.waitForFunction((n) => document.body.dataset.renders !== n, renders);
  }
  const rows = await page.$$eval('#beliefs tbody tr', (trs) =>
    trs.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('.status').textContent]));
  await page.getByRole('tab', { name: /Conflicts/ }).click();
  return rows;
}

describe('browser assistant: the Conflicts tab', () => {
  it('starts empty on the Beliefs tab, with labelled inputs', async () => {
    assert.equal(await selected('tab-beliefs'), 'true');
    assert.equal(await selected('tab-conflicts'), 'false');
    assert.equal(await page.isHidden('#panel-conflicts'), true);
    for (const label of ['Subject', 'Predicate', 'Value', 'Source', 'Strategy']) {
      assert.equal(await page.getByLabel(label, { exact: true }).count(), 1, `one control labelled ${label}`);
    }
    assert.match(await page.textContent('#beliefs'), /Nothing yet/);
  });

  it('two contradicting facts from equally trusted sources open one dispute, shown first', async () => {
    await tell('born_on', '1990-01-01', 'passport');
    await tell('born_on', '1991-02-02', 'chat');
    assert.match(await page.textContent('#status'), /disputed/);
    assert.equal(await selected('tab-conflicts'), 'true', 'the Conflicts tab is selected');
    assert.equal(await page.textContent('#open-count'), '1');
    assert.equal(await openCards().count(), 1);
    const card = openCards().first();
    assert.equal(await card.locator('.side').nth(0).locator('.text').textContent(), '1990-01-01');
    assert.equal(await card.locator('.side').nth(1).locator('.text').textContent(), '1991-02-02');
    assert.match(await card.locator('.reason').textContent(), /contradict/);
    assert.match(await card.locator('.age').textContent(), /opened just now/);
    for (const name of ['Keep newer', 'Keep earlier', 'Keep both']) {
      assert.equal(await card.getByRole('button', { name }).count(), 1, name);
    }
  });

  it('Keep newer retires the earlier claim', async () => {
    await openCards().first().getByRole('button', { name: 'Keep newer' }).click();
    await page.waitForFunction(() => document.getElementById('open-count').textContent === '0');
    assert.match(await page.textContent('#status'), /Kept newer .* Retired “1990-01-01”/);
    assert.equal(await settledCards().count(), 1);
    assert.match(await settledCards().first().textContent(), /Kept newer by you/);
    // Focus lands on the Undo button of the same conflict, for keyboard users.
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Undo');
    assert.deepEqual(await beliefs(), [['1990-01-01', 'retired'], ['1991-02-02', 'active']]);
  });

  it('Undo restores exactly what the settlement retired', async () => {
    await settledCards().first().getByRole('button', { name: 'Undo' }).click();
    await page.waitForFunction(() => document.getElementById('open-count').textContent === '1');
    assert.equal(await settledCards().count(), 0);
    assert.deepEqual(await beliefs(), [['1990-01-01', 'disputed'], ['1991-02-02', 'disputed']]);
  });

  it('a reload shows the same state from IndexedDB, Conflicts first', async () => {
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    assert.equal(await selected('tab-conflicts'), 'true');
    assert.equal(await openCards().count(), 1);
    assert.deepEqual(await openCards().first().locator('.side .text').allTextContents(), ['1990-01-01', '1991-02-02']);
    assert.deepEqual(await beliefs(), [['1990-01-01', 'disputed'], ['1991-02-02', 'disputed']]);
    // A settlement survives a reload too.
    await openCards().first().getByRole('button', { name: 'Keep earlier' }).click();
    await page.waitForFunction(() => document.getElementById('open-count').textContent === '0');
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    assert.equal(await selected('tab-beliefs'), 'true', 'no open conflicts: Beliefs first');
    assert.deepEqual(await beliefs(), [['1990-01-01', 'active'], ['1991-02-02', 'retired']]);
    assert.match(await settledCards().first().textContent(), /Kept earlier by you/);
    await settledCards().first().getByRole('button', { name: 'Undo' }).click();
    await page.waitForFunction(() => document.getElementById('open-count').textContent === '1');
  });

  it('works from the keyboard: arrow keys move between tabs, Enter settles', async () => {
    await page.focus('#tab-conflicts');
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected('tab-beliefs'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-beliefs');
    await page.keyboard.press('Home');
    assert.equal(await selected('tab-conflicts'), 'true');
    await openCards().first().getByRole('button', { name: 'Keep both' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('open-count').textContent === '0');
    assert.match(await settledCards().first().textContent(), /Kept both/);
    await page.keyboard.press('Enter'); // focus moved to Undo
    await page.waitForFunction(() => document.getElementById('open-count').textContent === '1');
  });

  it('"Why?" explains a belief from its log, in a dialog', async () => {
    await page.getByRole('tab', { name: /Beliefs/ }).click();
    await page.getByRole('button', { name: 'Why: user born_on 1991-02-02' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.textContent(), /1991-02-02/);
    assert.match(await dialog.locator('.log').textContent(), /dispute/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('tab', { name: /Conflicts/ }).click();
  });

  it('an ask_user write opens a conflict even on a time-varying predicate', async () => {
    await tell('located_in', 'Paris', 'chat');
    await page.getByLabel('Strategy').selectOption('ask_user');
    await tell('located_in', 'Rome', 'email');
    await page.getByLabel('Strategy').selectOption('');
    assert.equal(await page.textContent('#open-count'), '2');
    assert.match(await openCards().nth(1).textContent(), /Paris[\s\S]*Rome[\s\S]*asking the user/);
  });

  it('shows open and settled conflicts together (the screenshot)', async () => {
    await openCards().nth(1).getByRole('button', { name: 'Keep newer' }).click();
    await page.waitForFunction(() => document.getElementById('open-count').textContent === '1');
    assert.match(await settledCards().first().textContent(), /Paris[\s\S]*Rome[\s\S]*Kept newer by you/);
    assert.equal(await settledCards().first().getByRole('button', { name: 'Undo' }).count(), 1);
    await page.evaluate(() => document.activeElement?.blur());
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });

  // The employer tests below each use a subject and employers of their own: the
  // page and its IndexedDB store are shared by the whole file, and under the
  // forward-filter belief an employer reported again by a second source (or a
  // slot holding earlier tests' employers) can outweigh a newer one.
  it('two employer names that look alike ask whether they are one entity; Same entity merges, Undo splits', async () => {
    await tell('works_at', 'Acme', 'hr', { subject: 'ana' });
    await tell('works_at', 'Acme Bank', 'chat', { subject: 'ana' });
    const card = page.locator('#open-list article', { hasText: 'same entity' });
    assert.equal(await card.count(), 1);
    assert.match(await card.locator('h3').textContent(), /Is “Acme Bank” the same as “Acme”\?/);
    assert.match(await card.locator('.reason').textContent(), /share "acme"/);
    assert.equal(await card.getByRole('button', { name: 'Keep newer' }).count(), 0);
    await card.getByRole('button', { name: 'Same entity' }).click();
    const settled = page.locator('#settled-list article', { hasText: 'same entity' });
    await settled.waitFor();
    assert.equal(await card.count(), 0, 'no longer open once settled');
    assert.match(await settled.textContent(), /One entity by you/);
    await settled.getByRole('button', { name: 'Undo' }).click();
    await page.locator('#open-list article', { hasText: 'same entity' }).getByRole('button', { name: 'Different' }).waitFor();
    assert.equal(await settled.count(), 0, 'open again after Undo');
  });

  it('a new employer flags the work location; "Retract it" retracts that fact', async () => {
    const before = Number(await page.textContent('#open-count'));
    await tell('works_at', 'Initech', 'chat', { subject: 'bo' });
    await tell('work_location', 'Initech HQ, Austin', 'chat', { subject: 'bo' });
    await tell('works_at', 'Hooli', 'chat', { subject: 'bo' });
    // One report of an equally trusted newer employer makes it current.
    assert.match(await page.textContent('#status'), /superseded: “Hooli”/);
    await page.waitForFunction((n) => document.getElementById('open-count').textContent === String(n), before + 1);
    const card = openCards().filter({ hasText: 'Initech HQ, Austin' });
    assert.equal(await card.count(), 1);
    assert.match(await card.locator('.kind').textContent(), /dependent/);
    assert.deepEqual(await card.locator('.side h4').allTextContents(), ['Fact', 'Hangs on works_at']);
    assert.deepEqual(await card.locator('.side .text').allTextContents(), ['Initech HQ, Austin', 'Hooli']);
    assert.equal(await card.getByRole('button', { name: 'Keep both' }).count(), 0);
    await card.getByRole('button', { name: 'Retract it' }).click();
    await page.waitForFunction((n) => document.getElementById('open-count').textContent === String(n), before);
    assert.match(await page.textContent('#status'), /Retracted for bo · work_location\. Retracted “Initech HQ, Austin”/);
    const rows = await beliefs();
    assert.deepEqual(rows.filter(([o]) => o.startsWith('Initech HQ')), [['Initech HQ, Austin', 'retracted']]);
    assert.deepEqual(rows.filter(([o]) => o === 'Hooli'), [['Hooli', 'active']], 'the new employer stays current');
  });

  it('"Retract" on a belief withdraws it with a reason; "Undo retraction" puts it back', async () => {
    await tell('works_at', 'Umbrella', 'chat', { subject: 'cleo' });
    await tell('works_at', 'Globex', 'chat', { subject: 'cleo' });
    let rows = await beliefs();
    assert.deepEqual(rows.filter(([o]) => o === 'Umbrella' || o === 'Globex'), [['Umbrella', 'superseded'], ['Globex', 'active']]);
    await page.getByRole('tab', { name: /Beliefs/ }).click();
    page.once('dialog', (d) => d.accept('left Globex, no new job yet'));
    await page.getByRole('button', { name: 'Retract: cleo works_at Globex' }).click();
    await page.waitForFunction(() => document.getElementById('status').textContent.includes('Retracted “Globex”'));
    // Re-rendered, with focus on the way back for keyboard users.
    await page.waitForFunction(() => document.activeElement?.id === 'undo-retraction');
    assert.equal(await page.getByRole('button', { name: 'Retract: cleo works_at Globex' }).count(), 0, 'no Retract button on a retracted claim');
    rows = await beliefs();
    assert.deepEqual(rows.filter(([o]) => o === 'Globex'), [['Globex', 'retracted']]);
    await page.getByRole('tab', { name: /Beliefs/ }).click();
    await page.getByRole('button', { name: 'Why: cleo works_at Globex' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.locator('.log').textContent(), /retract[\s\S]*left Globex, no new job yet/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    const renders = await page.getAttribute('body', 'data-renders');
    await page.getByRole('button', { name: 'Undo retraction' }).click();
    await page.waitForFunction(() => document.getElementById('status').textContent.includes('“Globex” holds again'));
    await page.waitForFunction((n) => document.body.dataset.renders !== n, renders);
    rows = await beliefs();
    assert.deepEqual(rows.filter(([o]) => o === 'Globex'), [['Globex', 'active']]);
    // A cancelled prompt retracts nothing.
    await page.getByRole('tab', { name: /Beliefs/ }).click();
    page.once('dialog', (d) => d.dismiss());
    await page.getByRole('button', { name: 'Retract: cleo works_at Globex' }).click();
    rows = await beliefs();
    assert.deepEqual(rows.filter(([o]) => o === 'Globex'), [['Globex', 'active']]);
  });

  it('raised no uncaught page errors', () => {
    assert.deepEqual(env.errors, []);
  });
});
