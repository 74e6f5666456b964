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

/**
 * The conflict rows of `index` that `before` (the index of the slot it
 * replaces, or null) does not already hold as they are: a commit writes only
 * these, so a slot with thousands of conflicts (an entity registry's
 * `same_entity` questions) costs its changes, not its size.
 */
export function changedConflictRows(before, index) {
  if (!before) return index.conflicts;
  const had = new Map(before.conflicts.map((c) => [c.id, c]));
  return index.conflicts.filter((c) => {
    const was = had.get(c.id);
    return !was || was.status !== c.status || was.openedAt !== c.openedAt;
  });
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
