// Sections run in child processes: 3 (growth, with --expose-gc), 5
// (PostgreSQL, on DATABASE_URL or a throwaway server) and 6 (OkfStore).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fmtBytes, fmtInt, fmtNs, fmtX, lastJson, median, nsSince, now, row, run } from '../lib.mjs';
import { workload } from '../workload.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const worker = (name) => path.join(ROOT, 'bench', 'workers', name);
const node = (args, options = {}) => lastJson(run(process.execPath, args, { cwd: ROOT, ...options }).stdout);

export async function growth({ quick, tmp }) {
  const target = quick ? 100_000 : 1_000_000;
  const template = quick ? 5_000 : 20_000;
  const probe = quick ? 1_000 : 3_000;
  const reps = quick ? 3 : 5;
  const g = node(['--expose-gc', worker('growth.mjs'), String(target), String(template), String(probe), String(reps)]);
  // The same probe natively, after filling a store through remember_many.
  const probeFile = path.join(tmp, 'growth-probe.json');
  const fillFile = path.join(tmp, 'growth-fill.json');
  writeFileSync(probeFile, JSON.stringify(workload(probe, { seed: 7, prefix: 'n_' })));
  writeFileSync(fillFile, JSON.stringify(workload(template, { seed: 1000, prefix: 't_' })));
  const env = { ...process.env, CREDENCE_BENCH_WORKLOAD: probeFile, CREDENCE_BENCH_REPS: String(reps), CREDENCE_BENCH_GROWTH: String(target), CREDENCE_BENCH_FILL: fillFile };
  const nat = lastJson(run('cargo', ['bench', '--quiet', '--bench', 'native'], { cwd: ROOT, env }).stdout).growth;
  const col = (runs, i) => median(runs.map((r) => r[i])); // native runs: [all, works_at, rest]
  const ratio = g.full.all / g.empty.all;
  const claims = fmtInt(g.claims);
  return {
    rows: [
      row('3', `write cost after ${claims} claims vs on an empty store`, fmtNs(g.full.all), fmtNs(g.empty.all), fmtX(ratio), '≤ 1.2×', ratio <= 1.2,
        `slots without entities ${fmtNs(g.full.plain)} vs ${fmtNs(g.empty.plain)} (${fmtX(g.full.plain / g.empty.plain)}); ` +
        `works_at writes, whose org names are looked up by key among ${fmtInt(g.orgEntities)} org entities (a slot each), ` +
        `${fmtNs(g.full.typed)} vs ${fmtNs(g.empty.typed)} (${fmtX(g.full.typed / g.empty.typed)}). ` +
        `Native core, ${fmtInt(nat.claims)} claims: ${fmtNs(col(nat.full, 0))} vs ${fmtNs(col(nat.empty, 0))} (${fmtX(col(nat.full, 0) / col(nat.empty, 0))}; ` +
        `without entities ${fmtX(col(nat.full, 2) / col(nat.empty, 2))}, works_at ${fmtX(col(nat.full, 1) / col(nat.empty, 1))}). ` +
        `The store was filled by copying the slots (claims, log, conflicts) of a ${fmtInt(g.templateClaims)}-claim store the engine wrote ` +
        `(${fmtNs(g.templateNsPerWrite)}/write batched) under fresh subjects and ids: ${g.fillSeconds.toFixed(1)} s.`),
      row('3b', 'memory per stored claim (in-memory store, in wasm)', fmtBytes(g.rssPerClaim), '', '', '', undefined,
        `process RSS delta / claims after GC (JS heap + external incl. wasm memory: ${fmtBytes(g.heapPerClaim)}); ` +
        `each claim is kept with its slot's log entries and idempotency records; RSS ${fmtInt(g.rssMB)} MB at ${claims} claims.`),
    ],
    data: { ...g, native: nat },
  };
}

