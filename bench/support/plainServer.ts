// The plain CRUD servers (bench/crudServer.ts) the HTTP benchmarks set Chronicle beside,
// each in a child process, by the names `BENCH_CRUD_SERVERS` and `BENCH_PAIR_AGAINST` use.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startListening, type Server } from './httpLoad.js';

const CRUD_SERVER = fileURLToPath(new URL('../crudServer.js', import.meta.url));

export const PLAIN_SERVERS = {
  map: 'bare Koa, contacts in a Map',
  sqlite: 'plain SQLite CRUD',
  'sqlite-spec': 'plain SQLite + spec headers, log',
  postgres: 'plain PostgreSQL CRUD',
  'postgres-spec': 'plain PostgreSQL + spec headers, log',
} as const;
export type PlainServer = keyof typeof PLAIN_SERVERS;

export const isPlainServer = (name: string): name is PlainServer => Object.hasOwn(PLAIN_SERVERS, name);

/**
 * Starts one plain server with `key` as its one issued key; its SQLite file or spec
 * request log in `dir`; the PostgreSQL ones need `postgresUrl` (the `-spec` one keeps its
 * contacts in a table of its own, so that both can share a database).
 */
export const startPlainServer = (kind: PlainServer, options: { readonly key: string; readonly dir: string; readonly postgresUrl?: string }): Promise<Server> => {
  const store = kind.startsWith('postgres') ? 'postgres' : kind === 'map' ? 'map' : 'sqlite';
  if (store === 'postgres' && !options.postgresUrl) throw new Error(`${kind} needs a PostgreSQL database`);
  const spec = kind.endsWith('-spec');
  return startListening([CRUD_SERVER], {
    CRUD_KEY: options.key,
    CRUD_STORE: store,
    ...(store === 'sqlite' ? { CRUD_SQLITE_FILE: join(options.dir, `${kind}.sqlite`) } : {}),
    ...(store === 'postgres' ? { CRUD_POSTGRES_URL: options.postgresUrl!, CRUD_TABLE: spec ? 'contacts_spec' : 'contacts' } : {}),
    // What the specification asks of every response, as a team would add it (see crudServer.ts).
    ...(spec ? { CRUD_OBLIGATIONS: 'headers,log', CRUD_LOG_FILE: join(options.dir, `${kind}-requests.log`) } : {}),
  });
};
