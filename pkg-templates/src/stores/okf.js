// OkfStore: a markdown bundle directory (Node only). Implemented in issue 6.
export class OkfStore {
  constructor() {
    throw new Error('OkfStore is not implemented yet');
  }
}
