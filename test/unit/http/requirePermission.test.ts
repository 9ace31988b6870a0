import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import Koa from 'koa';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { ProjectionRunner } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { issueApiKey } from '../../../src/features/apiKeys/application/issueApiKey.js';
import { apiKeyDirectoryProjection } from '../../../src/features/apiKeys/readModels/apiKeyDirectoryProjection.js';
import { verifyApiKey } from '../../../src/features/apiKeys/readModels/verifyApiKey.js';
import { createCompany } from '../../../src/features/companies/application/createCompany.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { authenticate } from '../../../src/http/middleware/authenticate.js';
import { errorHandler } from '../../../src/http/middleware/errorHandler.js';
import { requirePermission } from '../../../src/http/middleware/requirePermission.js';
import { createLogger } from '../../../src/logging.js';
import { systemClock } from '../../../src/shared/Clock.js';
import { newId } from '../../../src/shared/ids.js';
import { SPECIFICATION_PERMISSIONS, type Permission } from '../../../src/shared/permissions.js';
import { tempDir } from '../../support/tempStore.js';

/**
 * `requirePermission` behind the customer API's authentication, on a bare Koa
 * app whose routes each need one permission, with keys issued as the CLI and
 * the admin API issue them: `contacts:erase` is enough on its own for a route
 * that needs it, and the seven permissions that "all" gives are not.
 */
describe('requirePermission, for contacts:erase', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  let server: Server;
  let baseUrl: string;
  const keys: Record<string, string> = {};

  before(async () => {
    dir = tempDir('chronicle-require-permission-');
    eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    const deps = { eventStore, newId, clock: systemClock };
    const metadata = { source: 'cli', correlationId: newId() } as const;
    const name = CompanyName.decode('Acme');
    if (E.isLeft(name)) throw new Error('bad name');
    const company = await createCompany(deps, { name: name.right, metadata });
    if (E.isLeft(company)) throw new Error('no company');
    const held: Record<string, readonly Permission[]> = {
      eraseOnly: ['contacts:erase'],
      all: SPECIFICATION_PERMISSIONS,
      readAndErase: ['contacts:read', 'contacts:erase'],
    };
    for (const [holder, permissions] of Object.entries(held)) {
      const issued = await issueApiKey(deps, { companyId: company.right.id, type: 'generic', permissions, expiresAt: null, metadata });
      if (E.isLeft(issued)) throw new Error(JSON.stringify(issued.left));
      keys[holder] = issued.right.key;
    }
    const directory = new MemoryReadModelStore().collection(apiKeyDirectoryProjection);
    const runner = new ProjectionRunner({ eventStore, readModels: new MemoryReadModelStore(), collections: [directory], logger: silentLogger });
    await runner.start();
    await runner.stop();

    const app = new Koa();
    app.silent = true;
    app.use(errorHandler(createLogger('silent', new PassThrough()), systemClock));
    app.use(authenticate(async (presented, now) => verifyApiKey(directory, presented, now), systemClock));
    const route =
      (path: string, permission: Permission): Koa.Middleware =>
      async (ctx, next) => {
        if (ctx.path !== path) return next();
        await requirePermission(permission)(ctx, async () => {
          ctx.body = { success: true };
        });
      };
    app.use(route('/erase', 'contacts:erase'));
    app.use(route('/read', 'contacts:read'));
    app.use(route('/write', 'contacts:write'));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await eventStore.close();
    dir.dispose();
  });

  const send = async (path: string, key: string) => {
    const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('lets a key holding only contacts:erase through, without contacts:read or contacts:write', async () => {
    expect(await send('/erase', keys.eraseOnly!)).to.deep.equal({ status: 200, body: { success: true } });
    expect((await send('/erase', keys.readAndErase!)).status).to.equal(200);
  });

  it('gives it nothing else: contacts:read and contacts:write are still needed for their routes', async () => {
    const read = await send('/read', keys.eraseOnly!);
    expect(read.status).to.equal(403);
    expect(read.body).to.include({ error: 'Permission denied: contacts:read required', requiredPermission: 'contacts:read' });
    expect(read.body.availablePermissions).to.deep.equal(['contacts:erase']);
    expect((await send('/write', keys.readAndErase!)).body).to.include({ requiredPermission: 'contacts:write' });
  });

  it('refuses a key with the seven permissions of the specification (what "all" gives) with the spec\'s 403 body', async () => {
    const refused = await send('/erase', keys.all!);
    expect(refused.status).to.equal(403);
    expect(Object.keys(refused.body)).to.deep.equal(['success', 'error', 'message', 'requiredPermission', 'availablePermissions', 'timestamp']);
    expect(refused.body).to.deep.include({
      success: false,
      error: 'Permission denied: contacts:erase required',
      message: 'This API key lacks the contacts:erase permission.',
      requiredPermission: 'contacts:erase',
      availablePermissions: [...SPECIFICATION_PERMISSIONS],
    });
  });
});
