import Router from '@koa/router';
import type { Context } from 'koa';
import { entityChanges, type EntityChange } from '../../../application/audit/entityChanges.js';
import { foldDocument } from '../../../application/audit/timeTravel.js';
import type { WebhookEventCatalogue } from '../application/webhookEventCatalogue.js';
import { apiKeyQueriesOf } from '../../apiKeys/index.js';
import type { ActivityQueriesOf } from '../application/activityQueries.js';
import type { RecordTimeline } from '../WebhookEventSource.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { consoleUrl } from '../../../console/html/layout.js';
import { activityBody } from './activityPage.js';
import { redirectTo, renderPage } from '../../../console/pages/render.js';
import { timelineBody } from './timelinePage.js';
import { utcDateTimeField } from '../../../console/session/formBody.js';
import { signedInOf } from '../../../console/session/requireSession.js';

const EVENTS_PER_PAGE = 50;
/** An entity's stream holds one event per change: a page shows this many at most. */
const MAX_TIMELINE_EVENTS = 1000;
const ID = /^[0-9A-Za-z-]{1,64}$/;

/**
 * Activity: the company's events newest first, filtered by type (from the
 * read models behind `GET /events`), and a contact's or a deal's history as a
 * timeline, each change field by field with who made it, and the record as it
 * was at a chosen time (the API's `asOf`).
 */
export const activityRoutes = (catalogue: WebhookEventCatalogue, queriesOf: ActivityQueriesOf) => (deps: ConsoleDeps): Router => {
  const router = new Router();
  const activity = queriesOf(deps.readModels);
  const keys = apiKeyQueriesOf(deps.readModels);
  const { timelines } = catalogue;

  router.get('/console/activity', async (ctx) => {
    const { companyId } = signedInOf(ctx).session;
    const type = catalogue.isType(ctx.query.type) ? ctx.query.type : null;
    const page = Math.max(1, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1);
    const feed = await activity.recentEvents({ companyId, types: type ? [type] : catalogue.types, page, limit: EVENTS_PER_PAGE });
    renderPage(ctx, deps, { title: 'Activity', section: 'activity', body: activityBody({ basePath: deps.basePath, catalogue, type, page, ...feed }) });
  });

  router.get('/console/records', (ctx) => {
    const kind = (timelines.find((timeline) => timeline.path === ctx.query.kind) ?? timelines[0]!).path;
    const id = typeof ctx.query.id === 'string' ? ctx.query.id.trim() : '';
    redirectTo(ctx, deps, `/${kind}/${encodeURIComponent(id)}`);
  });

  /** Names of the keys that made the changes (the company's own keys only). */
  const keyNamesOf = (companyId: string, changes: readonly EntityChange[]): Promise<Map<string, string>> =>
    keys.keyLabelsOf(companyId, changes.flatMap((change) => (change.event.metadata.keyId ? [change.event.metadata.keyId] : [])));

  const timeline = (spec: RecordTimeline) => async (ctx: Context) => {
    const { companyId } = signedInOf(ctx).session;
    const id = String(ctx.params.id ?? '');
    const notFound = new ConsolePageError(404, `This ${spec.kind} is not one of yours`, `No ${spec.kind} of your company has this id.`);
    const history = spec.aggregate.history!;
    const events = ID.test(id) ? await deps.commands.eventStore.readStream(history.streamOf(id)) : [];
    // Another company's record is as unknown as one that does not exist.
    if (events.length === 0 || history.companyOf(events[0]!) !== companyId) throw notFound;
    const changes = entityChanges(events.slice(0, MAX_TIMELINE_EVENTS), spec.projection, spec.viewOf, new Set(spec.erasedBy ?? []));
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
        label: spec.label,
        title,
        id,
        action: consoleUrl(deps.basePath, `/${spec.path}/${id}`),
        changes,
        keyNames: await keyNamesOf(companyId, changes),
        asOf,
      }),
    });
  };

  for (const spec of timelines) router.get(`/console/${spec.path}/:id`, timeline(spec));

  return router;
};
