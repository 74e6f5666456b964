// `credence/conformance`: the ClaimStore conformance suite, to run against a
// store of your own under Vitest or Jest (README, "Stores"), and the
// builders of hand-made slots and commits it uses. No test runner is a
// dependency: the suite takes the runner's functions, or finds its globals.
export { runStoreConformance } from './store-cases.js';
export { AWKWARD, T0, claim, commit, conflict, delegating, entry, normalize, ref, slot } from './fixtures.js';
