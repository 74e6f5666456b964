// A Node service that reconciles facts extracted from chat turns.
//
//   POST /facts                 { facts: [{ predicate, object, subject?, confidence?, validFrom? }],
//                                 subject?, source?, turnId? }  → one result per fact
//   GET  /recall?subject=&predicate=&history=1
//   GET  /conflicts?status=open
//   POST /conflicts/:id/settle  { settlement: "keep_newer" | "keep_earlier" | "keep_both", by? }
//   POST /conflicts/:id/undo
//   POST /calibrate             { predicates?, sources?, minObservations? } → the calibration record
//
// Store: PostgreSQL when DATABASE_URL is set (install `pg`), else a markdown
// bundle in CREDENCE_BUNDLE_DIR (default ./memory-bundle). PORT defaults to 8787.
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { Memory, OkfStore, POSTGRES_SCHEMA, PostgresStore, isCredenceError } from 'credence';

class BadRequest extends Error {}

async function readJson(req) {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 1_000_000) throw new BadRequest('body too large');
  }
  try {
    return JSON.parse(body || '{}');
  } catch {
    throw new BadRequest('body must be JSON');
  }
}

function send(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

const brief = (c) => ({ id: c.id, subject: c.subject, predicate: c.predicate, object: c.object, status: c.status, confidence: c.confidence });

/**
 * Reconciles each fact in order. A fact memory refuses gets its own error and
 * does not stop the others. With a `turnId`, fact i gets the idempotency key
 * `${turnId}#${i}`, so a client retrying the same POST changes memory once.
 */
export async function reconcileFacts(memory, body) {
  if (!body || !Array.isArray(body.facts)) throw new BadRequest('expected { facts: [...] }');
  const results = [];
  for (const [i, fact] of body.facts.entries()) {
    const candidate = { subject: body.subject, ...fact };
    if (body.source && !fact.provenance) candidate.provenance = { sourceId: String(body.source) };
    if (body.turnId && fact.id === undefined) candidate.id = `${body.turnId}#${i}`;
    try {
      const o = await memory.remember(candidate);
      results.push({
        ok: true,
        action: o.action,
        relation: o.relation,
        claim: brief(o.claim),
        affected: o.affected.map(brief),
        conflicts: o.conflicts.map((c) => ({ id: c.id, kind: c.kind, reason: c.reason })),
      });
    } catch (err) {
      if (!isCredenceError(err)) throw err;
      results.push({ ok: false, error: { code: err.code, field: err.field, message: err.message } });
    }
  }
  return { results };
}

/** The HTTP server around a Memory (not listening yet). */
export function createService(memory) {
  return http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      const q = (name) => url.searchParams.get(name) ?? undefined;
      const route = `${req.method} ${url.pathname}`;
      if (route === 'GET /health') return send(res, 200, { ok: true });
      if (route === 'POST /facts') return send(res, 200, await reconcileFacts(memory, await readJson(req)));
      if (route === 'GET /recall') {
        const claims = await memory.recall(q('subject'), { predicate: q('predicate'), includeHistory: q('history') === '1' });
        return send(res, 200, { claims });
      }
      if (route === 'POST /calibrate') return send(res, 200, await memory.calibrate(await readJson(req)));
      if (route === 'GET /conflicts') return send(res, 200, { conflicts: await memory.conflicts({ status: q('status') }) });
      const m = /^\/conflicts\/([^/]+)\/(settle|undo)$/.exec(url.pathname);
      if (req.method === 'POST' && m) {
        const id = decodeURIComponent(m[1]);
        if (m[2] === 'undo') return send(res, 200, await memory.undo(id));
        const { settlement, by } = await readJson(req);
        return send(res, 200, await memory.settle(id, settlement, { by }));
      }
      return send(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${route}` } });
    } catch (err) {
      if (err instanceof BadRequest) return send(res, 400, { error: { code: 'BAD_REQUEST', message: err.message } });
      if (isCredenceError(err)) {
        const status = /NOT_FOUND$/.test(err.code) ? 404 : err.code === 'CONCURRENCY' || err.code === 'CONFLICT_ALREADY_SETTLED' ? 409 : 422;
        return send(res, status, { error: { code: err.code, field: err.field, message: err.message } });
      }
      console.error(err);
      return send(res, 500, { error: { code: 'INTERNAL', message: 'internal error' } });
    }
  });
}

async function openStore(env) {
  if (env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL });
    // A pooled connection cut while idle (a database restart) must not end the service.
    pool.on('error', (err) => console.error(`postgres: ${err.message}; reconnecting on the next query`));
    if (POSTGRES_SCHEMA) await pool.query(POSTGRES_SCHEMA);
    return new PostgresStore(pool, { scope: env.CREDENCE_SCOPE ?? 'default' });
  }
  const dir = env.CREDENCE_BUNDLE_DIR ?? './memory-bundle';
  mkdirSync(dir, { recursive: true });
  return new OkfStore(dir);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const memory = new Memory({ store: await openStore(process.env) });
  const server = createService(memory);
  server.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
    console.log(`credence node-service listening on http://127.0.0.1:${server.address().port}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
