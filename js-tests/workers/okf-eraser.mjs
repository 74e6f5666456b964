// Erases the home_address of "user" in an OKF bundle; prints "ready" once the
// store is open so a test can kill it in the middle of the erasure.
import { Memory, OkfStore } from 'credence';

const [dir] = process.argv.slice(2);
const memory = new Memory({ store: new OkfStore(dir) });
await memory.recall('user');
process.stdout.write('ready\n');
await memory.erase({ subject: 'user', predicate: 'home_address' }, { reason: 'asked', by: 'dpo' });
process.stdout.write('done\n');
