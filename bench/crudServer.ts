// The plain CRUD servers `bench:crud` measures Chronicle against: what a team would write
// instead. One Koa app answering GET /contacts/:id and POST /contacts with a bearer check
// (the key's SHA-256 looked up among the issued keys' hashes), `{name, phoneNumber}`
// required, the phone number unique per company (409); the contacts held by
// `CRUD_STORE`:
// - `map`: a Map in memory (the bare Koa server every share is taken of);
// - `sqlite`: better-sqlite3 on `CRUD_SQLITE_FILE`, WAL, `synchronous=FULL`, one INSERT per request;
// - `postgres`: a `pg` pool of 10 on `CRUD_POSTGRES_URL` (server defaults), `INSERT … RETURNING`;
// in the table `CRUD_TABLE` (default `contacts`). `CRUD_KEY` is the one issued key.
// With `CRUD_OBLIGATIONS` the server also does what the specification asks of every
// response, as a team would add it to its plain server: `headers`: the `X-Request-Id` (the
// caller's or a new UUID), the key's requests counted in its UTC hour and day in memory
// with the six `X-RateLimit-*` headers, an `ETag` on a GET; `headers,log`: also a request
// line logged with pino (its defaults, to the file `CRUD_LOG_FILE`).
// Prints `listening on <url>` once it listens.
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import Database from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

interface Contact {
  readonly id: string;
  readonly name: string;
  readonly phoneNumber: string;
  readonly email: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Where contacts are kept: `create` answers null when the company already has the phone number. */
interface ContactStore {
  get(companyId: string, id: string): Promise<Contact | null>;
  create(companyId: string, contact: Contact): Promise<Contact | null>;
}

const mapStore = (): ContactStore => {
  const byId = new Map<string, Contact & { companyId: string }>();
  const phones = new Set<string>();
  return {
    get: async (companyId, id) => {
      const found = byId.get(id);
      if (!found || found.companyId !== companyId) return null;
      const { companyId: _company, ...contact } = found;
      return contact;
    },
    create: async (companyId, contact) => {
      const phone = `${companyId}\u0000${contact.phoneNumber}`;
      if (phones.has(phone)) return null;
      phones.add(phone);
      byId.set(contact.id, { ...contact, companyId });
      return contact;
    },
  };
};

/** Two servers on one PostgreSQL database keep apart by their tables. */
const TABLE = process.env.CRUD_TABLE ?? 'contacts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  name TEXT NOT NULL,
  phone_number TEXT NOT NULL,
  email TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (company_id, phone_number)
)`;

interface ContactRow {
  id: string;
  name: string;
  phone_number: string;
  email: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

const fromRow = (row: ContactRow): Contact => ({
  id: row.id,
  name: row.name,
  phoneNumber: row.phone_number,
  email: row.email,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

const sqliteStore = (file: string): ContactStore => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);
  const select = db.prepare<[string, string], ContactRow>(`SELECT * FROM ${TABLE} WHERE id = ? AND company_id = ?`);
  const insert = db.prepare(
    `INSERT INTO ${TABLE} (id, company_id, name, phone_number, email, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    get: async (companyId, id) => {
      const row = select.get(id, companyId);
      return row ? fromRow(row) : null;
    },
    create: async (companyId, contact) => {
      try {
        insert.run(contact.id, companyId, contact.name, contact.phoneNumber, contact.email, contact.createdAt, contact.updatedAt);
        return contact;
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return null;
        throw error;
      }
    },
  };
};

const postgresStore = async (url: string): Promise<ContactStore> => {
  // Connections kept while idle: none closes between two loads (their backends' CPU is measured).
  const pool = new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: 0 });
  await pool.query(SCHEMA.replace('created_at TEXT', 'created_at timestamptz').replace('updated_at TEXT', 'updated_at timestamptz'));
  return {
    get: async (companyId, id) => {
      const { rows } = await pool.query<ContactRow>(`SELECT * FROM ${TABLE} WHERE id = $1 AND company_id = $2`, [id, companyId]);
      return rows[0] ? fromRow(rows[0]) : null;
    },
    create: async (companyId, contact) => {
      try {
        const { rows } = await pool.query<ContactRow>(
          `INSERT INTO ${TABLE} (id, company_id, name, phone_number, email, created_at, updated_at) ` +
            'VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *',
          [contact.id, companyId, contact.name, contact.phoneNumber, contact.email, contact.createdAt, contact.updatedAt],
        );
        return fromRow(rows[0]!);
      } catch (error) {
        if ((error as { code?: string }).code === '23505') return null;
        throw error;
      }
    },
  };
};

