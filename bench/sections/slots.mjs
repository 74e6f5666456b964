// Section 11 (issue #43): one slot written many times, by shape, on the
// in-memory store. Each figure is a ratio measured in one run: the mean cost
// of the last `window` writes over the first `window`, and the hot slot
// document's size at the end. Goals: ≤ 1.3× and ≤ 64 KB (SPEC §8: slot
// records stay bounded). Printed, never a failing test.
import path from 'node:path';
import { fmtBytes, fmtInt, fmtX, lastJson, row, run } from '../lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WORKER = path.join(ROOT, 'bench', 'workers', 'slot-shapes.mjs');
const LABELS = {
  replace: 'working memory (replace)',
  append: 'append log (maxEntries 0)',
  appendCapped: 'append log (maxEntries 50)',
  merge_on_read: 'merge_on_read log',
  timeVarying: 'located_in changed daily',
  multi: 'likes: distinct values',
};
const GOAL = 1.3;
const SLOT_GOAL = 64 * 1024;

export async function slotShapes({ quick }) {
  const [writes, window] = quick ? [3_000, 500] : [10_000, 1_000];
  const result = lastJson(run(process.execPath, [WORKER, String(writes), String(window)], { cwd: ROOT }).stdout);
  const rows = [];
  let i = 0;
  for (const [shape, r] of Object.entries(result)) {
    i += 1;
    const fmt = (ms) => `${ms.toFixed(3)} ms`;
    rows.push(row(`11.${i}`, `${LABELS[shape]}: last ${fmtInt(window)} / first ${fmtInt(window)} of ${fmtInt(writes)} writes`,
      fmt(r.lastMs), fmt(r.firstMs), fmtX(r.ratio), `≤ ${GOAL}×`, r.ratio <= GOAL));
    rows.push(row(`11.${i}s`, `${LABELS[shape]}: hot slot document`, fmtBytes(r.slotBytes), '', `${fmtInt(r.claims)} claims (${fmtInt(r.archivedClaims)} archived)`, '≤ 64 KB', r.slotBytes <= SLOT_GOAL));
    rows.push(row(`11.${i}h`, `${LABELS[shape]}: recall({ includeHistory })`, fmt(r.historyMs), '', `${fmtInt(r.history)} claims`, `${fmtInt(writes)}`, r.history === writes));
  }
  return { rows, data: result };
}
