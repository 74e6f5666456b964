// PostgresStore over anything with query(text, values). Implemented in issue 6.
export const POSTGRES_SCHEMA = '';
export class PostgresStore {
  constructor() {
    throw new Error('PostgresStore is not implemented yet');
  }
}
