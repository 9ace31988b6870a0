import Router from '@koa/router';
import type { Context } from 'koa';
import type { AggregateDescriptor } from '../../../application/aggregates/AggregateDescriptor.js';
import { contactAggregate } from '../../contacts/index.js';
import { dealAggregate } from '../../deals/index.js';
import { entityChanges, type EntityChange } from '../../../application/audit/entityChanges.js';
import { foldDocument } from '../../../application/audit/timeTravel.js';
import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../domain/eventTypes.js';
import { apiKeysProjection } from '../../apiKeys/index.js';
import { contactAsOf } from '../../contacts/index.js';
import { contactOf, contactsProjection, type ContactDoc } from '../../contacts/index.js';
import { dealAsOf } from '../../deals/index.js';
import { dealOf, dealsProjection, type DealDoc } from '../../deals/index.js';
import { readRecentFeed } from '../readModels/webhookEventFeed.js';
import { webhookEventCollections } from '../readModels/webhookEventsProjection.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { consoleUrl } from '../../../console/html/layout.js';
import { activityBody } from './activityPage.js';
import { keyLabel } from '../../apiKeys/index.js';
import { redirectTo, renderPage } from '../../../console/pages/render.js';
import { timelineBody } from './timelinePage.js';
import { utcDateTimeField } from '../../../console/session/formBody.js';
import { signedInOf } from '../../../console/session/requireSession.js';

const EVENTS_PER_PAGE = 50;
/** An entity's stream holds one event per change: a page shows this many at most. */
const MAX_TIMELINE_EVENTS = 1000;
const ID = /^[0-9A-Za-z-]{1,64}$/;

/** What a timeline page needs of an entity kind. */
interface TimelineKind<D extends ReadModelDocument> {
  readonly kind: 'contact' | 'deal';
  readonly path: 'contacts' | 'deals';
  readonly aggregate: Pick<AggregateDescriptor, 'history'>;
  readonly projection: Projection<D>;
  readonly viewOf: (doc: D) => object;
  readonly titleOf: (view: Record<string, unknown>) => string;
  readonly asOf: ConsoleAsOf;
}

type ConsoleAsOf = (eventStore: ConsoleDeps['commands']['eventStore'], query: { companyId: string; id: string; asOf: string }) => Promise<object | null>;

const CONTACTS: TimelineKind<ContactDoc> = {
  kind: 'contact',
  path: 'contacts',
  aggregate: contactAggregate,
  projection: contactsProjection,
  viewOf: contactOf,
  titleOf: (view) => String(view.name ?? 'Contact'),
  asOf: contactAsOf,
};

const DEALS: TimelineKind<DealDoc> = {
  kind: 'deal',
  path: 'deals',
  aggregate: dealAggregate,
  projection: dealsProjection,
  viewOf: dealOf,
  titleOf: (view) => String(view.title ?? 'Deal'),
  asOf: dealAsOf,
};

/**
 * Activity: the company's events newest first, filtered by type (from the
 * read models behind `GET /events`), and a contact's or a deal's history as a
 * timeline, each change field by field with who made it, and the record as it
 * was at a chosen time (the API's `asOf`).
 */
export const activityRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  const collections = webhookEventCollections(deps.readModels);
  const keys = deps.readModels.collection(apiKeysProjection);

  router.get('/console/activity', async (ctx) => {
    const { companyId } = signedInOf(ctx).session;
    const type = WebhookEventType.is(ctx.query.type) ? ctx.query.type : null;
    const page = Math.max(1, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1);
    const feed = await readRecentFeed(collections, { companyId, types: type ? [type] : WEBHOOK_EVENT_TYPES, page, limit: EVENTS_PER_PAGE });
    renderPage(ctx, deps, { title: 'Activity', section: 'activity', body: activityBody({ basePath: deps.basePath, type, page, ...feed }) });
  });

  router.get('/console/records', (ctx) => {
    const kind = ctx.query.kind === 'deals' ? 'deals' : 'contacts';
    const id = typeof ctx.query.id === 'string' ? ctx.query.id.trim() : '';
    redirectTo(ctx, deps, `/${kind}/${encodeURIComponent(id)}`);
  });

  /** Names of the keys that made the changes (the company's own keys only). */
  const keyNamesOf = async (companyId: string, changes: readonly EntityChange[]): Promise<Map<string, string>> => {
    const ids = [...new Set(changes.flatMap((change) => (change.event.metadata.keyId ? [change.event.metadata.keyId] : [])))];
    const docs = await Promise.all(ids.map((id) => keys.get(companyId, id)));
    return new Map(docs.flatMap((doc) => (doc ? [[doc.id, keyLabel(doc)] as const] : [])));
  };

  const timeline = <D extends ReadModelDocument>(spec: TimelineKind<D>) => async (ctx: Context) => {
    const { companyId } = signedInOf(ctx).session;
    const id = String(ctx.params.id ?? '');
    const notFound = new ConsolePageError(404, `This ${spec.kind} is not one of yours`, `No ${spec.kind} of your company has this id.`);
    const history = spec.aggregate.history!;
    const events = ID.test(id) ? await deps.commands.eventStore.readStream(history.streamOf(id)) : [];
    // Another company's record is as unknown as one that does not exist.
    if (events.length === 0 || history.companyOf(events[0]!) !== companyId) throw notFound;
    const changes = entityChanges(events.slice(0, MAX_TIMELINE_EVENTS), spec.projection, spec.viewOf);
    const now = foldDocument(spec.projection, events);
    const title = spec.titleOf(now ? (spec.viewOf(now) as Record<string, unknown>) : {});
    const asOfField = typeof ctx.query.asOf === 'string' ? ctx.query.asOf : '';
    const asOfAt = asOfField === '' ? null : utcDateTimeField(asOfField);
    if (asOfField !== '' && asOfAt === null) throw new ConsolePageError(422, 'Give a time', 'Choose a date and time to see the record as it was then.');
    const asOf = asOfAt
      ? { at: asOfAt.toISOString(), field: asOfField, record: await spec.asOf(deps.commands.eventStore, { companyId, id, asOf: asOfAt.toISOString() }) }
      : null;
    renderPage(ctx, deps, {
      title: `History of ${title}`,
      section: 'activity',
      body: timelineBody({
        kind: spec.kind,
        title,
        id,
        action: consoleUrl(deps.basePath, `/${spec.path}/${id}`),
        changes,
        keyNames: await keyNamesOf(companyId, changes),
        asOf,
      }),
    });
  };

  router.get('/console/contacts/:id', timeline(CONTACTS));
  router.get('/console/deals/:id', timeline(DEALS));

  return router;
};
