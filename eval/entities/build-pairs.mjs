// Builds eval/entities/pairs.json, the labeled set of the entity evaluation
// (issue #16), from public data that ships in registry packages plus the hand
// lists in hand-lists.mjs. Re-run after changing a source:
//
//   npm install --no-save world-countries@5.1.0 @faker-js/faker@10.6.0
//   node eval/entities/build-pairs.mjs
//
// Sources:
// - world-countries 5.1.0 (npm; data from mledoze/countries, ODbL): 250
//   countries and territories with common and official names, alternative
//   spellings, English demonyms, capitals and translations.
// - @faker-js/faker 10.6.0 (npm, MIT): first and last names of the en, es,
//   fr, de and pt_BR locales.
// - hand-lists.mjs: companies by their real short and legal names, and
//   distinct companies with look-alike names (written by hand, checked one by one).
//
// Every pair is labeled: `distinct` pairs name two different entities that
// look alike; `variants` name one entity two ways. Pairs are deduplicated
// (unordered, case-sensitive) and sorted, so the file is deterministic.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import countries from 'world-countries';
import { fakerDE, fakerEN, fakerES, fakerFR, fakerPT_BR } from '@faker-js/faker';
import { mulberry32 } from '../../js-tests/lib/mulberry32.mjs';
import { COMPANY_LEGAL_NAMES, COMPANY_ACRONYMS, DISTINCT_COMPANIES, THE_PREFIXED, COUNTRY_ACRONYMS } from './hand-lists.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const random = mulberry32(20261201);
const pick = (list, n) => {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
};

