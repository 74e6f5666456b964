// A TypeScript consumer of the packed package, type-checked with tsc --noEmit.
import { Memory, MemoryStore, CredenceError, type Claim, type ClaimStore, type Conflict, type Outcome, type Candidate, type Retraction, type Erasure } from 'credence';

const store: ClaimStore = new MemoryStore();
const memory = new Memory({ store, strategy: 'reconcile', now: () => new Date() });
const candidate: Candidate = { predicate: 'likes', object: 'tea', provenance: { sourceId: 'chat', sourceTrust: 0.7 } };

async function main(): Promise<void> {
  const outcome: Outcome = await memory.remember(candidate, { expectedVersion: 0 });
  const action: 'added' | 'confirmed' | string = outcome.action;
  const claims: Claim[] = await memory.recall('user', { includeHistory: true });
  const first: number = claims[0].confidence;
  try {
    await memory.settle('nope', 'keep_newer');
  } catch (e) {
    if (e instanceof CredenceError) {
      const code: string = e.code;
      void code;
    }
  }
  // undo of a retraction id answers with the retraction, of a conflict id with the conflict.
  const retraction: Retraction = await memory.retract(outcome.claim.id, { reason: 'no longer true', by: 'ana' });
  const restored: Retraction = await memory.undo(retraction.id as `rt:${string}`);
  const reopened: Conflict = await memory.undo('cf_1');
  // @ts-expect-error an unknown retract option is a type error (and INVALID_INPUT at run time)
  void memory.retract(outcome.claim.id, { asOf: '2026-01-01' });
  const erased: Erasure = await memory.erase({ subject: 'user', predicate: 'likes' }, { reason: 'asked', by: 'support' });
  const gone: string = erased.tombstones[0].claimId;
  // @ts-expect-error reason and by are required
  void memory.erase({ subject: 'user' }, { by: 'support' });
  // @ts-expect-error so is the second argument
  void memory.erase({ subject: 'user' });
  void gone;
  // What is not there comes back as null (as at run time), not undefined.
  const nobody = await memory.entity('Nobody Inc', { type: 'org' });
  const absent: typeof nobody = null;
  const where = await new MemoryStore().findClaim('cl_none');
  if (where !== null) void where.key;
  void absent;
  void action;
  void first;
  void restored.undone;
  void reopened.earlier;
}
void main;

// @ts-expect-error predicate is required
const bad: Candidate = { object: 'x' };
void bad;

// The subpath export `credence/judge`.
import { createJudge } from 'credence/judge';
const judge = createJudge({ url: 'http://localhost:11434/v1', model: 'llama3.1' });
void memory.review({ judge, budget: 10 });
