// OkfStore's redo journal (okf-journal.js): a commit is durable once its
// journal record is; after a reboot the records of dead processes are
// replayed into slot files and log.md that lost them.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Memory, OkfStore } from 'credence';

const root = mkdtempSync(path.join(tmpdir(), 'credence-okf-journal-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const bundle = () => path.join(root, `b${n++}`);
const likes = { key: 'user\u001flikes', subject: 'user', predicate: 'likes' };
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid;

/** Moves this process's journal under a dead pid, as if its writer had exited; `boot` rewrites its header's boot id. */
function orphanJournal(dir, boot) {
  const journalDir = path.join(dir, 'journal');
  const [name] = readdirSync(journalDir).filter((f) => f.endsWith('.jsonl'));
  const pid = deadPid();
  const [header, ...records] = readFileSync(path.join(journalDir, name), 'utf8').split('\n');
  const rewritten = { ...JSON.parse(header), pid, ...(boot === undefined ? {} : { boot }) };
  const orphan = name.replace(/-\d+-/, `-${pid}-`);
  writeFileSync(path.join(journalDir, orphan), [JSON.stringify(rewritten), ...records].join('\n'));
  rmSync(path.join(journalDir, name));
  return path.join(journalDir, orphan);
}

describe('OkfStore — the redo journal', () => {
  it('journals every acknowledged commit: the slot text and its log block', async () => {
    const dir = bundle();
    const memory = new Memory({ store: new OkfStore(dir) });
    await Promise.all(['tea', 'cake', 'pie'].map((object, i) => memory.remember({ subject: `u${i}`, predicate: 'likes', object })));
    const [name] = readdirSync(path.join(dir, 'journal')).filter((f) => f.endsWith('.jsonl'));
    const records = readFileSync(path.join(dir, 'journal', name), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l));
    expect(records.map((r) => r.f).sort()).toEqual(['u0~likes.md', 'u1~likes.md', 'u2~likes.md']);
    for (const r of records) {
      expect(readFileSync(path.join(dir, 'claims', r.f), 'utf8')).toBe(r.slot);
      expect(readFileSync(path.join(dir, 'log.md'), 'utf8')).toContain(r.log);
    }
  });

  it('after a reboot, replays what a dead process journaled but the disk lost', async () => {
    const dir = bundle();
    const memory = new Memory({ store: new OkfStore(dir) });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    const slotFile = path.join(dir, 'claims', 'user~likes.md');
    const logFile = path.join(dir, 'log.md');
    const lost = { slot: readFileSync(slotFile), log: readFileSync(logFile) };
    await memory.remember({ predicate: 'likes', object: 'cake' });
    await memory.remember({ predicate: 'likes', object: 'pie' });
    // The power loss: the journal (fsynced) survives; the slot file and log.md as of the first write.
    const orphan = orphanJournal(dir, 'an-earlier-boot');
    writeFileSync(slotFile, lost.slot);
    writeFileSync(logFile, lost.log);
    const store = new OkfStore(dir);
    expect((await store.loadSlot(likes)).version).toBe(3);
    expect((await store.readLog(likes)).map((e) => e.version)).toEqual([1, 2, 3]);
    expect((await new Memory({ store }).recall('user')).map((c) => c.object)).toEqual(['tea', 'cake', 'pie']);
    expect(existsSync(orphan)).toBe(false);
    // Replayed once: a second store finds nothing left to do and log.md has no duplicate blocks.
    await new OkfStore(dir).loadSlot(likes);
    expect(readFileSync(logFile, 'utf8').match(/· v2\n/g)).toHaveLength(1);
  });

  it('in the same boot, leaves a dead process\'s journal to the next writer, which retires it', async () => {
    const dir = bundle();
    const memory = new Memory({ store: new OkfStore(dir) });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    await memory.remember({ predicate: 'likes', object: 'cake' });
    const orphan = orphanJournal(dir);
    const store = new OkfStore(dir);
    expect((await store.loadSlot(likes)).version).toBe(2);
    expect((await store.readLog(likes)).map((e) => e.version)).toEqual([1, 2]);
    expect(existsSync(orphan)).toBe(true); // a reader does not pay for it
    await new Memory({ store }).remember({ predicate: 'likes', object: 'pie' });
    await vi.waitFor(() => expect(existsSync(orphan)).toBe(false));
    expect((await new OkfStore(dir).loadSlot(likes)).version).toBe(3);
  });
});

