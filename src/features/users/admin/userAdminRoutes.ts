import Router from '@koa/router';
import type { Middleware } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import { createUser } from '../application/createUser.js';
import { eraseAndForgetUser, userNotFound } from './userErasure.js';
import type { PersonErasure } from '../../../application/personalData/PersonErasure.js';
import { validateCreateUser } from '../domain/userInput.js';
import { companiesProjection, type CompanyDoc } from '../../companies/index.js';
import { usersProjection, type UserDoc } from '../readModels/usersProjection.js';
import type { AdminResource } from '../../../http/AdminResource.js';
import { adminMetadata } from '../../../http/adminMetadata.js';
import { companyHttpError } from '../../companies/index.js';
import { afterWrite } from '../../../http/middleware/consistentReads.js';
import { adminUsers as adminUsersOpenApi } from './usersAdminOpenApi.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';
import { knownCompany } from '../../companies/index.js';

export interface AdminUserRoutesDeps {
  readonly companies: DocumentCollection<CompanyDoc>;
  readonly users: DocumentCollection<UserDoc>;
  readonly commands: CommandDeps;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  readonly idempotency: Middleware;
  /** What an erasure does beyond its event: the key destroyed, the kept responses rewritten, the files compacted. */
  readonly erasure: PersonErasure;
}

/** The 404 of a user the company does not have (none, or another company's). */

interface AdminUser {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly createdAt: string;
}

const userOf = (user: AdminUser): AdminUser => ({ id: user.id, name: user.name, email: user.email, createdAt: user.createdAt });

/**
 * A user the list can show: one whose name and e-mail read as null (the user
 * erased) is left out, none is made up for it (the read model's total still
 * counts it).
 */
const shownUser = (doc: UserDoc): AdminUser[] => (doc.name !== null && doc.email !== null ? [userOf({ ...doc, name: doc.name, email: doc.email })] : []);

/** A company's users: create and list (as `chronicle users create` makes them), and erase one. */
export const adminUserRoutes = (deps: AdminUserRoutesDeps): Router => {
  const router = new Router();
  const lookup = { companies: deps.companies, eventStore: deps.commands.eventStore };
  const company = (id: string) => knownCompany(lookup, id);

  router.post('/admin/companies/:id/users', deps.idempotency, async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const fields = validateCreateUser(ctx.request.body);
    if (E.isLeft(fields)) throw companyHttpError(fields.left);
    const created = await createUser(deps.commands, { companyId, ...fields.right, metadata: adminMetadata(ctx.state) });
    if (E.isLeft(created)) {
      if (created.left.kind === 'UserAlreadyExists') throw new Error('createUser refused a new id');
      throw companyHttpError(created.left);
    }
    await afterWrite(ctx, deps.progress, created.right.position, deps.readYourWritesTimeoutMs);
    ctx.status = 201;
    ctx.body = { success: true, data: userOf(created.right) };
  });

  router.get('/admin/companies/:id/users', async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const params = decodeListParams(ctx.query, {});
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit } = params.right;
    const result = await deps.users.list({ companyId, filters: [], page, limit, order: 'asc' });
    ctx.body = { success: true, data: result.items.flatMap(shownUser), meta: pageMeta(page, limit, result.total) };
  });

  // Erasure (the person's right to erasure): the body is not read.
  router.post('/admin/companies/:id/users/:userId/erase', async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const userId = ctx.params.userId!;
    const result = await eraseAndForgetUser(deps, { companyId, userId, metadata: adminMetadata(ctx.state) });
    if (E.isLeft(result)) throw userNotFound();
    const { erased, position } = result.right;
    if (position !== null) await afterWrite(ctx, deps.progress, position, deps.readYourWritesTimeoutMs);
    await deps.erasure.compactNow();
    ctx.body = { success: true, data: erased };
  });

  return router;
};

/** `/admin/companies/:id/users`: a company's users (created, listed, erased). */
export const adminUsersResource: AdminResource = {
  openapi: adminUsersOpenApi,
  routes: (admin) => [
    adminUserRoutes({
      companies: admin.readModels.collection(companiesProjection),
      users: admin.readModels.collection(usersProjection),
      commands: admin.commands,
      ...admin.readYourWrites,
      idempotency: admin.idempotency('POST /admin/companies/:id/users'),
      erasure: admin.erasure,
    }),
  ],
};
