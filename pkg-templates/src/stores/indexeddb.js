// IndexedDbStore for browsers. Implemented in issue 9.
export class IndexedDbStore {
  constructor() {
    throw new Error('IndexedDbStore is not implemented yet');
  }
}
