// The index rows of a commit (ClaimStore v2): the engine sends them as
// `commit.index`; a commit built by hand without one gets them derived from
// the slot, so the indexes never disagree with the slot they describe.

export function indexOf(commit) {
  if (commit.index) return commit.index;
  const slot = commit.slot ?? {};
  return {
    conflicts: (slot.conflicts ?? []).map((c) => ({ id: c.id, status: c.status, openedAt: c.openedAt })),
    unreviewed: (slot.claims ?? []).length > (slot.reviewed ?? 0),
  };
}

/** (openedAt, id) strictly after the cursor; openedAt is a fixed-width ISO string. */
export function isAfter(row, cursor) {
  if (!cursor) return true;
  return row.openedAt > cursor.openedAt || (row.openedAt === cursor.openedAt && row.id > cursor.id);
}

export function byOpenedAt(a, b) {
  if (a.openedAt !== b.openedAt) return a.openedAt < b.openedAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
