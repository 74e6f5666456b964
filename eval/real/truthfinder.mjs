// TruthFinder: X. Yin, J. Han, P. S. Yu, "Truth discovery with multiple
// conflicting information providers on the Web", KDD 2007 / IEEE TKDE 20(6), 2008.
// Iterates between a website's trustworthiness t(w) (the mean confidence of
// its facts) and a fact's confidence s(f):
//   τ(w) = −ln(1 − t(w));  σ(f) = Σ_{w provides f} τ(w)
//   σ*(f) = σ(f) + ρ · Σ_{f' ≠ f, same object} σ(f') · imp(f' → f)
//   s(f) = 1 / (1 + e^(−γ·σ*(f)))
// with the paper's usual parameters: t0 = 0.9, ρ = 0.5, γ = 0.3, stop when
// 1 − cos(t, t_prev) < δ = 0.001 (at most 100 rounds). The paper leaves
// imp() domain-specific (for author lists, how far one list supports the
// other); here imp(f' → f) = (share of f′'s names also in f) − base_sim,
// base_sim = 0.5, one rule for both sets ("open"/"closed" share no name, so
// they imply each other −0.5, i.e. they conflict).
import { groupFacts } from './facts.mjs';

export const TRUTHFINDER = { t0: 0.9, rho: 0.5, gamma: 0.3, delta: 0.001, baseSim: 0.5, maxRounds: 100 };

const names = (value) => new Set(value.split(';').map((s) => s.trim()).filter(Boolean));

/** Map(item → { value, confidence: s(f) }) from each source's latest report per item; `rounds` on the map. */
export function truthFinder(latest, valueText, p = TRUTHFINDER) {
  const { items, sourceFacts } = groupFacts(latest);
  // imp(f' → f) per object, computed once: facts are fixed strings.
  for (const it of items) {
    const sets = it.facts.map((f) => names(valueText(f.value)));
    it.imp = sets.map((a) => sets.map((b) => {
      let shared = 0;
      for (const x of a) if (b.has(x)) shared++;
      return (a.size ? shared / a.size : 0) - p.baseSim;
    }));
  }
  const trust = new Map([...sourceFacts.keys()].map((s) => [s, p.t0]));
  let rounds = 0;
  for (; rounds < p.maxRounds; rounds++) {
    for (const it of items) {
      const sigma = it.facts.map((f) => f.sources.reduce((sum, s) => sum - Math.log(Math.max(1e-12, 1 - trust.get(s))), 0));
      it.facts.forEach((f, i) => {
        let adjusted = sigma[i];
        it.facts.forEach((_, j) => { if (j !== i) adjusted += p.rho * sigma[j] * it.imp[j][i]; });
        f.s = 1 / (1 + Math.exp(-p.gamma * adjusted));
      });
    }
    const next = new Map([...sourceFacts].map(([s, facts]) => [s, facts.reduce((sum, f) => sum + f.s, 0) / facts.length]));
    const change = 1 - cosine(trust, next);
    for (const [s, t] of next) trust.set(s, t);
    if (change < p.delta) { rounds++; break; }
  }
  const answers = new Map(items.map((it) => {
    const best = it.facts.reduce((a, b) => (b.s > a.s ? b : a)); // ties: the fact reported first
    return [it.item, { value: best.value, confidence: best.s }];
  }));
  answers.rounds = rounds;
  return answers;
}

function cosine(a, b) {
  let dot = 0; let na = 0; let nb = 0;
  for (const [k, x] of a) { const y = b.get(k); dot += x * y; na += x * x; nb += y * y; }
  return dot / Math.sqrt(na * nb);
}
