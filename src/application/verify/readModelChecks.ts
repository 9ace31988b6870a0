import type { Projection, ReadModelDocument } from '../ports/ReadModelStore.js';
import type { Position } from '../../shared/Position.js';
import { agentDecider, type AgentState } from '../../domain/agents/agentDecider.js';
import { toAgentView } from '../../domain/agents/agentRecord.js';
import { AgentEvent, agentStream } from '../../domain/agents/events.js';
import { apiKeyDecider, type ApiKeyState } from '../../domain/apiKeys/apiKeyDecider.js';
import { ApiKeyEvent, apiKeyStream } from '../../domain/apiKeys/events.js';
import { contactDecider, type ContactState } from '../../domain/contacts/contactDecider.js';
import { ContactEvent, contactStream } from '../../domain/contacts/contactEvents.js';
import { toContactView } from '../../domain/contacts/contactView.js';
import { contactSummaryOf } from '../../domain/deals/dealContactSummary.js';
import { dealDecider, type DealState } from '../../domain/deals/dealDecider.js';
import { DealEvent, dealStream, type DealContactSummary } from '../../domain/deals/dealEvents.js';
import { toDealView } from '../../domain/deals/dealView.js';
import { userDecider, type UserState } from '../../domain/users/userDecider.js';
import { UserEvent, userStream } from '../../domain/users/events.js';
import { webhookDecider, type WebhookState } from '../../domain/webhooks/webhookDecider.js';
import { WebhookEvent, webhookStream } from '../../domain/webhooks/webhookEvents.js';
import { toSubscriptionView } from '../../domain/webhooks/webhookSubscription.js';
import { agentsProjection, type AgentDoc } from '../../../projections/agents/agentsProjection.js';
import { apiKeyDirectoryProjection, type ApiKeyDirectoryDoc } from '../../../projections/apiKeys/apiKeyDirectoryProjection.js';
import { apiKeysProjection, type ApiKeyDoc } from '../../../projections/apiKeys/apiKeysProjection.js';
import { contactsProjection, type ContactDoc } from '../../../projections/contacts/contactsProjection.js';
import { dealsProjection, type DealDoc } from '../../../projections/deals/dealsProjection.js';
import { usersProjection, type UserDoc } from '../../../projections/users/usersProjection.js';
import { webhooksProjection, type WebhookDoc } from '../../../projections/webhooks/webhooksProjection.js';
import { aggregateFold, type AggregateFold, type LogFolds } from './logFolds.js';

/** The aggregates whose streams back a read model, each folded with its decider's `evolve`. */
export const CONTACTS = aggregateFold('contact', contactStream(''), ContactEvent, contactDecider);
export const DEALS = aggregateFold('deal', dealStream(''), DealEvent, dealDecider);
export const AGENTS = aggregateFold('agent', agentStream(''), AgentEvent, agentDecider);
export const USERS = aggregateFold('user', userStream(''), UserEvent, userDecider);
export const API_KEYS = aggregateFold('apikey', apiKeyStream(''), ApiKeyEvent, apiKeyDecider);
export const WEBHOOKS = aggregateFold('webhook', webhookStream(''), WebhookEvent, webhookDecider);

export const VERIFIED_AGGREGATES: readonly AggregateFold<unknown>[] = [CONTACTS, DEALS, AGENTS, USERS, API_KEYS, WEBHOOKS];

/** What the log says one document should hold. */
export interface Expected {
  /** Matches the `key` of the document it describes. */
  readonly key: string;
  /** How a difference names the document, e.g. `<companyId>/<id>`. */
  readonly label: string;
  readonly stream: string;
  /** The fields the aggregate's state and the document both carry, as the log has them. */
  readonly fields: Record<string, unknown>;
}

/** What one document holds, on the same fields. */
export interface Observed {
  readonly key: string;
  readonly label: string;
  /** The position of the last event the document applied. */
  readonly position: Position;
  readonly fields: Record<string, unknown>;
}

/** How one read model is checked against the streams it is built from. */
export interface ReadModelCheck {
  readonly projection: Projection<ReadModelDocument>;
  expected(folds: LogFolds): Iterable<Expected>;
  observed(doc: ReadModelDocument): Observed;
}

const check = <D extends ReadModelDocument>(definition: {
  readonly projection: Projection<D>;
  expected(folds: LogFolds): Iterable<Expected>;
  observed(doc: D): Observed;
}): ReadModelCheck => definition as unknown as ReadModelCheck;

const companyScoped = (companyId: string, id: string): string => `${companyId}/${id}`;

/** Each stream of `aggregate` whose state describes a document, as `describe` maps it. */
function* expectedFrom<State>(
  folds: LogFolds,
  aggregate: AggregateFold<State>,
  describe: (state: State) => { readonly companyId: string; readonly id: string; readonly fields: Record<string, unknown> } | null,
): Iterable<Expected> {
  for (const [stream, state] of folds.streamsOf(aggregate)) {
    const described = describe(state);
    if (described === null) continue;
    const key = companyScoped(described.companyId, described.id);
    yield { key, label: key, stream, fields: described.fields };
  }
}

