// A registry commit's claims and conflicts by position: what the engine sends
// a store with `registryRows` (see the ClaimStore docs), checked, since the
// store keeps them as its rows or records.

/**
 * `{ claims, conflicts, claimCount, conflictCount }`, or null when the commit
 * carries them in its slot (a commit of another caller); `invalid(field,
 * message)` makes the store's error for a malformed one.
 */
export function registryItemsOf(commit, invalid) {
  const { claims, conflicts, claimCount, conflictCount } = commit;
  if (claims === undefined && conflicts === undefined) return null;
  const ok = (list, count) => Number.isSafeInteger(count) && Array.isArray(list)
    && list.every((p) => Number.isSafeInteger(p?.at) && p.at >= 0 && p.at < count && typeof p.item?.id === 'string');
  if (!ok(claims, claimCount) || !ok(conflicts, conflictCount)) {
    throw invalid('commit.claims', 'and commit.conflicts must be { at: position below claimCount / conflictCount, item } items, with both counts');
  }
  return { claims, conflicts, claimCount, conflictCount };
}
