// Loads the public truth-discovery data sets (../shared/data/truth-discovery.json,
// see its README.md) at run time. They are never copied into this repository:
// a clone without them skips the real-data section with one line saying why.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = 'truth-discovery.json';

/** Where the data is looked for: $CREDENCE_DATA_DIR, else <repo>/../shared/data/. */
export function dataPath(env = process.env) {
  return join(env.CREDENCE_DATA_DIR ? resolve(env.CREDENCE_DATA_DIR) : join(repo, '..', 'shared', 'data'), FILE);
}

/**
 * { sets, source } or { skipped: reason }. Each set: name, about, cite,
 * predicate, timeVarying, sources[], items[], values[], reports (feed order,
 * { week, source, item, value } as indices; week 0 when the set has no crawl
 * dates), dates[] (ISO day of each crawl, or one), gold Map(item → value).
 */
export function loadTruthDiscovery(path = dataPath()) {
  if (!existsSync(path)) return { skipped: `${path} not found (set CREDENCE_DATA_DIR to the folder holding ${FILE})` };
  let doc;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return { skipped: `${path} could not be read: ${e.message}` };
  }
  const sets = Object.entries(doc.datasets).map(([name, d]) => {
    const dated = Array.isArray(d.dates);
    const reports = d.claims.map((c) => (dated
      ? { week: c[0], source: c[1], item: c[2], value: c[3] }
      : { week: 0, source: c[0], item: c[1], value: c[2] }));
    return {
      name, about: d.about, cite: doc.source?.cite?.[name], predicate: d.predicate, timeVarying: d.timeVarying,
      sources: d.sources, items: d.items, values: d.values, reports,
      // The book set has no crawl dates: every listing is read as one crawl.
      dates: dated ? d.dates : [BOOK_CRAWL],
      gold: new Map(d.gold.map(([item, value]) => [item, value])),
    };
  });
  return { sets, source: doc.source };
}

/** The instant the undated (book) crawl is placed at; any fixed day serves, nothing decays on a fixed predicate. */
const BOOK_CRAWL = '2007-01-01';

/**
 * Each source's latest report per item: what the baselines read. On the
 * restaurant set a site that stopped listing a restaurant already reports
 * "closed" in the data, so its latest report is its current answer. Returns
 * Map(item → [{ source, value }]) with sources in first-report order.
 */
export function latestBySource(set) {
  const byItem = new Map();
  for (const r of set.reports) {
    let m = byItem.get(r.item);
    if (!m) byItem.set(r.item, (m = new Map()));
    const cur = m.get(r.source);
    if (!cur || r.week >= cur.week) m.set(r.source, r);
  }
  return new Map([...byItem].map(([item, m]) => [item, [...m.values()].map((r) => ({ source: r.source, value: r.value }))]));
}
