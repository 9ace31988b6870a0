import { createServer, connect, type Server, type Socket } from 'node:net';
import { expect } from 'chai';
import pg from 'pg';
import { LOG_SCHEMA, logMigrations } from '../../../src/adapters/postgres/logMigrations.js';
import { migratePostgres } from '../../../src/adapters/postgres/migratePostgres.js';
import { PostgresEventStore } from '../../../src/adapters/postgres/PostgresEventStore.js';
import { createPostgresPool } from '../../../src/adapters/postgres/postgresPool.js';
import { StoreUnavailableError } from '../../../src/application/ports/StoreUnavailableError.js';
import { anEvent } from '../../support/events.js';
import { skipLine } from '../../support/integration.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../../support/postgres.js';

/**
 * A TCP proxy in front of the test server that can lose a connection as a failover does: armed, it
 * cuts the next connection that the server answers (its answer never reaches the client), or every
 * new connection while `refusing`.
 */
const cuttingProxy = async (target: URL) => {
  const sockets = new Set<Socket>();
  let cutNextAnswer = false;
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (cutNextAnswer) {
        cutNextAnswer = false;
        drop();
        return;
      }
      client.write(chunk);
    });
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    /** The next answer the server sends, on any connection, is lost with its connection. */
    cutNextAnswer: () => {
      cutNextAnswer = true;
    },
    /** Cuts every open connection, and refuses new ones while `on`. */
    refuse: (on: boolean) => {
      refusing = on;
      if (on) for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

if (!postgresTestUrl()) {
  skipLine('PostgreSQL event store: an append whose commit’s answer was lost', 'POSTGRES_TEST_URL');
} else {
  describe('PostgreSQL event store: an append whose connection broke before its answer (a failover)', function () {
    this.timeout(30_000);
    let database: FreshDatabase;
    let direct: pg.Pool;
    let proxy: Awaited<ReturnType<typeof cuttingProxy>>;
    let store: PostgresEventStore;
    let unknown: { appends: number; stored: number; resent: number; unchecked: number }[];

    beforeEach(async () => {
      database = await freshPostgresDatabase();
      direct = new pg.Pool({ connectionString: database.url, max: 2 });
      await migratePostgres(direct, LOG_SCHEMA, logMigrations);
      const url = new URL(database.url);
      proxy = await cuttingProxy(new URL(database.url));
      url.host = `127.0.0.1:${proxy.port}`;
      unknown = [];
      store = new PostgresEventStore(createPostgresPool(url.toString(), { max: 2 }), {
        ownsPool: true,
        outcomeCheckMs: 2_000,
        onUnknownOutcome: (what) => void unknown.push(what),
      });
    });
    afterEach(async () => {
      await store.close();
      await proxy.close();
      await direct.end();
      await database.drop();
    });

    const logged = async (stream: string) =>
      (await direct.query<{ id: string; revision: number }>('SELECT id, revision FROM log_events WHERE stream = $1 ORDER BY revision', [stream])).rows;

    it('committed, its answer lost: found in the log by its events’ ids and answered with its position, not appended twice', async () => {
      await store.append('contact-1', [anEvent('Created')], 'no_stream');
      const second = anEvent('Renamed');
      proxy.cutNextAnswer();
      const result = await store.append('contact-1', [second], 0);
      expect(result.nextRevision).to.equal(1);
      const rows = await logged('contact-1');
      expect(rows.map((row) => row.id)).to.deep.equal([rows[0]!.id, second.id]);
      const [{ position }] = (await direct.query<{ position: string }>('SELECT position FROM log_events WHERE id = $1', [second.id])).rows as [{ position: string }];
      expect(result.position).to.equal(position);
      expect(unknown).to.deep.equal([{ appends: 1, stored: 1, resent: 0, unchecked: 0 }]);
    });

    it('not committed (its session ended while it waited for the log’s lock): sent again with its expected revision, and stored once', async () => {
      await store.append('contact-2', [anEvent('Created')], 'no_stream');
      // Another transaction holds the log's head: the append waits for it, and its session is ended meanwhile.
      const holder = await direct.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM log_head FOR UPDATE');
      const event = anEvent('Renamed');
      const appended = store.append('contact-2', [event], 0);
      let ended = 0;
      for (let tries = 0; tries < 100 && ended === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        ended = (
          await direct.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND datname = current_database()",
          )
        ).rowCount!;
      }
      expect(ended, 'the waiting append’s session ended').to.equal(1);
      await holder.query('ROLLBACK');
      holder.release();
      const result = await appended;
      expect(result.nextRevision).to.equal(1);
      expect((await logged('contact-2')).map((row) => row.id).filter((id) => id === event.id)).to.have.length(1);
      expect(unknown).to.deep.equal([{ appends: 1, stored: 0, resent: 1, unchecked: 0 }]);
    });

    it('the log unreachable for longer than the check: fails as interrupted (503 STORE_INTERRUPTED), and a retry with the same revision is refused or lands once', async () => {
      await store.append('contact-3', [anEvent('Created')], 'no_stream');
      const event = anEvent('Renamed');
      proxy.cutNextAnswer();
      const appended = store.append('contact-3', [event], 0).catch((error: unknown) => error);
      // The connection is cut with the answer; every new one is refused until the check gives up.
      await new Promise((resolve) => setTimeout(resolve, 20));
      proxy.refuse(true);
      const failed = await appended;
      proxy.refuse(false);
      expect(failed).to.be.instanceOf(StoreUnavailableError);
      expect(failed).to.include({ reason: 'interrupted', retryAfterSeconds: 1 });
      expect(unknown.at(-1)).to.deep.equal({ appends: 1, stored: 0, resent: 0, unchecked: 1 });
      // It landed: the same event sent again with the same expected revision is refused, never stored twice.
      const again = await store.append('contact-3', [event], 0).catch((error: unknown) => error);
      expect(again).to.be.instanceOf(Error);
      expect((await logged('contact-3')).filter((row) => row.id === event.id)).to.have.length(1);
    });
  });
}
