// Accu and AccuCopy: X. L. Dong, L. Berti-Equille, D. Srivastava,
// "Integrating conflicting data: the role of source dependence", PVLDB 2(1), 2009.
//
// Accu iterates between each source's accuracy A(S) and each value's probability:
//   vote count of S:   A'(S) = ln(n·A(S) / (1 − A(S)))        (n = false values per item)
//   C(v) = Σ_{S provides v} A'(S) · I(S, v)                     (I = 1 without copy detection)
//   P(v) = e^C(v) / Σ_{v0 ∈ D} e^C(v0)   over the n + 1 values of the domain (an unseen value has C = 0)
//   A(S) = mean P(v) over the values S provides
// starting from A = 0.8, until no accuracy moves by more than 1e-4 (at most 100 rounds; the
// iteration can oscillate, so it also stops when the decided truths cycle).
// A is kept in [0.01, 0.99] (a numerical guard: ln blows up at 0 and 1).
//
// AccuCopy adds Bayesian copy detection between each pair of sources from the
// items both cover, given the current truth: kt shared true values, kf shared
// false values, kd different values. Independent (prior 1 − α):
//   Pt = A1·A2,  Pf = (1 − A1)(1 − A2)/n,  Pd = 1 − Pt − Pf;  L⊥ = Pt^kt · Pf^kf · Pd^kd
// S1 copies S2 (prior α/2; c = the share of items a copier copies; a copied
// value is right as often as the source it is copied from):
//   L→ = (A2·c + Pt(1 − c))^kt · ((1 − A2)·c + Pf(1 − c))^kf · (Pd(1 − c))^kd
// and a value's vote from S is discounted by the providers of it counted
// before S: I(S, v) = Π_{S' counted before S} (1 − c · Pr(S → S' | data))
// (the order: voteCount below). Parameters as in
// the paper: α = 0.2, c = 0.8. The first round's truth is the majority vote.
// n: the paper's 100 on an open value domain (book author lists); the
// restaurant domain is {open, closed}, so there n = 1 exactly (data.mjs).
import { groupFacts } from './facts.mjs';

export const ACCU = { initialAccuracy: 0.8, alpha: 0.2, c: 0.8, tolerance: 1e-4, maxRounds: 100, minA: 0.01, maxA: 0.99 };

/** Map(item → { value, confidence: P(value) }); `rounds`, `cycled`, `accuracy` (Map source → A) and (AccuCopy) `copyingPairs` on the map. */
export function accu(latest, { n, copy = false, ...rest }) {
  const p = { ...ACCU, ...rest };
  const { items, sourceFacts } = groupFacts(latest);
  const accuracy = new Map([...sourceFacts.keys()].map((s) => [s, p.initialAccuracy]));
  const pairs = copy ? pairsOf(items) : undefined;
  // The first round's truth for copy detection: the value most sources give.
  for (const it of items) it.truth = it.facts.reduce((a, b) => (b.sources.length > a.sources.length ? b : a));
  let rounds = 0;
  let copying;
  const signatures = new Set();
  let last;
  let cycled = false;
  for (; rounds < p.maxRounds;) {
    rounds++;
    copying = copy ? dependence(pairs, accuracy, n, p) : undefined;
    for (const it of items) probabilities(it, accuracy, copying, n, p);
    let moved = 0;
    for (const [s, facts] of sourceFacts) {
      const a = clamp(facts.reduce((sum, f) => sum + f.p, 0) / facts.length, p.minA, p.maxA);
      moved = Math.max(moved, Math.abs(a - accuracy.get(s)));
      accuracy.set(s, a);
    }
    if (moved < p.tolerance) break;
    // Oscillation guard (ours): the decided truths return to those of an
    // earlier round other than the last, so the iteration is cycling.
    const signature = items.map((it) => it.facts.indexOf(it.truth)).join(',');
    if (signatures.has(signature) && signature !== last) { cycled = true; break; }
    signatures.add(signature);
    last = signature;
  }
  const answers = new Map(items.map((it) => [it.item, { value: it.truth.value, confidence: it.truth.p }]));
  answers.rounds = rounds;
  answers.cycled = cycled;
  answers.accuracy = accuracy;
  if (copying) answers.copyingPairs = [...copying.values()].filter((d) => d.forward + d.backward > 0.5).length;
  return answers;
}