const openStore = async (): Promise<ContactStore> => {
  const kind = process.env.CRUD_STORE ?? 'map';
  if (kind === 'map') return mapStore();
  if (kind === 'sqlite') return sqliteStore(process.env.CRUD_SQLITE_FILE ?? ':memory:');
  if (kind === 'postgres') return postgresStore(process.env.CRUD_POSTGRES_URL ?? '');
  throw new Error(`unknown CRUD_STORE ${kind}`);
};

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const keys = new Map([[sha256(process.env.CRUD_KEY ?? ''), randomUUID()]]);

const failure = (ctx: Koa.Context, status: number, error: string, message: string): void => {
  ctx.status = status;
  ctx.body = { success: false, error, message };
};

/**
 * The specification's obligations on every authenticated response (`CRUD_OBLIGATIONS`), in
 * one middleware after the bearer check; `logged`: with the request line.
 */
const obligations = (logged: boolean): Koa.Middleware => {
  const log = logged ? pino(pino.destination(process.env.CRUD_LOG_FILE ?? '/dev/null')) : null;
  const hours = new Map<string, number>();
  const days = new Map<string, number>();
  const counted = (counts: Map<string, number>, key: string): number => {
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    return n;
  };
  return async (ctx, next) => {
    const started = performance.now();
    const id = ctx.get('X-Request-Id') || randomUUID();
    ctx.set('X-Request-Id', id);
    const now = Date.now();
    const hour = now - (now % 3_600_000);
    const day = now - (now % 86_400_000);
    const caller = ctx.state.companyId as string;
    const hourly = counted(hours, `${hour}:${caller}`);
    const daily = counted(days, `${day}:${caller}`);
    ctx.set('X-RateLimit-Hourly-Limit', '100000000');
    ctx.set('X-RateLimit-Hourly-Remaining', String(100_000_000 - hourly));
    ctx.set('X-RateLimit-Hourly-Reset', String((hour + 3_600_000) / 1000));
    ctx.set('X-RateLimit-Daily-Limit', '100000000');
    ctx.set('X-RateLimit-Daily-Remaining', String(100_000_000 - daily));
    ctx.set('X-RateLimit-Daily-Reset', String((day + 86_400_000) / 1000));
    await next();
    const data = (ctx.body as { data?: Contact } | undefined)?.data;
    if (ctx.method === 'GET' && data) ctx.set('ETag', `"${Date.parse(data.updatedAt)}"`);
    log?.info({ requestId: id, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 10) / 10 }, 'request');
  };
};

const store = await openStore();
const app = new Koa();
const router = new Router();
app.use(async (ctx, next) => {
  const header = ctx.get('Authorization');
  const companyId = header.startsWith('Bearer ') ? keys.get(sha256(header.slice(7))) : undefined;
  if (companyId === undefined) return failure(ctx, 401, 'UNAUTHORIZED', 'A valid API key is required');
  ctx.state.companyId = companyId;
  await next();
});
const obliged = (process.env.CRUD_OBLIGATIONS ?? '').split(',');
if (obliged.includes('headers')) app.use(obligations(obliged.includes('log')));
router.get('/contacts/:id', async (ctx) => {
  const contact = await store.get(ctx.state.companyId as string, ctx.params.id!);
  if (contact === null) return failure(ctx, 404, 'CONTACT_NOT_FOUND', 'No such contact');
  ctx.body = { success: true, data: contact };
});
router.post('/contacts', bodyParser(), async (ctx) => {
  const body = ctx.request.body as { name?: unknown; phoneNumber?: unknown; email?: unknown } | undefined;
  const { name, phoneNumber, email } = body ?? {};
  if (typeof name !== 'string' || name.trim() === '' || typeof phoneNumber !== 'string' || phoneNumber.trim() === '') {
    return failure(ctx, 400, 'VALIDATION_ERROR', 'name and phoneNumber are required');
  }
  const now = new Date().toISOString();
  const contact = { id: randomUUID(), name, phoneNumber, email: typeof email === 'string' ? email : null, createdAt: now, updatedAt: now };
  const created = await store.create(ctx.state.companyId as string, contact);
  if (created === null) return failure(ctx, 409, 'DUPLICATE_PHONE_NUMBER', 'The company already has a contact with this phone number');
  ctx.status = 201;
  ctx.body = { success: true, data: created };
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
