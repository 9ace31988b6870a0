import Router from '@koa/router';
import type { Middleware } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import type { AnsweredWrites } from '../../../application/subscriptions/AnsweredWrites.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { createContact } from '../application/createContact.js';
import { updateContact } from '../application/updateContact.js';
import { deleteContact, restoreContact } from '../application/deleteAndRestoreContact.js';
import { eraseAndForgetContact, type ContactErasureDeps } from '../application/eraseAndForgetContact.js';
import { eraseContacts } from '../application/eraseContacts.js';
import { goneContactResponse } from './contactErasure.js';
import type { PersonErasure } from '../../../application/personalData/PersonErasure.js';
import { validateContactMatch, validateCreateContact, validateUpdateContact } from '../domain/contactInput.js';
import { contactOf, type ContactDoc } from '../readModels/contactsProjection.js';
import { contactListQuery } from '../readModels/contactQueries.js';
import { afterCreate, afterWrite, findAfterCreates, waitForOwnWrites } from '../../../http/middleware/consistentReads.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';
import { contactHttpError } from './contactHttpErrors.js';
import { apiMetadata } from '../../../http/apiMetadata.js';
import { contactAggregate } from '../application/contactAggregate.js';
import { entityHistoryRoute } from '../../../http/routes/entityHistory.js';
import { deleteAndRestoreRoutes } from '../../../http/routes/deleteAndRestore.js';
import type { Contact } from '../domain/contactView.js';
import type { Position } from '../../../shared/Position.js';
import { contactAsOf } from '../readModels/contactAsOf.js';
import { decodeAsOf } from '../../../http/query/asOfQuery.js';
import { answerWithEntityTag, ifMatchPrecondition, setEntityTagAfterWrite } from '../../../http/conditionalRequests.js';
import type { ApiResource } from '../../../http/ApiResource.js';
import { contacts as contactsOpenApi } from './contactsOpenApi.js';
import { contactsProjection } from '../readModels/contactsProjection.js';
import { contactValuesProjection, type ContactValuesDoc } from '../readModels/contactValuesProjection.js';
import { contactsMatching } from '../readModels/contactValueQueries.js';

export interface ContactRoutesDeps {
  readonly contacts: DocumentCollection<ContactDoc>;
  /** Every contact not erased, live or deleted, by its e-mail address and phone number (`POST /contacts/erase`). */
  readonly contactValues: DocumentCollection<ContactValuesDoc>;
  readonly commands: CommandDeps;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  /** The creates answered before their read models applied them, which this instance's reads wait for. */
  readonly answeredWrites: AnsweredWrites;
  /** `Idempotency-Key` on POST /contacts (see `idempotency`); absent: the header is ignored. */
  readonly idempotency?: Middleware;
  /** How long a deleted contact stays restorable (DELETED_RECORDS_RETENTION_DAYS). */
  readonly deletedRecordsRetentionMs: number;
  /** What an erasure does beyond its event: the key destroyed, the kept responses rewritten, the files compacted. */
  readonly erasure: PersonErasure;
}

const passThrough: Middleware = (_ctx, next) => next();

const withPrecondition = <P>(precondition: P | undefined): { precondition?: P } => (precondition ? { precondition } : {});

