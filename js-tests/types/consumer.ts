// A TypeScript consumer of the packed package, type-checked with tsc --noEmit.
import { Memory, MemoryStore, CredenceError, type Claim, type ClaimStore, type Outcome, type Candidate } from 'credence';

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
  void action;
  void first;
}
void main;

// @ts-expect-error predicate is required
const bad: Candidate = { object: 'x' };
void bad;

// The subpath export `credence/judge`.
import { createJudge } from 'credence/judge';
const judge = createJudge({ url: 'http://localhost:11434/v1', model: 'llama3.1' });
void memory.review({ judge, budget: 10 });
