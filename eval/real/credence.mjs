// credence on a real data set, through the installed package as a new user
// would run it: the set's predicate declared, nothing else configured. Every
// report is one remember() with provenance { sourceId, observedAt } at the
// crawl's instant (book: one crawl; restaurant: week w at 2009-01-22 + 7w
// days, the set's dates); the answer per item is the most confident active or
// disputed claim recall() returns after the last crawl.
import { Memory } from 'credence';

const at = (day) => `${day}T00:00:00.000Z`;

/**
 * Whether this engine knows the `calibrate` Memory option (SPEC §4:
 * true | "inline" | false). An engine without it refuses the unknown key
 * with INVALID_INPUT.
 */
export function calibrateOptionSupported() {
  try {
    new Memory({ calibrate: 'inline' }).free();
    return true;
  } catch (e) {
    if (e.code === 'INVALID_INPUT' && /calibrate/.test(e.message)) return false;
    throw e;
  }
}

/**
 * Writes the set into a fresh Memory and reads the gold items back.
 * options.config: extra Memory options (e.g. { calibrate: 'inline' });
 * options.reverse: write each instant's reports in reverse order (the order-independence check);
 * options.thenCalibrate: also read after an explicit memory.calibrate().
 * Returns { answers, calibrated?, calibration? (what calibrate() returned), actions, refined: Set(claimId), writes, seconds }.
 */
export async function runCredence(set, { config = {}, reverse = false, thenCalibrate = false } = {}) {
  const started = Date.now();
  const clock = { now: at(set.dates[0]) };
  const memory = new Memory({
    ...config,
    now: () => clock.now,
    predicates: [{ name: set.predicate, cardinality: 'single', timeVarying: set.timeVarying }],
  });
  const actions = {};
  const refined = new Set(); // claims a `refined` outcome produced (diagnosis of wrong answers)
  for (const [week, reports] of byInstant(set.reports)) {
    clock.now = at(set.dates[week]);
    for (const r of reverse ? [...reports].reverse() : reports) {
      const outcome = await memory.remember({
        subject: set.items[r.item],
        predicate: set.predicate,
        object: set.values[r.value],
        provenance: { sourceId: set.sources[r.source], observedAt: clock.now },
      });
      actions[outcome.action] = (actions[outcome.action] ?? 0) + 1;
      if (outcome.action === 'refined') refined.add(outcome.claim.id);
    }
    // The service idles between crawls: background work (SPEC §4's automatic
    // calibration) finishes before the next crawl arrives and before the reads.
    await memory.idle();
  }
  const answers = await read(memory, set);
  let calibrated;
  let calibration;
  if (thenCalibrate) {
    calibration = await memory.calibrate();
    calibrated = await read(memory, set);
  }
  memory.free();
  return { answers, calibrated, calibration, actions, refined, writes: set.reports.length, seconds: (Date.now() - started) / 1000 };
}

/** Map(item → { value, confidence, status, claim }) for the gold items. */
async function read(memory, set) {
  const answers = new Map();
  for (const item of set.gold.keys()) {
    const claims = await memory.recall(set.items[item], { predicate: set.predicate });
    const current = claims.filter((c) => c.status === 'active' || c.status === 'disputed');
    let best;
    for (const c of current) if (!best || c.confidence > best.confidence) best = c;
    // An exact tie is a dispute the engine leaves undecided: every tied value is
    // the answer with an equal share (score.mjs), not the one written first.
    const tied = current.filter((c) => c.confidence === best?.confidence).map((c) => valueIndex(set).get(c.object) ?? -1);
    if (best) answers.set(item, { value: valueIndex(set).get(best.object) ?? -1, ...(tied.length > 1 ? { tiedValues: tied } : {}), confidence: best.confidence, status: best.status, claim: best });
  }
  return answers;
}

/** The reports grouped by crawl, crawls in time order, feed order kept within each. */
function byInstant(reports) {
  const weeks = new Map();
  for (const r of reports) {
    if (!weeks.has(r.week)) weeks.set(r.week, []);
    weeks.get(r.week).push(r);
  }
  return [...weeks].sort((a, b) => a[0] - b[0]);
}

const indexes = new WeakMap();
/** Map(value text → index) of a set, built once. */
function valueIndex(set) {
  if (!indexes.has(set)) indexes.set(set, new Map(set.values.map((v, i) => [v, i])));
  return indexes.get(set);
}