/** C(v) and P(v) for one item's values; sets it.truth to the most probable (ties: first reported). */
function probabilities(it, accuracy, copying, n, p) {
  const counts = it.facts.map((f) => voteCount(f, accuracy, copying, n, p));
  const unseen = Math.max(0, n + 1 - it.facts.length);
  const top = Math.max(...counts, unseen ? 0 : -Infinity);
  const z = counts.reduce((sum, c) => sum + Math.exp(c - top), 0) + unseen * Math.exp(-top);
  it.facts.forEach((f, i) => { f.p = Math.exp(counts[i] - top) / z; });
  it.truth = it.facts.reduce((a, b) => (b.p > a.p ? b : a));
}

/**
 * C(v). With copy detection the providers are counted one after another and
 * each is discounted by those already counted, I(S) = Π (1 − c·Pr(S → S'));
 * the order is greedy: next comes the provider least likely to have copied
 * one already counted (first-reported on a tie), so independent evidence
 * counts in full and the copies of it last.
 */
function voteCount(f, accuracy, copying, n, p) {
  const vote = (s) => Math.log((n * accuracy.get(s)) / (1 - accuracy.get(s)));
  if (!copying) return f.sources.reduce((sum, s) => sum + vote(s), 0);
  const rest = [...f.sources];
  const independent = rest.map(() => 1);
  let total = 0;
  while (rest.length) {
    let k = 0;
    for (let i = 1; i < rest.length; i++) if (independent[i] > independent[k]) k = i;
    const [s] = rest.splice(k, 1);
    total += vote(s) * independent.splice(k, 1)[0];
    rest.forEach((o, i) => { independent[i] *= 1 - p.c * copies(copying, o, s); });
  }
  return total;
}

/** Pairs of sources that share at least one value: the items they agree on and how many they differ on. */
function pairsOf(items) {
  const pairs = new Map();
  for (const it of items) {
    const providers = it.facts.flatMap((f) => f.sources.map((s) => [s, f]));
    for (let i = 0; i < providers.length; i++) {
      for (let j = i + 1; j < providers.length; j++) {
        const [a, fa] = providers[i];
        const [b, fb] = providers[j];
        const key = pairKey(a, b);
        let pair = pairs.get(key);
        if (!pair) pairs.set(key, (pair = { s1: Math.min(a, b), s2: Math.max(a, b), same: [], kd: 0 }));
        if (fa === fb) pair.same.push(it); else pair.kd++;
      }
    }
  }
  for (const [key, pair] of pairs) if (!pair.same.length) pairs.delete(key);
  return pairs;
}

/** Pr(S1 → S2 | data) (`forward`) and Pr(S2 → S1 | data) (`backward`) per pair, under the current truth and accuracies. */
function dependence(pairs, accuracy, n, p) {
  const out = new Map();
  for (const [key, { s1, s2, same, kd }] of pairs) {
    const kt = same.filter((it) => it.truth.sources.includes(s1)).length;
    const kf = same.length - kt;
    const [a1, a2] = [accuracy.get(s1), accuracy.get(s2)];
    const pt = a1 * a2;
    const pf = ((1 - a1) * (1 - a2)) / n;
    const pd = Math.max(1e-300, 1 - pt - pf);
    const term = (k, x) => (k ? k * Math.log(x) : 0);
    const independent = Math.log(1 - p.alpha) + term(kt, pt) + term(kf, pf) + term(kd, pd);
    const copier = (orig) => Math.log(p.alpha / 2) + term(kt, orig * p.c + pt * (1 - p.c)) + term(kf, (1 - orig) * p.c + pf * (1 - p.c)) + term(kd, pd * (1 - p.c));
    const forward = copier(a2); // s1 copies s2
    const backward = copier(a1);
    const top = Math.max(independent, forward, backward);
    const z = Math.exp(independent - top) + Math.exp(forward - top) + Math.exp(backward - top);
    out.set(key, { forward: Math.exp(forward - top) / z, backward: Math.exp(backward - top) / z });
  }
  return out;
}

/** Pr(s copies o | data); 0 for a pair that shares no value. */
function copies(copying, s, o) {
  const d = copying.get(pairKey(s, o));
  return d ? (s < o ? d.forward : d.backward) : 0;
}

/** One number per unordered pair of source indices (fewer than 2^20 sources). */
const pairKey = (a, b) => (a < b ? a * 1048576 + b : b * 1048576 + a);

const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));
