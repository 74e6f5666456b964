// examples/node-service: started and posted to over HTTP.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Memory } from 'credence';
import { createService } from '../../examples/node-service/server.mjs';
import { ROOT, STORE_KIND, sandbox } from './support/cli.js';
import { JsonFileStore } from './support/json-store.mjs';

async function request(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** The shared scenario: a move, a refused fact, a retried POST, a conflict settled. */
async function exercise(base) {
  const first = await request(base, 'POST', '/facts', {
    turnId: 't1',
    source: 'chat',
    facts: [
      { predicate: 'located_in', object: 'NYC' },
      { predicate: 'allergic_to', object: 'peanuts', confidence: 0.9 },
    ],
  });
  expect(first.status).toBe(200);
  expect(first.json.results.map((r) => r.action)).toEqual(['added', 'added']);

  const second = await request(base, 'POST', '/facts', {
    turnId: 't2',
    facts: [
      { predicate: 'lives in', object: 'San Francisco' },
      { predicate: '', object: 'nothing' },
      { predicate: 'allergic_to', object: 'shellfish' },
    ],
  });
  expect(second.json.results[0]).toMatchObject({ ok: true, action: 'superseded', affected: [{ object: 'NYC', status: 'superseded' }] });
  expect(second.json.results[1]).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', field: 'predicate' } });
  expect(second.json.results[2]).toMatchObject({ ok: true, action: 'added', relation: 'independent' });

  // The client retries turn t2: memory changes once.
  const retry = await request(base, 'POST', '/facts', { turnId: 't2', facts: [{ predicate: 'lives in', object: 'San Francisco' }] });
  expect(retry.json.results[0].claim.id).toBe(second.json.results[0].claim.id);

  const recall = await request(base, 'GET', '/recall?subject=user');
  expect(recall.json.claims.map((c) => c.object).sort()).toEqual(['San Francisco', 'peanuts', 'shellfish']);
  const history = await request(base, 'GET', '/recall?predicate=located_in&history=1');
  expect(history.json.claims.map((c) => c.object)).toEqual(['NYC', 'San Francisco']);

  // A genuine contradiction (born_on is not time-varying) that evidence cannot settle.
  await request(base, 'POST', '/facts', { facts: [{ predicate: 'born_on', object: '1990-03-04' }] });
  const clash = await request(base, 'POST', '/facts', { facts: [{ predicate: 'born_on', object: '1990-04-03' }] });
  const conflictId = clash.json.results[0].conflicts[0]?.id;
  expect(conflictId).toMatch(/^cf_/);
  const open = await request(base, 'GET', '/conflicts?status=open');
  expect(open.json.conflicts.map((c) => c.id)).toEqual([conflictId]);
  const settled = await request(base, 'POST', `/conflicts/${conflictId}/settle`, { settlement: 'keep_earlier', by: 'ana' });
  expect(settled.json).toMatchObject({ status: 'settled', settledBy: 'ana', newer: { status: 'retired' } });
  expect((await request(base, 'POST', `/conflicts/${conflictId}/settle`, { settlement: 'keep_newer' })).status).toBe(409);
  expect((await request(base, 'POST', `/conflicts/${conflictId}/undo`)).json.status).toBe('open');

  // Calibration: too little history to move anything yet, but a versioned record with its counts.
  const calibration = await request(base, 'POST', '/calibrate', { minObservations: 5 });
  expect(calibration.json).toMatchObject({ version: 1, minObservations: 5 });
  expect(calibration.json.sources.find((s) => s.sourceId === 'chat')).toMatchObject({ used: false });
  expect((await request(base, 'POST', '/calibrate', { minObs: 5 })).json.error).toMatchObject({ code: 'INVALID_INPUT' });

  expect((await request(base, 'POST', '/facts', 'not json')).status).toBe(400);
  expect((await request(base, 'POST', '/facts', { fact: {} })).status).toBe(400);
  expect((await request(base, 'POST', '/conflicts/cf_nope/undo')).status).toBe(404);
  expect((await request(base, 'GET', '/nowhere')).status).toBe(404);
}

let box;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe('examples/node-service', () => {
  it('reconciles posted facts (in-process, on a file store)', async () => {
    const memory = new Memory({ store: new JsonFileStore(join(box.dir, 'service.json')) });
    const server = createService(memory);
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    try {
      await exercise(`http://127.0.0.1:${server.address().port}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it.skipIf(STORE_KIND !== 'okf')('runs as a process on a bundle', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'examples/node-service/server.mjs')], {
      env: { PATH: process.env.PATH, PORT: '0', CREDENCE_BUNDLE_DIR: join(box.dir, 'bundle') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const base = await new Promise((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          const m = /listening on (http:\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
      });
      await exercise(base);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
