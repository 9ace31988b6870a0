import type { ReadModelDocument, Projection } from '../src/application/ports/ReadModelStore.js';
import { AGENTS, API_KEYS, CONTACTS, DEALS, USERS, WEBHOOKS } from '../src/application/verify/verifiedAggregates.js';
import type { Expected, Observed, ReadModelCheck } from '../src/application/verify/ReadModelCheck.js';
import type { AggregateFold, LogFolds } from '../src/application/verify/logFolds.js';
import type { AgentState } from '../src/domain/agents/agentDecider.js';
import { toAgentView } from '../src/domain/agents/agentRecord.js';
import type { ApiKeyState } from '../src/domain/apiKeys/apiKeyDecider.js';
import type { ContactState } from '../src/domain/contacts/contactDecider.js';
import { contactStream } from '../src/domain/contacts/contactEvents.js';
import { toContactView } from '../src/domain/contacts/contactRecord.js';
import { contactSummaryOf } from '../src/domain/deals/dealContactSummary.js';
import type { DealState } from '../src/domain/deals/dealDecider.js';
import type { DealContactSummary } from '../src/domain/deals/dealEvents.js';
import { toDealView } from '../src/domain/deals/dealView.js';
import type { UserState } from '../src/domain/users/userDecider.js';
import type { WebhookState } from '../src/domain/webhooks/webhookDecider.js';
import { toSubscriptionView } from '../src/domain/webhooks/webhookSubscription.js';
import { agentsProjection, type AgentDoc } from './agents/agentsProjection.js';
import { apiKeyDirectoryProjection, type ApiKeyDirectoryDoc } from './apiKeys/apiKeyDirectoryProjection.js';
import { apiKeysProjection, type ApiKeyDoc } from './apiKeys/apiKeysProjection.js';
import { contactsProjection, type ContactDoc } from './contacts/contactsProjection.js';
import { dealsProjection, type DealDoc } from './deals/dealsProjection.js';
import { usersProjection, type UserDoc } from './users/usersProjection.js';
import { webhooksProjection, type WebhookDoc } from './webhooks/webhooksProjection.js';

/**
 * How `chronicle verify` checks each read model against the streams it is built
 * from: what the aggregates' folded state says a document holds (`expected`) and
 * what the document holds (`observed`), on the same fields.
 */
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
