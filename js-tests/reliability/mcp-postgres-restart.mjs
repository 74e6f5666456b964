// Two `credence mcp` servers on one PostgreSQL scope while the database is
// restarted (`pg_ctl restart -m immediate`) under them. The servers must stay
// up; a write that fails while the database is down comes back as a tool
// error (STORE_FAILED) and the client re-issues it with the same idempotency
// id. Afterwards every acknowledged write is in the slot exactly once.
// The first restart happens while both servers sit idle between two halves of
// the writes (their pooled connections die idle), the others while they write.
// Usage (DATABASE_URL, PG_RESTART_COMMAND from scripts/lib/pg-server.sh):
//   node mcp-postgres-restart.mjs [perWriter=60] [restarts=2]
import { exec } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pg from 'pg';
import { PostgresStore } from 'credence';

const url = process.env.DATABASE_URL;
const restartCommand = process.env.PG_RESTART_COMMAND;
if (!url || !restartCommand) {
  console.error('mcp-postgres-restart: needs DATABASE_URL and PG_RESTART_COMMAND');
  process.exit(2);
}
const N = Number(process.argv[2] ?? 60);
const RESTARTS = Number(process.argv[3] ?? 2);
const scope = `mcp-restart-${Date.now()}`;
const require = createRequire(import.meta.url);
const credenceBin = path.join(path.dirname(require.resolve('credence/package.json')), 'cli', 'credence.js');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();

async function connect() {
  const env = { ...process.env, DATABASE_URL: url, CREDENCE_SCOPE: scope };
  delete env.CREDENCE_BUNDLE_DIR;
  const transport = new StdioClientTransport({ command: process.execPath, args: [credenceBin, 'mcp'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'mcp-postgres-restart', version: '1.0.0' });
  let closed = false;
  transport.onclose = () => (closed = true);
  await client.connect(transport);
  return { client, stderr: () => stderr, closed: () => closed };
}

const servers = [await connect(), await connect()];
const acked = [];
const failures = {};
let reissued = 0;
let writing = true;
let halfway;
const paused = new Promise((resolve) => (halfway = resolve));
let atHalf = 0;
const writers = servers.map(async (server, k) => {
  for (let i = 0; i < N; i++) {
    if (i === Math.floor(N / 2)) {
      if (++atHalf === servers.length) halfway();
      await paused;
      await idleRestart;
    }
    const args = { id: `w${k}-${i}`, subject: 'user', predicate: 'likes', object: `w${k}-${i}` };
    for (let tries = 0; ; tries++) {
      if (server.closed()) throw new Error(`credence mcp ${k} exited:\n${server.stderr().slice(0, 1500)}`);
      const raw = await server.client.callTool({ name: 'remember', arguments: args });
      if (!raw.isError) { acked.push(args.object); break; }
      const code = raw.content?.[0]?.text?.split(/[ :]/)[0];
      failures[code] = (failures[code] ?? 0) + 1;
      if (!['STORE_FAILED', 'CONCURRENCY'].includes(code) || tries > 200) throw new Error(`remember ${args.id}: ${raw.content?.[0]?.text}`);
      reissued++;
      await sleep(50);
    }
    await sleep(5);
  }
});
let restarts = 0;
const restart = async () => {
  await promisify(exec)(restartCommand);
  restarts++;
};
// Both servers idle, their pooled connections open: restart, then let them go on.
const idleRestart = paused.then(() => sleep(200)).then(restart);
// The others while they write: when the acknowledged writes reach random
// totals spread over the second half.
const restarter = (async () => {
  await idleRestart;
  const half = acked.length;
  for (let i = 1; i < RESTARTS; i++) {
    const at = half + Math.floor(((i - 1 + 0.2 + Math.random() * 0.6) / (RESTARTS - 1)) * (2 * N - half));
    while (writing && acked.length < at) await sleep(5);
    if (!writing) break;
    await restart();
  }
})();
let failed = false;
try {
  await Promise.all(writers);
} catch (err) {
  console.error(err.message);
  failed = true;
}
writing = false;
await restarter;
await Promise.all(servers.map((s) => s.client.close().catch(() => {})));

const client = new pg.Client({ connectionString: url });
await client.connect();
const slot = await new PostgresStore(client, { scope }).loadSlot({ key: 'user\u001flikes', subject: 'user', predicate: 'likes' });
await client.end();
const counts = new Map();
for (const c of slot?.claims ?? []) counts.set(c.object, (counts.get(c.object) ?? 0) + 1);
const lost = acked.filter((o) => counts.get(o) !== 1).length;
const duplicated = [...counts.values()].filter((n) => n > 1).length;
const summary = { servers: 2, perWriter: N, restarts, acknowledged: acked.length, lost, duplicated, reissued, failures, seconds: Math.round((Date.now() - started) / 100) / 10 };
console.log(`mcp-postgres-restart: ${JSON.stringify(summary)}`);
if (failed || lost || duplicated || acked.length !== 2 * N || restarts !== RESTARTS) process.exit(1);