/** Runs the PostgreSQL worker on DATABASE_URL, or inside a throwaway server. */
function postgresWorker(args) {
  if (process.env.DATABASE_URL) return node([worker('postgres.mjs'), ...args]);
  // Exit 97: no server could be started (none installed and none installable here).
  const script = 'source scripts/lib/pg-server.sh && { pg_server_start -c synchronous_commit=off >&2 || exit 97; } && node "$@"';
  const r = spawnSync('bash', ['-c', script, 'bash', worker('postgres.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status === 97) return { skipped: 'no PostgreSQL server could be started (set DATABASE_URL, or install Debian\'s postgresql)' };
  if (r.status !== 0) throw new Error(`PostgreSQL worker exited ${r.status}\n${(r.stderr || '').slice(-4000)}`);
  return lastJson(r.stdout);
}

export async function postgres({ quick }) {
  const writes = quick ? 600 : 3000;
  const rounds = quick ? 1 : 3;
  const p = postgresWorker([String(writes), String(rounds)]);
  if (p.skipped) {
    return { rows: [row('5', 'PostgreSQL, 8 writers', 'skipped', '', '', '≥ 0.5× floor', undefined, p.skipped)], data: p };
  }
  const ratio = p.credencePerSec / p.floorPerSec;
  const failures = [];
  if (p.lost > 0) failures.push(`PostgreSQL: ${p.lost} acknowledged writes missing`);
  if (p.acked !== p.expected) failures.push(`PostgreSQL: ${p.acked} of ${p.expected} writes acknowledged`);
  return {
    rows: [
      row('5', 'PostgreSQL, 8 concurrent writers: credence vs plain INSERT', `${fmtInt(p.credencePerSec)} writes/s`, `${fmtInt(p.floorPerSec)} rows/s`, fmtX(ratio), '≥ 0.5× floor', ratio >= 0.5,
        `one pg.Pool for both; ${fmtInt(writes)} writes × ${rounds} round(s), floor and credence alternating, medians. A credence write is ` +
        `a load and a one-statement commit (slot document + every changed claim row + log rows) and, for works_at, a look-up of the org name's keys (findEntities) and loads of its entity's slot (a new name: its near keys too, and a commit of its entity slot); ` +
        `${p.attemptsPerWrite.toFixed(2)} attempts per write (lost races retried), ${p.reissued} re-issued after CONCURRENCY; Node busy ${(100 * p.nodeCpuShare).toFixed(0)}% of the time. ` +
        `rememberMany (${p.batch}/call): ${fmtInt(p.batchPerSec)} writes/s (${fmtX(p.batchPerSec / p.floorPerSec)} the floor). ` +
        `With \`prepared: true\` (named statements, opt-in): ${fmtInt(p.preparedPerSec)} writes/s (${fmtX(p.preparedPerSec / p.floorPerSec)} the floor, ${fmtX(p.preparedPerSec / p.credencePerSec)} the default).`),
      row('5b', 'PostgreSQL: acknowledged writes missing afterwards', `${p.lost} of ${fmtInt(p.acked)}`, '', '', '0', p.lost === 0 && p.acked === p.expected,
        'every acknowledged write checked: its idempotency record in its slot row and its claim in memory_claims.'),
    ],
    data: p,
    failures,
  };
}

export async function okf({ quick }) {
  const target = quick ? 10_000 : 100_000;
  const dir = mkdtempSync(path.join(ROOT, 'bench', '.okf-'));
  try {
    const bundle = path.join(dir, 'bundle');
    const build = node([worker('okf.mjs'), 'build', bundle, String(target)]);
    const t0 = now();
    const load = node([worker('okf.mjs'), 'load', bundle]);
    const wall = nsSince(t0);
    const single = node([worker('okf.mjs'), 'write', path.join(dir, 'single'), String(quick ? 200 : 1000)]);
    const mcp = node([worker('mcp-memory.mjs'), path.join(dir, 'mcp'), '5000', String(quick ? 100 : 400)]);
    const mcpRatio = mcp.serverMemory.meanNs / mcp.credence.meanNs;
    const failures = load.claims !== build.claims ? [`OkfStore: wrote ${build.claims} claims, a fresh process read ${load.claims}`] : [];
    if (mcp.credence.lost > 0 || mcp.credence.failed > 0) failures.push(`credence mcp: ${mcp.credence.lost} acknowledged writes lost, ${mcp.credence.failed} refused`);
    return {
      rows: [
        row('6a', `OkfStore: a fresh process reads a ${fmtInt(build.claims)}-claim bundle`, `${load.seconds.toFixed(2)} s`, '', '', '', undefined,
          `listSlots + loadSlot of all ${fmtInt(load.slots)} slot files (${fmtBytes(build.bytes)} on disk with log.md): ${fmtInt(load.claims / load.seconds)} claims/s, ` +
          `${(wall / 1e9).toFixed(2)} s for the whole process; then recall of one subject ${load.recallMs.toFixed(1)} ms. Front matter in the shape credence writes is read with JSON.parse, other YAML with the YAML parser.`),
        row('6b', 'OkfStore write throughput', `${fmtInt(build.writesPerSec)} writes/s`, `${fmtInt(single.writesPerSec)} writes/s`, fmtX(build.writesPerSec / single.writesPerSec), '', undefined,
          `credence: rememberMany of each slot's writes (${fmtInt(build.commits)} commits for ${fmtInt(build.writes)} writes); baseline: one remember at a time. ` +
          'Every commit takes a lock (a hard link), appends to log.md, replaces the slot file (neither fsynced) and appends one record to ' +
          'its process\'s journal: one fdatasync per acknowledged write, shared by concurrent commits (group commit).'),
        row('6c', `an acknowledged write through MCP at ${fmtInt(mcp.facts)} facts: credence mcp (OkfStore) vs @modelcontextprotocol/server-memory`,
          fmtNs(mcp.credence.meanNs), fmtNs(mcp.serverMemory.meanNs), fmtX(mcpRatio), '≥ 5×', mcpRatio >= 5,
          `means of ${fmtInt(mcp.writes)} sequential writes each, both servers running, alternating blocks of 25 (medians ${fmtNs(mcp.credence.medianNs)} vs ` +
          `${fmtNs(mcp.serverMemory.medianNs)}); credence with 8 writes in flight on one server: ${fmtNs(mcp.credence.concurrentNs)} per write. ` +
          'server-memory rewrites its whole JSONL file per write and never fsyncs (a power loss can lose acknowledged writes); credence fsyncs ' +
          `its journal once per write, and one fdatasync of an append on this disk took ${fmtNs(mcp.fsyncFloorNs)} in the same run; ` +
          `an MCP call that writes nothing (credence recall of an unknown subject) took ${fmtNs(mcp.mcpFloorNs)}. ` +
          `Lost afterwards: credence ${mcp.credence.lost}, server-memory ${mcp.serverMemory.lost}.`),
      ],
      data: { build, load, single, mcp, wallNs: wall },
      failures,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