const observedAt = (doc: ReadModelDocument, fields: Record<string, unknown>): Observed => {
  const key = companyScoped(doc.companyId, doc.id);
  return { key, label: key, position: doc.position, fields };
};

/**
 * The contact summary a deal shows: the deal's read model starts from the
 * snapshot taken at creation and follows the contact's `ContactUpdated` events,
 * so it must equal the contact's stream as it is now.
 */
const currentSummary = (folds: LogFolds, companyId: string, summary: DealContactSummary): DealContactSummary => {
  const contact = folds.stateOf<ContactState>(CONTACTS, contactStream(summary.id));
  return contact?.status === 'active' && contact.contact.companyId === companyId ? contactSummaryOf(contact.contact) : summary;
};

const contacts = check<ContactDoc>({
  projection: contactsProjection,
  expected: (folds) =>
    expectedFrom<ContactState>(folds, CONTACTS, (state) =>
      state.status === 'active'
        ? { companyId: state.contact.companyId, id: state.contact.id, fields: { companyId: state.contact.companyId, ...toContactView(state.contact) } }
        : null,
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.contact }),
});

const deals = check<DealDoc>({
  projection: dealsProjection,
  expected: (folds) =>
    expectedFrom<DealState>(folds, DEALS, (state) => {
      if (state.status !== 'active') return null;
      const { deal } = state;
      const view = toDealView(deal);
      const contact = deal.contact && currentSummary(folds, deal.companyId, deal.contact);
      return { companyId: deal.companyId, id: deal.id, fields: { companyId: deal.companyId, ...view, contact } };
    }),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.deal }),
});

const agents = check<AgentDoc>({
  projection: agentsProjection,
  expected: (folds) =>
    expectedFrom<AgentState>(folds, AGENTS, (state) =>
      state.status === 'created'
        ? { companyId: state.agent.companyId, id: state.agent.id, fields: { companyId: state.agent.companyId, ...toAgentView(state.agent) } }
        : null,
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.agent }),
});

/** A user's state holds only who it is: the check is that every user has its document and no more. */
const users = check<UserDoc>({
  projection: usersProjection,
  expected: (folds) =>
    expectedFrom<UserState>(folds, USERS, (state) =>
      state.status === 'created' ? { companyId: state.companyId, id: state.userId, fields: { companyId: state.companyId, id: state.userId } } : null,
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, id: doc.id }),
});

const apiKeys = check<ApiKeyDoc>({
  projection: apiKeysProjection,
  expected: (folds) =>
    expectedFrom<ApiKeyState>(folds, API_KEYS, (state) =>
      state.status === 'none'
        ? null
        : {
            companyId: state.companyId,
            id: state.keyId,
            fields: { companyId: state.companyId, id: state.keyId, revokedAt: state.status === 'revoked' ? state.revokedAt : null },
          },
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, id: doc.id, revokedAt: doc.revokedAt }),
});

/**
 * The directory is keyed by the key's hash, which the key's state does not
 * keep: documents are matched by key id instead, and named by it (never by the hash).
 */
const apiKeyDirectory = check<ApiKeyDirectoryDoc>({
  projection: apiKeyDirectoryProjection,
  *expected(folds) {
    for (const [stream, state] of folds.streamsOf<ApiKeyState>(API_KEYS)) {
      if (state.status === 'none') continue;
      yield {
        key: state.keyId,
        label: `key ${state.keyId}`,
        stream,
        fields: { keyId: state.keyId, ownerCompanyId: state.companyId, revoked: state.status === 'revoked' },
      };
    }
  },
  observed: (doc) => ({
    key: doc.keyId,
    label: `key ${doc.keyId}`,
    position: doc.position,
    fields: { keyId: doc.keyId, ownerCompanyId: doc.ownerCompanyId, revoked: doc.revoked },
  }),
});

const webhooks = check<WebhookDoc>({
  projection: webhooksProjection,
  expected: (folds) =>
    expectedFrom<WebhookState>(folds, WEBHOOKS, (state) => {
      if (state.status === 'none') return null;
      const { subscription } = state;
      return { companyId: subscription.companyId, id: subscription.id, fields: { companyId: subscription.companyId, ...toSubscriptionView(subscription) } };
    }),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.subscription }),
});

/**
 * Every read model that has both a stream per document and a read model:
 * contacts, deals, agents, users, API keys (both read models) and webhook
 * subscriptions. (Companies and phone reservations have streams but no read
 * model; the webhook-event read models are derived from contact and deal
 * events, not folded from streams of their own.)
 */
export const READ_MODEL_CHECKS: readonly ReadModelCheck[] = [contacts, deals, agents, users, apiKeys, apiKeyDirectory, webhooks];
