// Per-test-file fixtures: a temp folder and an in-process PostgreSQL (PGlite)
// with the schema, both removed after the file's tests.
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { POSTGRES_SCHEMA } from 'credence';

export function tempRootAndPglite(prefix) {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  const db = new PGlite();
  beforeAll(async () => {
    await db.waitReady;
    await db.exec(POSTGRES_SCHEMA);
  }, 60000);
  afterAll(async () => {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  });
  return { root, db };
}
