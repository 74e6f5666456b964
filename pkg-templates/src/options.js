// Options objects of the JS stores are checked like every other input
// (SPEC §11): an unknown key is refused, so a misspelled option never passes
// silently.
import { CredenceError } from './errors.js';

/** `options` as given (`{}` for undefined or null), or INVALID_INPUT naming the first unknown key. */
export function knownOptions(owner, options, allowed) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new CredenceError(`${owner}: options must be an object`, { code: 'INVALID_INPUT', field: 'options' });
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      const expected = allowed.length ? `expected one of ${allowed.map((k) => `\`${k}\``).join(', ')}` : 'it takes no options';
      throw new CredenceError(`${owner}: options.${key}: unknown key "${key}" (${expected})`, { code: 'INVALID_INPUT', field: `options.${key}` });
    }
  }
  return options;
}

/** The engine's in-memory store, whose constructor refuses options it does not have. */
export function strictMemoryStore(WasmMemoryStore) {
  return class MemoryStore extends WasmMemoryStore {
    constructor(options) {
      knownOptions('MemoryStore', options, []);
      super();
    }
  };
}
