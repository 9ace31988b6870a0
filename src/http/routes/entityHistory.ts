import type { RouterMiddleware } from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { EventStore } from '../../application/ports/EventStore.js';
import type { AggregateDescriptor } from '../../application/aggregates/AggregateDescriptor.js';
import { readEntityHistory } from '../../application/audit/entityHistory.js';
import type { HttpError } from '../HttpError.js';
import { authOf } from '../middleware/requirePermission.js';
import { decodeListParams, pageMeta, validationFailed } from '../query/listQuery.js';

/**
 * `GET /<entities>/:id/history`: one page of the entity's stored events, read
 * from the event store itself, so it is current as soon as a write has returned.
 * An unknown id and another company's answer the same `notFound`.
 */
export const entityHistoryRoute = (
  eventStore: EventStore,
  aggregate: Pick<AggregateDescriptor, 'name' | 'history'>,
  notFound: () => HttpError,
): RouterMiddleware => {
  const source = aggregate.history;
  if (source === null) throw new Error(`entityHistoryRoute: the ${aggregate.name} aggregate declares no history`);
  return async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const params = decodeListParams(ctx.query, {});
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit } = params.right;
    const history = await readEntityHistory(eventStore, source, { companyId, id: ctx.params.id!, page, limit });
    if (!history) throw notFound();
    ctx.body = { success: true, data: history.entries, meta: pageMeta(page, limit, history.total) };
  };
};