export const contactRoutes = (deps: ContactRoutesDeps): Router => {
  const router = new Router();

  router.get('/contacts', requirePermission('contacts:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const params = decodeListParams(ctx.query, { text: ['search'], instants: ['createdSince', 'updatedSince'] });
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit, text, instants } = params.right;
    const result = await deps.contacts.list(
      contactListQuery({
        companyId,
        page,
        limit,
        ...(text.search !== undefined ? { search: text.search } : {}),
        ...(instants.createdSince !== undefined ? { createdSince: instants.createdSince } : {}),
        ...(instants.updatedSince !== undefined ? { updatedSince: instants.updatedSince } : {}),
      }),
    );
    ctx.body = { success: true, data: result.items.map(contactOf), meta: pageMeta(page, limit, result.total) };
  });

  router.get('/contacts/:id', requirePermission('contacts:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const asOf = decodeAsOf(ctx.query);
    if (asOf !== undefined) {
      // Time travel: folded from the log up to that instant, with the read model's own evolve.
      const past = await contactAsOf(deps.commands.eventStore, { companyId, id: ctx.params.id!, asOf });
      if (!past) throw contactHttpError({ kind: 'ContactNotFound' });
      ctx.body = { success: true, data: past };
      return;
    }
    const found = await findAfterCreates(ctx.state, () => deps.contacts.getView(companyId, ctx.params.id!));
    if (!found) throw contactHttpError({ kind: 'ContactNotFound' });
    answerWithEntityTag(ctx, found);
  });

  router.get(
    '/contacts/:id/history',
    requirePermission('contacts:read'),
    entityHistoryRoute(deps.commands.eventStore, contactAggregate, () => contactHttpError({ kind: 'ContactNotFound' })),
  );

  router.post('/contacts', requirePermission('contacts:write'), deps.idempotency ?? passThrough, async (ctx) => {
    const auth = authOf(ctx.state);
    const fields = validateCreateContact(ctx.request.body);
    if (E.isLeft(fields)) throw contactHttpError(fields.left);
    const result = await createContact(deps.commands, {
      companyId: auth.companyId,
      fields: fields.right,
      metadata: apiMetadata(ctx.state),
    });
    if (E.isLeft(result)) throw contactHttpError(result.left);
    afterCreate(ctx, deps.answeredWrites, auth.companyId, result.right.position);
    ctx.status = 201;
    ctx.body = { success: true, data: result.right.contact };
  });

  router.put('/contacts/:id', requirePermission('contacts:write'), async (ctx) => {
    const auth = authOf(ctx.state);
    const changes = validateUpdateContact(ctx.request.body);
    if (E.isLeft(changes)) throw contactHttpError(changes.left);
    const result = await updateContact(deps.commands, {
      companyId: auth.companyId,
      contactId: ctx.params.id!,
      changes: changes.right,
      metadata: apiMetadata(ctx.state),
      ...withPrecondition(ifMatchPrecondition(ctx)),
    });
    if (E.isLeft(result)) throw contactHttpError(result.left);
    await afterWrite(ctx, deps.progress, result.right.position, deps.readYourWritesTimeoutMs);
    setEntityTagAfterWrite(ctx, await deps.contacts.get(auth.companyId, ctx.params.id!), result.right.revision);
    ctx.body = { success: true, data: result.right.contact };
  });

  deleteAndRestoreRoutes(router, {
    path: '/contacts',
    permission: 'contacts:write',
    commands: {
      delete: ({ id, ...input }) => deleteContact(deps.commands, { ...input, contactId: id }),
      restore: async ({ id, ...input }) =>
        E.map(({ contact, position }: { contact: Contact; position: Position | null }) => ({ record: contact, position }))(
          await restoreContact(deps.commands, { ...input, contactId: id }),
        ),
    },
    httpError: contactHttpError,
    progress: deps.progress,
    readYourWritesTimeoutMs: deps.readYourWritesTimeoutMs,
    retentionMs: deps.deletedRecordsRetentionMs,
  });

  // Erasure (the person's right to erasure): a permission of its own, which no other implies.
  const erasure: ContactErasureDeps = { commands: deps.commands, erasure: deps.erasure, gone: goneContactResponse };
  router.post('/contacts/:id/erase', requirePermission('contacts:erase'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const result = await eraseAndForgetContact(erasure, { companyId, contactId: ctx.params.id!, reason: 'requested', metadata: apiMetadata(ctx.state) });
    if (E.isLeft(result)) throw contactHttpError(result.left);
    const { erased, position } = result.right;
    if (position !== null) await afterWrite(ctx, deps.progress, position, deps.readYourWritesTimeoutMs);
    await deps.erasure.compactNow();
    ctx.body = { success: true, data: erased };
  });

  return router;
};

/**
 * `POST /contacts/erase`: every contact of the company, deleted ones included,
 * whose e-mail address or phone number is the one sent. Routed before the
 * `/contacts/:id` routes, so that `erase` is never taken for an id.
 */
const eraseByValueRoutes = (deps: ContactRoutesDeps): Router => {
  const router = new Router();
  router.post('/contacts/erase', requirePermission('contacts:erase'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const match = validateContactMatch(ctx.request.body);
    if (E.isLeft(match)) throw contactHttpError(match.left);
    // The contacts the caller created or changed a moment ago are matched too.
    await waitForOwnWrites(ctx, deps, companyId);
    const contactIds = await contactsMatching(deps.contactValues, companyId, match.right);
    const { erased, position } = await eraseContacts(
      { commands: deps.commands, erasure: deps.erasure, gone: goneContactResponse },
      { companyId, contactIds, metadata: apiMetadata(ctx.state) },
    );
    if (position !== null) await afterWrite(ctx, deps.progress, position, deps.readYourWritesTimeoutMs);
    // Once for all of them.
    if (erased.length > 0) await deps.erasure.compactNow();
    ctx.body = { success: true, data: { erased } };
  });
  return router;
};


/** `/contacts`: the people a company talks to. */
export const contactsResource: ApiResource = {
  openapi: contactsOpenApi,
  // A contact changes only by its ContactCreated and its updates (which wait before they answer);
  // its history is read from the log.
  findsFirst: ['/contacts/:id', '/contacts/:id/history'],
  routes: (api) => {
    const deps: ContactRoutesDeps = {
      contacts: api.readModels.collection(contactsProjection),
      contactValues: api.readModels.collection(contactValuesProjection),
      commands: api.commands,
      ...api.readYourWrites,
      idempotency: api.idempotency('POST /contacts'),
      deletedRecordsRetentionMs: api.deletedRecordsRetentionMs,
      erasure: api.erasure,
    };
    return [eraseByValueRoutes(deps), contactRoutes(deps)];
  },
};