/** Levenshtein distance, for choosing which distinct names look alike (independent of the engine's rules). */
function lev(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length][b.length];
}
const plain = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const words = (s) => plain(s).split(/[^\p{L}\p{N}']+/u).filter(Boolean);
const COMMON_WORDS = new Set(['the', 'of', 'and', 'republic', 'islands', 'island', 'saint', 'united', 'states', 'kingdom', 'democratic', 'people\'s', 'federal', 'new', 'south', 'north', 'east', 'west', 'central', 'city', 'and']);
/** Looks alike: a few letters apart, one begins the other, or they share a distinctive word. */
function looksAlike(a, b) {
  const [x, y] = [plain(a), plain(b)];
  if (x === y) return false;
  const d = lev(x, y);
  if (d <= Math.max(1, Math.floor(Math.min(x.length, y.length) / 3))) return true;
  if (Math.min(x.length, y.length) >= 4 && (x.startsWith(y) || y.startsWith(x))) return true;
  const wa = words(a).filter((w) => w.length >= 4 && !COMMON_WORDS.has(w));
  return wa.some((w) => words(b).includes(w));
}

const distinct = [];
const variants = [];
const seen = new Set();
function add(list, a, b, type, category, extra = {}) {
  if (a === b) return;
  const key = [type, ...[a, b].sort()].join('\u0000');
  if (seen.has(key)) return;
  seen.add(key);
  list.push({ a, b, type, category, ...extra });
}

// ---- distinct look-alikes -------------------------------------------------
const names = countries.map((c) => c.name.common);
for (let i = 0; i < names.length; i++) {
  for (let j = i + 1; j < names.length; j++) {
    if (looksAlike(names[i], names[j])) add(distinct, names[i], names[j], 'country', 'country vs country');
  }
}
for (const c of countries) {
  const demonym = c.demonyms?.eng?.m;
  if (demonym && looksAlike(c.name.common, demonym)) add(distinct, c.name.common, demonym, 'country', 'country vs demonym');
  for (const capital of c.capital ?? []) {
    if (looksAlike(c.name.common, capital)) add(distinct, c.name.common, capital, 'country', 'country vs its capital');
  }
}
for (const [a, b] of DISTINCT_COMPANIES) add(distinct, a, b, 'org', 'company vs company');
// People: two real first names a letter apart, same surname ("Maria Garcia" / "Mario Garcia").
const firstNames = [...new Set([...fakerEN.definitions.person.first_name.generic, ...fakerEN.definitions.person.first_name.female, ...fakerEN.definitions.person.first_name.male])].filter((n) => n.length >= 4);
const lastNames = fakerEN.definitions.person.last_name.generic;
const firstPairs = [];
for (let i = 0; i < firstNames.length; i++) {
  for (let j = i + 1; j < firstNames.length; j++) {
    if (lev(firstNames[i].toLowerCase(), firstNames[j].toLowerCase()) === 1) firstPairs.push([firstNames[i], firstNames[j]]);
  }
}
for (const [a, b] of pick(firstPairs, 90)) {
  const last = lastNames[Math.floor(random() * lastNames.length)];
  add(distinct, `${a} ${last}`, `${b} ${last}`, 'person', 'people: first names a letter apart');
}
const lastPairs = [];
for (let i = 0; i < lastNames.length; i++) {
  for (let j = i + 1; j < lastNames.length; j++) {
    if (lastNames[i].length >= 5 && lev(lastNames[i].toLowerCase(), lastNames[j].toLowerCase()) === 1) lastPairs.push([lastNames[i], lastNames[j]]);
  }
}
for (const [a, b] of pick(lastPairs, 40)) {
  const first = firstNames[Math.floor(random() * firstNames.length)];
  add(distinct, `${first} ${a}`, `${first} ${b}`, 'person', 'people: surnames a letter apart');
}

// ---- true variants ----------------------------------------------------------
// Accents: a country's name in another language, with and without its accents.
const accented = [];
for (const c of countries) {
  for (const lang of ['fra', 'spa', 'por', 'ita', 'deu', 'ces', 'pol', 'hrv', 'hun', 'slk', 'fin', 'est', 'nld', 'swe']) {
    const name = c.translations?.[lang]?.common;
    if (name && plain(name) !== name.toLowerCase()) accented.push([name, name.normalize('NFD').replace(/\p{M}/gu, ''), c.cca3]);
  }
}
for (const [a, b, id] of pick(accented, 150)) add(variants, a, b, 'country', 'accents', { id });
// Case and punctuation.
for (const c of pick(countries.filter((c) => /[-'.,]/.test(c.name.common)), 30)) {
  add(variants, c.name.common, c.name.common.toUpperCase().replace(/-/g, ' '), 'country', 'case and punctuation', { id: c.cca3 });
}
for (const c of pick(countries, 20)) add(variants, c.name.common, `  ${c.name.common.toLowerCase()} `, 'country', 'case and punctuation', { id: c.cca3 });
for (const [a, b] of THE_PREFIXED) add(variants, a, b, 'country', 'leading "the"');
// Legal suffixes.
for (const [short, legal] of COMPANY_LEGAL_NAMES) {
  add(variants, short, legal, 'org', 'legal suffixes');
  add(variants, short.toUpperCase(), legal, 'org', 'legal suffixes');
}
// Honorifics and accents on people's names (faker's es, fr, de and pt_BR names that carry accents).
const accentedPeople = [];
for (const f of [fakerES, fakerFR, fakerDE, fakerPT_BR]) {
  const firsts = [...(f.definitions.person.first_name.female ?? []), ...(f.definitions.person.first_name.male ?? [])];
  const lasts = f.definitions.person.last_name.generic ?? [];
  const withAccent = (list) => list.filter((n) => plain(n) !== n.toLowerCase());
  for (const first of pick(withAccent(firsts), 12)) accentedPeople.push(`${first} ${lasts[Math.floor(random() * lasts.length)]}`);
  for (const last of pick(withAccent(lasts), 12)) accentedPeople.push(`${firsts[Math.floor(random() * firsts.length)]} ${last}`);
}
const titles = ['Dr.', 'Mr.', 'Mrs.', 'Ms.', 'Prof.', 'Dr', 'Sir', 'Dame', 'Herr', 'Madame'];
for (const [i, name] of accentedPeople.entries()) {
  const stripped = name.normalize('NFD').replace(/\p{M}/gu, '');
  add(variants, name, i % 2 ? `${titles[i % titles.length]} ${stripped}` : stripped, 'person', 'honorifics and accents');
}
for (const name of pick(lastNames, 30)) {
  const first = firstNames[Math.floor(random() * firstNames.length)];
  add(variants, `${first} ${name}`, `${titles[Math.floor(random() * titles.length)]} ${first} ${name}, PhD`, 'person', 'honorifics and accents');
}
// Known aliases: official names and alternative spellings, declared with `entityAliases`.
const knownAliases = { country: [] };
const aliasPairs = [];
for (const c of countries) {
  const group = [...new Set([c.name.common, c.name.official, ...(c.altSpellings ?? []).filter((s) => s.length >= 4)])];
  knownAliases.country.push(group);
  if (c.name.official !== c.name.common) aliasPairs.push([c.name.common, c.name.official, c.cca3]);
}
for (const [a, b, id] of pick(aliasPairs, 60)) add(variants, a, b, 'country', 'known aliases (declared)', { id, declared: true });
// Abbreviations and initials: a person should confirm these (routed, not merged).
for (const [a, b] of COUNTRY_ACRONYMS) add(variants, a, b, 'country', 'abbreviations (ask)');
for (const [a, b] of COMPANY_ACRONYMS) add(variants, a, b, 'org', 'abbreviations (ask)');
for (const name of pick(accentedPeople, 12)) {
  const [first, ...rest] = name.split(' ');
  add(variants, name, `${first[0]}. ${rest.join(' ')}`, 'person', 'initials (ask)');
}

const out = {
  about: 'Labeled entity-name pairs for the entity evaluation (issue #16). Built by eval/entities/build-pairs.mjs; sources are named there.',
  sources: ['world-countries@5.1.0 (npm, ODbL)', '@faker-js/faker@10.6.0 (npm, MIT)', 'eval/entities/hand-lists.mjs (hand-checked companies)'],
  entityAliases: knownAliases,
  distinct: distinct.sort((x, y) => x.category.localeCompare(y.category) || x.a.localeCompare(y.a) || x.b.localeCompare(y.b)),
  variants: variants.sort((x, y) => x.category.localeCompare(y.category) || x.a.localeCompare(y.a) || x.b.localeCompare(y.b)),
};
writeFileSync(join(here, 'pairs.json'), JSON.stringify(out, null, 1) + '\n');
const count = (list) => Object.entries(list.reduce((m, p) => ({ ...m, [p.category]: (m[p.category] ?? 0) + 1 }), {})).map(([k, v]) => `${k} ${v}`).join(', ');
console.log(`distinct ${distinct.length}: ${count(distinct)}`);
console.log(`variants ${variants.length}: ${count(variants)}`);
