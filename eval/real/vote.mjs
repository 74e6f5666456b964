// Majority vote over each source's latest report per item (data.mjs
// latestBySource). Every baseline here returns Map(item → { value, confidence }).

/**
 * The value most sources report; an exact tie goes to the value reported
 * first in the feed (a fixed, order-of-data rule, counted in `ties`).
 * Confidence: the winning value's share of the item's sources.
 */
export function majorityVote(latest) {
  const answers = new Map();
  let ties = 0;
  for (const [item, reports] of latest) {
    const counts = new Map();
    for (const r of reports) counts.set(r.value, (counts.get(r.value) ?? 0) + 1);
    let best;
    let tied = false;
    for (const [value, n] of counts) {
      if (!best || n > best.n) { best = { value, n }; tied = false; } else if (n === best.n) tied = true;
    }
    if (tied) ties++;
    answers.set(item, { value: best.value, confidence: best.n / reports.length, tied });
  }
  answers.ties = ties;
  return answers;
}
