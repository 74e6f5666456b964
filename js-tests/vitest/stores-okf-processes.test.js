// OkfStore across Node processes: concurrent writers on one bundle, and a
// writer killed with SIGKILL mid-run.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { Memory, OkfStore } from 'credence';
import { expectAcknowledged, startWriter } from '../conformance/processes.js';

const root = mkdtempSync(path.join(tmpdir(), 'credence-okf-proc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('OkfStore — several processes', () => {
  it('loses no acknowledged write when 3 processes write the same slots', async () => {
    const dir = path.join(root, 'shared');
    const count = 60;
    const subjects = 2;
    const writers = [0, 1, 2].map((worker) => startWriter({ kind: 'okf', dir, worker, count, subjects, inflight: 2 }));
    const results = await Promise.all(writers.map((w) => w.exited));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0, done: true });
    const acks = writers.flatMap((w) => w.acks);
    expect(acks).toHaveLength(3 * count);
    const total = await expectAcknowledged(new OkfStore(dir), acks, { subjects });
    expect(total).toBe(3 * count);
    expect(acks.reduce((n, a) => n + a.attempts, 0)).toBeGreaterThan(acks.length);
    expect(readdirSync(path.join(dir, 'claims')).sort()).toEqual(['s0~likes.md', 's1~likes.md']);
  }, 120000);

  it('survives kill -9 of a writer: the bundle loads with every acknowledged write', async () => {
    const dir = path.join(root, 'killed');
    const subjects = 3;
    const killAt = 25 + Math.floor(Math.random() * 20);
    const victim = startWriter(
      { kind: 'okf', dir, worker: 9, count: 10000, subjects, inflight: 3 },
      { onAck: (n, child) => n === killAt && child.kill('SIGKILL') },
    );
    const bystander = startWriter({ kind: 'okf', dir, worker: 1, count: 40, subjects, inflight: 1, pause: 5 });
    const [killed, finished] = await Promise.all([victim.exited, bystander.exited]);
    expect(killed.signal).toBe('SIGKILL');
    expect(finished, finished.stderr).toMatchObject({ code: 0, done: true });
    const attempted = (object) => object.startsWith('w9-');
    const store = new OkfStore(dir);
    const total = await expectAcknowledged(store, [...victim.acks, ...bystander.acks], { subjects, attempted });
    // At most the writes in flight at the kill are there unacknowledged.
    expect(total - victim.acks.length - bystander.acks.length).toBeLessThanOrEqual(3);
    // The bundle stays writable: a lock left by the dead writer is broken.
    const memory = new Memory({ store });
    for (let s = 0; s < subjects; s++) {
      const o = await memory.remember({ subject: `s${s}`, predicate: 'likes', object: 'after the crash' });
      expect(o.action).toBe('added');
    }
    for (const r of await store.listSlots({})) {
      const log = await store.readLog(r);
      const slot = await store.loadSlot(r);
      expect(new Set(log.map((e) => e.version)).size).toBe(slot.version);
    }
    const leftovers = readdirSync(path.join(dir, 'claims')).filter((f) => !f.endsWith('.md'));
    expect(leftovers.filter((f) => f.endsWith('.lock'))).toEqual([]);
  }, 120000);

  // Regression (found by js-tests/reliability/crash-okf.mjs): a writer killed
  // between creating a temp file and renaming it left the file behind forever.
  it("sweeps the temp files of dead writers on its first commit, and only theirs", async () => {
    const dir = path.join(root, 'debris');
    mkdirSync(path.join(dir, 'claims'), { recursive: true });
    const tag = createHash('sha1').update(hostname()).digest('hex').slice(0, 8);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const names = {
      deadSlot: `.s0~likes.md.${tag}-${dead}.0123456789abcdef.tmp`,
      deadLock: `.s0~likes.md.lock.${tag}-${dead}.fedcba9876543210.tmp`,
      live: `.s0~likes.md.${tag}-${process.pid}.00000000000000aa.tmp`,
      otherHost: `.s0~likes.md.0badc0de-${dead}.00000000000000bb.tmp`,
    };
    for (const name of Object.values(names)) writeFileSync(path.join(dir, 'claims', name), 'partial');
    await new Memory({ store: new OkfStore(dir) }).remember({ subject: 's1', predicate: 'likes', object: 'tea' });
    const left = readdirSync(path.join(dir, 'claims')).filter((f) => f.endsWith('.tmp')).sort();
    expect(left).toEqual([names.live, names.otherHost].sort());
  });
});
