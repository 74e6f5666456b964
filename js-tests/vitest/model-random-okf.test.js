// The model-based random test on OkfStore (js-tests/lib/model-stores.mjs).
import { afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OkfStore } from 'credence';
import { storeModelTest } from '../lib/model-stores.mjs';

const root = mkdtempSync(path.join(tmpdir(), 'credence-model-okf-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
storeModelTest('OkfStore', (i, seed) => new OkfStore(path.join(root, `okf-${seed}`), { scope: `t${i}` }));
