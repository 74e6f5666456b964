// The fact graph the iterative baselines share: per item its distinct values
// ("facts", in first-report order) with the sources providing each, and per
// source the facts it provides.

/** { items: [{ item, facts: [{ value, sources[] }] }], sourceFacts: Map(source → fact[]) } */
export function groupFacts(latest) {
  const items = [];
  const sourceFacts = new Map();
  for (const [item, reports] of latest) {
    const byValue = new Map();
    for (const r of reports) {
      let f = byValue.get(r.value);
      if (!f) byValue.set(r.value, (f = { value: r.value, sources: [] }));
      f.sources.push(r.source);
      let list = sourceFacts.get(r.source);
      if (!list) sourceFacts.set(r.source, (list = []));
      list.push(f);
    }
    items.push({ item, facts: [...byValue.values()] });
  }
  return { items, sourceFacts };
}
