// Two concurrent MCP servers on one memory, side by side: the official
// @modelcontextprotocol/server-memory (two processes on one MEMORY_FILE_PATH)
// and `credence mcp` (two processes on one CREDENCE_BUNDLE_DIR). Each server
// gets its own client (the SDK's Client + StdioClientTransport), and the two
// clients write at the same time; afterwards we count how many acknowledged
// writes are really there. Usage: node mcp-side-by-side.mjs [perWriter=100]
//
// Two phases, each N writes per client:
//   entities      server-memory create_entities (a new entity per call)
//                 credence remember (a new subject per call)
//   observations  server-memory add_observations on one shared entity
//                 credence remember on one shared slot (user · likes)
// A write is acknowledged when its tool result is not an error. A credence
// call refused with CONCURRENCY (too many lost races) is not acknowledged; the
// client re-issues it with the same idempotency id, as a client should.
// Exits 1 if credence loses any acknowledged write; prints both figures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { OkfStore } from 'credence';

const N = Number(process.argv[2] ?? 100);
const require = createRequire(import.meta.url);
const serverMemoryBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');
const credenceBin = path.join(path.dirname(require.resolve('credence/package.json')), 'cli', 'credence.js');
const root = mkdtempSync(path.join(tmpdir(), 'credence-mcp-side-'));

async function connect(args, env) {
  const transport = new StdioClientTransport({ command: process.execPath, args, env: { ...process.env, ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'side-by-side', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Runs `write(client, k, i)` N times on each of two clients at once; returns acknowledged keys. */
async function race(clients, write) {
  const acked = [];
  const errors = {};
  let reissued = 0;
  await Promise.all(clients.map(async ({ client }, k) => {
    for (let i = 0; i < N; i++) {
      for (;;) {
        const result = await write(client, k, i);
        if (!result.isError) { acked.push(result.key); break; }
        const text = result.raw.content?.[0]?.text ?? '';
        if (text.startsWith('CONCURRENCY')) { reissued++; continue; }
        errors[text.slice(0, 80)] = (errors[text.slice(0, 80)] ?? 0) + 1;
        break;
      }
    }
  }));
  return { acked, errors, reissued };
}

const call = async (client, name, args, key) => {
  const raw = await client.callTool({ name, arguments: args });
  return { raw, isError: raw.isError === true, key };
};

async function serverMemory() {
  const file = path.join(root, 'server-memory', 'memory.jsonl');
  const env = { MEMORY_FILE_PATH: file };
  const { mkdirSync } = await import('node:fs');
  mkdirSync(path.dirname(file), { recursive: true });
  const clients = [await connect([serverMemoryBin], env), await connect([serverMemoryBin], env)];
  const started = Date.now();
  const entities = await race(clients, (c, k, i) => call(c, 'create_entities', {
    entities: [{ name: `w${k}-${i}`, entityType: 'note', observations: [`written by writer ${k}`] }],
  }, `w${k}-${i}`));
  await call(clients[0].client, 'create_entities', { entities: [{ name: 'user', entityType: 'person', observations: [] }] });
  const observations = await race(clients, (c, k, i) => call(c, 'add_observations', {
    observations: [{ entityName: 'user', contents: [`likes w${k}-${i}`] }],
  }, `likes w${k}-${i}`));
  const ms = Date.now() - started;
  await Promise.all(clients.map(({ client }) => client.close()));
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const names = new Set(lines.filter((l) => l.type === 'entity').map((l) => l.name));
  const user = lines.find((l) => l.type === 'entity' && l.name === 'user');
  const held = new Set(user?.observations ?? []);
  return summarize('server-memory', { entities, observations, ms }, (key) => names.has(key), (key) => held.has(key));
}

async function credence() {
  const dir = path.join(root, 'credence-bundle');
  const env = { CREDENCE_BUNDLE_DIR: dir };
  const clients = [await connect([credenceBin, 'mcp'], env), await connect([credenceBin, 'mcp'], env)];
  const started = Date.now();
  const entities = await race(clients, (c, k, i) => call(c, 'remember', {
    id: `e-w${k}-${i}`, subject: `w${k}-${i}`, predicate: 'note', object: `written by writer ${k}`,
  }, `w${k}-${i}`));
  const observations = await race(clients, (c, k, i) => call(c, 'remember', {
    id: `o-w${k}-${i}`, subject: 'user', predicate: 'likes', object: `w${k}-${i}`,
  }, `w${k}-${i}`));
  const ms = Date.now() - started;
  await Promise.all(clients.map(({ client }) => client.close()));
  // A fresh store object reads the bundle back.
  const store = new OkfStore(dir);
  const subjects = new Set((await store.listSlots({})).map((r) => r.subject));
  const slot = await store.loadSlot({ key: 'user\u001flikes', subject: 'user', predicate: 'likes' });
  const counts = new Map();
  for (const c of slot?.claims ?? []) counts.set(c.object, (counts.get(c.object) ?? 0) + 1);
  const duplicates = [...counts.values()].filter((n) => n > 1).length;
  const result = summarize('credence', { entities, observations, ms }, (key) => subjects.has(key), (key) => counts.get(key) === 1);
  result.duplicates = duplicates;
  return result;
}

function summarize(name, { entities, observations, ms }, hasEntity, hasObservation) {
  const lostE = entities.acked.filter((k) => !hasEntity(k)).length;
  const lostO = observations.acked.filter((k) => !hasObservation(k)).length;
  return {
    name,
    attempted: 4 * N,
    acknowledged: entities.acked.length + observations.acked.length,
    lost: lostE + lostO,
    entities: { acknowledged: entities.acked.length, lost: lostE },
    observations: { acknowledged: observations.acked.length, lost: lostO },
    reissued: entities.reissued + observations.reissued,
    errors: { ...entities.errors, ...observations.errors },
    ms,
  };
}

const sm = await serverMemory();
const cr = await credence();
for (const r of [sm, cr]) {
  console.log(`${r.name.padEnd(14)} ${r.acknowledged} of ${r.attempted} writes acknowledged, ${r.lost} of them lost ` +
    `(entities ${r.entities.lost}/${r.entities.acknowledged}, observations ${r.observations.lost}/${r.observations.acknowledged}) in ${r.ms} ms` +
    (r.reissued ? `, ${r.reissued} re-issued after CONCURRENCY` : '') +
    (Object.keys(r.errors).length ? `, errors: ${JSON.stringify(r.errors)}` : ''));
}
console.log(`mcp-side-by-side: ${JSON.stringify({ perWriter: N, serverMemory: sm, credence: cr })}`);
rmSync(root, { recursive: true, force: true });
if (cr.lost !== 0 || cr.duplicates !== 0 || cr.acknowledged !== cr.attempted) {
  console.error('FAILED: credence lost, duplicated or did not acknowledge writes');
  process.exit(1);
}
