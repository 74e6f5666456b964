// Row 6c, in its own process: an acknowledged write through MCP, credence
// (`credence mcp` on an OkfStore bundle) vs the official MCP memory server
// (@modelcontextprotocol/server-memory, a JSONL file), each holding ~`facts`
// facts, side by side: both servers run at once and the writes alternate in
// blocks so machine noise hits both alike. Prints one JSON line.
//
//   node bench/workers/mcp-memory.mjs <dir> <facts> <writes>
//
// server-memory: add_observations (one new observation of an existing entity);
// credence: remember (one new value of an existing subject's `likes` slot,
// with an idempotency id). Every write is checked afterwards.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Memory, OkfStore } from 'credence';
import { median, nsSince, now } from '../lib.mjs';

const [dir, factsArg, writesArg] = process.argv.slice(2);
const FACTS = Number(factsArg);
const WRITES = Number(writesArg);
const PER_SUBJECT = 5;
const SUBJECTS = Math.ceil(FACTS / PER_SUBJECT);
const BLOCK = 25;
const require = createRequire(import.meta.url);
const serverMemoryBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');
const credenceBin = path.join(path.dirname(require.resolve('credence/package.json')), 'cli', 'credence.js');

async function connect(args, env) {
  const transport = new StdioClientTransport({ command: process.execPath, args, env: { ...process.env, ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The same facts in both: SUBJECTS people × PER_SUBJECT things they like. */
const fact = (s, j) => `thing ${j} of person ${s}`;

const jsonl = path.join(dir, 'server-memory', 'memory.jsonl');
mkdirSync(path.dirname(jsonl), { recursive: true });
writeFileSync(jsonl, Array.from({ length: SUBJECTS }, (_, s) =>
  JSON.stringify({ type: 'entity', name: `person-${s}`, entityType: 'person', observations: Array.from({ length: PER_SUBJECT }, (_, j) => fact(s, j)) })).join('\n'));
const bundle = path.join(dir, 'bundle');
const seed = new Memory({ store: new OkfStore(bundle) });
for (let s = 0; s < SUBJECTS; s++) {
  await seed.rememberMany(Array.from({ length: PER_SUBJECT }, (_, j) => ({ subject: `person-${s}`, predicate: 'likes', object: fact(s, j) })));
}

const sm = await connect([serverMemoryBin], { MEMORY_FILE_PATH: jsonl });
const cr = await connect([credenceBin, 'mcp'], { CREDENCE_BUNDLE_DIR: bundle });
const writes = { sm: [], cr: [] };
const failed = { sm: 0, cr: 0 };
async function timed(side, call) {
  const t0 = now();
  const result = await call();
  writes[side].push(nsSince(t0));
  if (result.isError) failed[side]++;
}
const smWrite = (k) => timed('sm', () => sm.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: `person-${k % SUBJECTS}`, contents: [`new ${k}`] }] } }));
const crWrite = (k) => timed('cr', () => cr.callTool({ name: 'remember', arguments: { id: `w${k}`, subject: `person-${k % SUBJECTS}`, predicate: 'likes', object: `new ${k}` } }));
// Warm-up (module loading, first file reads), not counted.
for (let k = 0; k < 5; k++) {
  await sm.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'person-0', contents: [`warm ${k}`] }] } });
  await cr.callTool({ name: 'remember', arguments: { id: `warm${k}`, subject: 'person-0', predicate: 'likes', object: `warm ${k}` } });
}
for (let k = 0; k < WRITES; k += BLOCK) {
  for (let i = k; i < Math.min(k + BLOCK, WRITES); i++) await smWrite(i);
  for (let i = k; i < Math.min(k + BLOCK, WRITES); i++) await crWrite(i);
}
// credence with 8 writes in flight on the one server: concurrent commits share the journal's fsync.
const t0 = now();
let next = WRITES;
await Promise.all(Array.from({ length: 8 }, async () => {
  while (next < 2 * WRITES) {
    const k = next++;
    const result = await cr.callTool({ name: 'remember', arguments: { id: `w${k}`, subject: `person-${k % SUBJECTS}`, predicate: 'likes', object: `new ${k}` } });
    if (result.isError) failed.cr++;
  }
}));
const concurrentNs = nsSince(t0) / WRITES;
// The floor any MCP call pays here (stdio JSON-RPC both ways, the SDK's checks): a read that finds nothing.
const t2 = now();
for (let i = 0; i < 100; i++) await cr.callTool({ name: 'recall', arguments: { subject: 'nobody' } });
const mcpFloorNs = nsSince(t2) / 100;
await Promise.all([sm.close(), cr.close()]);

// The floor any durable write pays on this disk: one append + fdatasync.
const probe = await open(path.join(dir, 'fsync-probe'), 'a');
const t1 = now();
for (let i = 0; i < 50; i++) {
  await probe.write(`${'x'.repeat(200)}\n`);
  await probe.datasync();
}
const fsyncFloorNs = nsSince(t1) / 50;
await probe.close();

// Every acknowledged write is there.
const held = new Set(readFileSync(jsonl, 'utf8').split('\n').filter(Boolean).flatMap((l) => JSON.parse(l).observations ?? []));
const store = new OkfStore(bundle);
const objects = new Set();
for (let s = 0; s < SUBJECTS; s++) {
  const slot = await store.loadSlot({ key: `person-${s}\u001flikes`, subject: `person-${s}`, predicate: 'likes' });
  for (const c of slot?.claims ?? []) objects.add(c.object);
}
const lost = { sm: 0, cr: 0 };
for (let k = 0; k < WRITES; k++) if (!held.has(`new ${k}`)) lost.sm++;
for (let k = 0; k < 2 * WRITES; k++) if (!objects.has(`new ${k}`)) lost.cr++;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(JSON.stringify({
  facts: SUBJECTS * PER_SUBJECT, writes: WRITES, fsyncFloorNs, mcpFloorNs,
  serverMemory: { meanNs: mean(writes.sm), medianNs: median(writes.sm), failed: failed.sm, lost: lost.sm },
  credence: { meanNs: mean(writes.cr), medianNs: median(writes.cr), concurrentNs, failed: failed.cr, lost: lost.cr },
}));
