// adaptV1Store: lets a ClaimStore written against interface v1 (no
// listConflicts/dirtySlots) run on this engine. It answers the v2 questions by
// loading every slot, so conflicts() and review() slow down as the store
// grows; implement the two methods from indexes for a store that scales.

import { byOpenedAt, indexOf, isAfter } from './slot-index.js';

function conflictRows(ref, slot) {
  return slot ? indexOf({ slot }).conflicts.map((c) => ({ ...c, ref })) : [];
}

export function adaptV1Store(store) {
  const adapted = {
    loadSlot: (ref) => store.loadSlot(ref),
    commitSlot: (commit) => store.commitSlot(commit),
    findClaim: (id) => store.findClaim(id),
    findConflict: (id) => store.findConflict(id),
    listSlots: (filter) => store.listSlots(filter),
    readLog: (ref) => store.readLog(ref),
    async listConflicts({ status, after: cursor, limit }) {
      const rows = [];
      for (const ref of await store.listSlots({})) rows.push(...conflictRows(ref, await store.loadSlot(ref)));
      return rows.filter((r) => r.status === status && isAfter(r, cursor)).sort(byOpenedAt).slice(0, limit);
    },
    async dirtySlots({ after: key, limit }) {
      const out = [];
      for (const ref of await store.listSlots({})) {
        if (key !== undefined && ref.key <= key) continue;
        const slot = await store.loadSlot(ref);
        if (slot && indexOf({ slot }).unreviewed) out.push(ref);
        if (out.length >= limit) break;
      }
      return out;
    },
  };
  // Optional methods pass through when the store has them.
  for (const name of ['eraseSlot', 'findWrite']) {
    if (typeof store[name] === 'function') adapted[name] = (...args) => store[name](...args);
  }
  return adapted;
}
