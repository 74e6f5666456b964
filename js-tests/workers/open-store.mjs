// The store a writer process opens from its JSON config: an OkfStore bundle,
// or a PostgresStore on its own pg.Pool (`pool` options are added to it).
import { OkfStore, PostgresStore } from 'credence';

export async function openStore(cfg, pool = {}) {
  if (cfg.kind === 'okf') return { store: new OkfStore(cfg.dir, cfg.scope ? { scope: cfg.scope } : {}) };
  const { default: pg } = await import('pg');
  const client = new pg.Pool({ connectionString: cfg.url, max: cfg.inflight ?? 2, ...pool });
  // An idle client cut off by a server restart: the pool drops it and opens another.
  client.on('error', () => {});
  return { store: new PostgresStore(client, { scope: cfg.scope, tables: cfg.tables }), pool: client };
}
