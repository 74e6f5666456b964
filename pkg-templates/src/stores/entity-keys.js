// An entity's key rows (ClaimStore.findEntities): what the engine sends with
// each commit of an entity slot as `commit.index.entity`, and the query
// findEntities answers, checked once here for PostgresStore and
// IndexedDbStore, which keep them as rows or records of their own.

const isText = (v) => typeof v === 'string';

/**
 * `commit.index.entity` checked, `{ type, id, keys: [{ key, name }] }`, or
 * null when the commit carries none (not an entity slot, or a hand-built
 * commit); `invalid(field, message)` makes the store's error for a malformed one.
 */
export function entityKeysOf(commit, invalid) {
  const entity = commit?.index?.entity;
  if (entity === undefined || entity === null) return null;
  const ok = isText(entity.type) && entity.type !== '' && isText(entity.id) && entity.id !== '' && Array.isArray(entity.keys)
    && entity.keys.every((k) => isText(k?.key) && k.key !== '' && isText(k.name));
  if (!ok) throw invalid('commit.index.entity', 'must be { type, id, keys: [{ key, name }] } with non-empty type, id and keys');
  return entity;
}

/**
 * findEntities' query checked: the type and its distinct keys (a key that
 * could not have been stored, holding NUL, is left out: it matches nothing).
 */
export function entityQueryOf(query, invalid) {
  if (!isText(query?.type) || !Array.isArray(query.keys) || !query.keys.every(isText)) {
    throw invalid('query', 'must be { type: string, keys: string[] }');
  }
  return { type: query.type, keys: [...new Set(query.keys)].filter((k) => k !== '' && !k.includes('\0')) };
}
