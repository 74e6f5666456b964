// The README's table of built-in predicates is the package's own table:
// regenerate it with `node scripts/predicate-table.mjs --write` when it changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { END, START, predicateTable } from '../../scripts/predicate-table.mjs';

describe('README: built-in predicates', () => {
  it('lists exactly what builtinPredicates() returns', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const from = readme.indexOf(START);
    const to = readme.indexOf(END);
    expect(from).toBeGreaterThan(-1);
    expect(readme.slice(from + START.length, to).trim()).toBe(predicateTable());
  });
});
