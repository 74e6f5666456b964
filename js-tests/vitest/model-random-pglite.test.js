// The model-based random test on PostgresStore over PGlite
// (js-tests/lib/model-stores.mjs). The checker reads every slot and index,
// which PGlite answers at ~100 ms a step: it runs every 4th step here.
import { PostgresStore } from 'credence';
import { storeModelTest } from '../lib/model-stores.mjs';
import { tempRootAndPglite } from '../lib/temp-stores.mjs';

const { db } = tempRootAndPglite('credence-model-pglite-');
storeModelTest('PostgresStore (PGlite)', (i, seed) => new PostgresStore(db, { scope: `model-${seed}-${i}` }), { checkEvery: 4 });
