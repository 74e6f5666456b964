// Scores a method's answers on the gold items: accuracy, and ECE over the
// confidence it states in its answer (10 equal-width bins, eval/sim's calibration()).
import { calibration } from '../sim/index.mjs';

/** { accuracy, ece, brier, bins, n, hits, pairs } over the gold items; ece is NaN when the method states no confidence. */
export function score(answers, gold) {
  let hits = 0;
  const pairs = [];
  for (const [item, truth] of gold) {
    const a = answers.get(item);
    // An exact tie of k values (credence's undecided dispute) scores 1/k when the truth is among them.
    const hit = !a ? 0 : a.tiedValues ? (a.tiedValues.includes(truth) ? 1 / a.tiedValues.length : 0) : a.value === truth ? 1 : 0;
    hits += hit;
    // An unanswered item counts as wrong at confidence 0 (it says nothing).
    if (a === undefined) pairs.push([0, 0]);
    else if (Number.isFinite(a.confidence)) pairs.push([a.confidence, hit]);
  }
  const stated = pairs.length === gold.size;
  return { accuracy: hits / gold.size, hits, n: gold.size, ...(stated ? calibration(pairs) : { ece: NaN, brier: NaN }), pairs };
}
