// The browser assistant: a form that writes facts, the current beliefs with
// their confidence, "why" and a Retract button, and a Conflicts tab to settle
// contradictions and dependent facts.
// Plain DOM, no framework; every user-supplied string goes in as text.
import { Memory, IndexedDbStore, isCredenceError } from 'credence';

const params = new URLSearchParams(location.search);
const store = new IndexedDbStore('credence-browser-assistant', { scope: params.get('scope') || 'demo' });
const memory = new Memory({ store, retries: 10 });
// Other tabs on the same database tell us when to re-render.
const channel = 'BroadcastChannel' in globalThis ? new BroadcastChannel('credence-browser-assistant') : null;

const $ = (id) => document.getElementById(id);

/** h('p', { class: 'x', onclick }, 'text', child) — a small element builder. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  el.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

const percent = (p) => `${Math.round(p * 100)}%`;
const sources = (claim) => claim.provenance.map((p) => p.sourceId).join(', ');
const when = (iso) => new Date(iso).toLocaleString();

function age(iso) {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

function say(message) {
  $('error').hidden = true;
  $('status').textContent = message;
}

function fail(err) {
  $('status').textContent = '';
  $('error').hidden = false;
  $('error').textContent = isCredenceError(err) ? `${err.code}: ${err.message}` : `Something failed: ${err?.message ?? err}`;
}

// ---- tabs (WAI-ARIA tabs pattern: arrows, Home/End, roving tabindex) ----

const tabs = [$('tab-conflicts'), $('tab-beliefs')];

function select(tab, { focus = false } = {}) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
  if (focus) tab.focus();
}

for (const tab of tabs) {
  tab.addEventListener('click', () => select(tab));
  tab.addEventListener('keydown', (e) => {
    const i = tabs.indexOf(tab);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    select(tabs[(next + tabs.length) % tabs.length], { focus: true });
  });
}

// ---- conflicts ----

const SETTLED_AS = { keep_newer: 'Kept newer', keep_earlier: 'Kept earlier', keep_both: 'Kept both', same: 'One entity', different: 'Two entities' };
const BUTTONS = { keep_newer: 'Keep newer', keep_earlier: 'Keep earlier', keep_both: 'Keep both', same: 'Same entity', different: 'Different' };
// A dependent conflict asks whether a fact still holds after what it hangs on changed.
const DEPENDENT_AS = { keep_newer: 'Retracted', keep_earlier: 'Still holds', keep_both: 'Still holds' };
const DEPENDENT_BUTTONS = { keep_earlier: 'Still holds', keep_newer: 'Retract it' };
const settledAs = (c, settlement) => (c.kind === 'dependent' ? DEPENDENT_AS : SETTLED_AS)[settlement] ?? settlement;

function side(label, claim) {
  return h('div', { class: 'side' },
    h('h4', {}, label),
    h('p', { class: 'text' }, claim.object),
    h('p', { class: 'meta' },
      `from ${sources(claim)} · ${percent(claim.confidence)} · `,
      h('span', { class: `status status-${claim.status}` }, claim.status)),
  );
}

function conflictCard(c) {
  const titleId = `title-${c.id}`;
  const sameEntity = c.kind === 'same_entity';
  const dependent = c.kind === 'dependent';
  // A same_entity conflict asks whether two names are one entity, not which fact holds.
  const title = sameEntity ? `Is “${c.newer.object}” the same as “${c.earlier.object}”?` : `${c.subject} · ${c.predicate}`;
  const act = (settlement) =>
    h('button', { type: 'button', dataset: { conflict: c.id, action: settlement }, onclick: () => settle(c, settlement) },
      (dependent ? DEPENDENT_BUTTONS : BUTTONS)[settlement]);
  const choices = sameEntity ? ['same', 'different'] : dependent ? ['keep_earlier', 'keep_newer'] : ['keep_newer', 'keep_earlier', 'keep_both'];
  const actions = c.status === 'open'
    ? choices.map(act)
    : c.status === 'settled'
      ? [h('button', { type: 'button', dataset: { conflict: c.id, action: 'undo' }, onclick: () => undo(c) }, 'Undo')]
      : [];
  const settled = c.status === 'settled'
    ? h('p', { class: 'settled' }, `${settledAs(c, c.settlement)} by ${c.settledBy ?? 'someone'}, `,
      h('time', { datetime: c.settledAt, title: when(c.settledAt) }, age(c.settledAt)))
    : c.status === 'resolved_by_evidence' ? h('p', { class: 'settled' }, 'Resolved by later evidence')
      : c.status === 'moot' ? h('p', { class: 'settled' }, 'No longer relevant') : null;
  return h('article', { class: `conflict conflict-${c.status}`, 'aria-labelledby': titleId, dataset: { id: c.id } },
    h('header', {},
      h('h3', { id: titleId }, title),
      h('span', { class: 'kind' }, c.kind.replace('_', ' ')),
      h('span', { class: 'age' }, 'opened ', h('time', { datetime: c.openedAt, title: when(c.openedAt) }, age(c.openedAt)))),
    h('div', { class: 'sides' }, dependent
      ? [side('Fact', c.earlier), side(`Hangs on ${c.newer.predicate}`, c.newer)]
      : [side('Earlier', c.earlier), side('Newer', c.newer)]),
    h('p', { class: 'reason' }, h('strong', {}, 'Reason: '), c.reason),
    settled,
    actions.length ? h('div', { class: 'actions', role: 'group', 'aria-label': `Settle ${title}` }, actions) : null,
  );
}

async function settle(conflict, settlement) {
  try {
    const done = await memory.settle(conflict.id, settlement, { by: 'you' });
    const gone = (status) => [done.earlier, done.newer].filter((c) => c.status === status && c.predicate === conflict.predicate).map((c) => `“${c.object}”`);
    const retired = gone('retired');
    const retracted = gone('retracted');
    say(`${settledAs(conflict, settlement)} for ${conflict.subject} · ${conflict.predicate}.` +
      (retired.length ? ` Retired ${retired.join(' and ')}.` : '') + (retracted.length ? ` Retracted ${retracted.join(' and ')}.` : ''));
    await changed({ focus: [conflict.id, 'undo'] });
  } catch (err) {
    fail(err);
  }
}

async function undo(conflict) {
  try {
    await memory.undo(conflict.id);
    say(`Undid the settlement of ${conflict.subject} · ${conflict.predicate}; the conflict is open again.`);
    await changed({ focus: [conflict.id, conflict.kind === 'same_entity' ? 'same' : 'keep_newer'] });
  } catch (err) {
    fail(err);
  }
}

// ---- retract: "that's no longer true", with nothing to replace it ----

const LIVE = new Set(['active', 'disputed', 'outweighed']);

async function retract(claim) {
  const reason = prompt(`Why does “${claim.object}” (${claim.subject} · ${claim.predicate}) no longer hold?`, '');
  if (reason === null) return; // cancelled
  try {
    const r = await memory.retract(claim.id, reason.trim() ? { reason, by: 'you' } : { by: 'you' });
    const flagged = r.dependents?.length ?? 0;
    say(`Retracted “${r.claim.object}”.` + (flagged ? ` ${flagged} fact${flagged > 1 ? 's' : ''} that hang on it to check.` : ''));
    $('status').append(' ', h('button', { type: 'button', id: 'undo-retraction', onclick: () => undoRetraction(r) }, 'Undo retraction'));
    await changed();
    $('undo-retraction')?.focus();
  } catch (err) {
    fail(err);
  }
}

async function undoRetraction(r) {
  try {
    await memory.undo(r.id);
    say(`“${r.claim.object}” holds again.`);
    await changed();
  } catch (err) {
    fail(err);
  }
}

// ---- beliefs ----

async function beliefs(includeHistory) {
  // Every subject memory holds facts about (the store's reserved slots, such as entity registries, left out).
  const subjects = await memory.subjects();
  const all = [];
  for (const s of subjects) all.push(...(await memory.recall(s, { includeHistory })));
  return all;
}

function beliefTable(claims) {
  if (claims.length === 0) return h('p', { class: 'empty' }, 'Nothing yet. Tell memory a fact above.');
  return h('table', {},
    h('thead', {}, h('tr', {}, ['Subject', 'Predicate', 'Value', 'Confidence', 'Status', 'Sources', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, claims.map((c) =>
      h('tr', { class: `row-${c.status}` },
        h('td', {}, c.subject),
        h('td', {}, c.predicate),
        h('th', { scope: 'row' }, c.object),
        h('td', {}, h('meter', { min: 0, max: 1, value: c.confidence, 'aria-label': `confidence ${percent(c.confidence)}` }), ' ', percent(c.confidence)),
        h('td', {}, h('span', { class: `status status-${c.status}` }, c.status)),
        h('td', {}, sources(c)),
        h('td', {}, h('button', { type: 'button', class: 'why', 'aria-label': `Why: ${c.subject} ${c.predicate} ${c.object}`, onclick: () => why(c) }, 'Why?'),
          LIVE.has(c.status) ? [' ', h('button', { type: 'button', class: 'retract', 'aria-label': `Retract: ${c.subject} ${c.predicate} ${c.object}`, onclick: () => retract(c) }, 'Retract')] : null),
      ))),
  );
}

async function why(claim) {
  try {
    const answer = await memory.why(claim.id);
    $('why-title').textContent = `Why memory believes “${answer.claim.object}” (${answer.claim.subject} · ${answer.claim.predicate})`;
    const body = $('why-body');
    body.replaceChildren(
      h('p', {}, `${percent(answer.claim.confidence)} confident, ${answer.claim.status}; recorded ${when(answer.claim.recordedAt)}; sources: ${sources(answer.claim)}.`),
      answer.lineage.length > 1
        ? h('p', {}, 'Lineage: ', answer.lineage.map((c) => `“${c.object}” (${c.status})`).join(' → '))
        : null,
      h('h3', {}, 'Log'),
      h('ol', { class: 'log' }, answer.log.map((e) =>
        h('li', {},
          h('code', {}, e.rule), ' ',
          e.confidenceAfter !== undefined ? `${percent(e.confidenceBefore ?? 0)} → ${percent(e.confidenceAfter)} · ` : '',
          e.note, ' ', h('time', { datetime: e.at, class: 'meta' }, when(e.at))))),
    );
    $('why').showModal();
  } catch (err) {
    fail(err);
  }
}

// ---- rendering ----

let firstRender = true;

async function render({ focus } = {}) {
  const [conflicts, claims] = await Promise.all([memory.conflicts(), beliefs($('history').checked)]);
  const open = conflicts.filter((c) => c.status === 'open');
  const rest = conflicts.filter((c) => c.status !== 'open');
  $('open-count').textContent = String(open.length);
  $('open-count').setAttribute('aria-label', `${open.length} open`);
  $('open-list').replaceChildren(open.length ? h('div', {}, open.map(conflictCard)) : h('p', { class: 'empty' }, 'No open conflicts.'));
  $('settled-heading').hidden = rest.length === 0;
  $('settled-list').replaceChildren(...rest.map(conflictCard));
  $('beliefs').replaceChildren(beliefTable(claims));
  // Conflicts come first whenever some are open on load.
  if (firstRender) select(open.length ? tabs[0] : tabs[1]);
  firstRender = false;
  document.body.dataset.renders = String(Number(document.body.dataset.renders ?? 0) + 1);
  if (focus) document.querySelector(`[data-conflict="${focus[0]}"][data-action="${focus[1]}"]`)?.focus();
  return open.length;
}

async function changed(options) {
  const open = await render(options);
  channel?.postMessage('changed');
  return open;
}

$('fact-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = e.currentTarget;
  const f = Object.fromEntries(new FormData(form));
  const missing = ['subject', 'predicate', 'value', 'source'].find((k) => !String(f[k] ?? '').trim());
  if (missing) {
    fail(new Error(`please fill in ${missing}`));
    form.elements[missing].focus();
    return;
  }
  try {
    const outcome = await memory.remember(
      { subject: f.subject, predicate: f.predicate, object: f.value, provenance: { sourceId: f.source } },
      f.strategy ? { strategy: f.strategy } : {},
    );
    const opened = outcome.conflicts.filter((c) => c.status === 'open').length;
    say(`${outcome.action}: “${outcome.claim.object}” (${percent(outcome.claim.confidence)})` +
      (opened ? ` — ${opened} conflict${opened > 1 ? 's' : ''} to settle` : ''));
    await changed();
    if (opened) select(tabs[0]);
    form.elements.value.value = '';
    form.elements.value.focus();
  } catch (err) {
    fail(err);
  }
});

$('history').addEventListener('change', () => render().catch(fail));
if (channel) channel.onmessage = () => render().catch(fail);

await render().catch(fail);
document.body.dataset.ready = 'true';
