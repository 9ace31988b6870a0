import * as E from 'fp-ts/lib/Either.js';
import type { EventStore } from '../../../src/application/ports/EventStore.js';
import { issueApiKey } from '../../../src/features/apiKeys/application/issueApiKey.js';
import { revokeApiKey } from '../../../src/features/apiKeys/application/revokeApiKey.js';
import { createContact } from '../../../src/features/contacts/application/createContact.js';
import { updateContact } from '../../../src/features/contacts/application/updateContact.js';
import { changeDealStatus } from '../../../src/features/deals/application/changeDealStatus.js';
import { createDeal } from '../../../src/features/deals/application/createDeal.js';
import { handleCommand } from '../../../src/application/commands/handleCommand.js';
import { AgentChannels } from '../../../src/features/agents/domain/AgentChannel.js';
import { agentDecider } from '../../../src/features/agents/domain/agentDecider.js';
import { AgentName } from '../../../src/features/agents/domain/AgentName.js';
import { AgentEvent, agentStream } from '../../../src/features/agents/domain/agentEvents.js';
import { companyDecider } from '../../../src/features/companies/domain/companyDecider.js';
import type { CompanyCommand } from '../../../src/features/companies/domain/companyCommands.js';
import { CompanyEvent, companyStream } from '../../../src/features/companies/domain/companyEvents.js';
import { userDecider } from '../../../src/features/users/domain/userDecider.js';
import type { UserCommand } from '../../../src/features/users/domain/userCommands.js';
import { UserEvent, userStream } from '../../../src/features/users/domain/userEvents.js';
import { webhookDecider } from '../../../src/features/webhooks/domain/webhookDecider.js';
import { WebhookEvent, webhookStream } from '../../../src/features/webhooks/domain/webhookEvents.js';
import { newId } from '../../../src/shared/ids.js';
import { systemClock } from '../../../src/shared/Clock.js';
import { issueAdminToken } from '../../../src/features/adminTokens/application/issueAdminToken.js';
import { revokeAdminToken } from '../../../src/features/adminTokens/application/revokeAdminToken.js';
import { AdminTokenName } from '../../../src/features/adminTokens/domain/AdminTokenName.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`);
  return result.right;
};

export interface RealLog {
  readonly companyId: string;
  readonly otherCompanyId: string;
  /** A contact renamed from "Ada" to "Ada Lovelace", with a deal that embeds it. */
  readonly contactId: string;
  readonly dealId: string;
  readonly revokedKeyId: string;
}

/**
 * A log written through the same services and deciders as the API and the CLI:
 * two companies, users, contacts (one renamed, which also moves the summary its
 * deal embeds), deals moved to won, agents, a revoked and an active API key, and
 * a webhook subscription that ended.
 */
export const writeRealLog = async (eventStore: EventStore): Promise<RealLog> => {
  const clock = { now: () => new Date() };
  const deps = { eventStore, newId, clock };
  const handler = { eventStore, newId: newId };
  const meta = (companyId: string) => ({ source: 'api' as const, correlationId: newId(), companyId });

  const company = async (name: string): Promise<string> => {
    const companyId = newId();
    right(
      await handleCommand(handler, {
        decider: companyDecider,
        eventCodec: CompanyEvent,
        stream: companyStream(companyId),
        command: { type: 'CreateCompany', companyId, name, at: new Date() } as CompanyCommand,
        metadata: meta(companyId),
      }),
    );
    return companyId;
  };
  const companyId = await company('Acme');
  const otherCompanyId = await company('Globex');

  const userId = newId();
  right(
    await handleCommand(handler, {
      decider: userDecider,
      eventCodec: UserEvent,
      stream: userStream(userId),
      command: { type: 'CreateUser', userId, companyId, name: 'Grace', email: 'grace@example.com', at: new Date() } as UserCommand,
      metadata: meta(companyId),
    }),
  );

  const { contact } = right(
    await createContact(deps, {
      companyId,
      fields: { name: 'Ada', phoneNumber: '+44 20 7946 0000', email: 'ada@example.com', tags: ['vip'] },
      metadata: meta(companyId),
    }),
  );
  right(await createContact(deps, { companyId: otherCompanyId, fields: { name: 'Bob', phoneNumber: '+1 555 0100' }, metadata: meta(otherCompanyId) }));
  const { deal } = right(
    await createDeal(deps, {
      companyId,
      fields: { title: 'Engines', value: 1200, contactId: contact.id, assignedToId: userId, stage: 'proposal' },
      metadata: meta(companyId),
    }),
  );
  right(await createDeal(deps, { companyId, fields: { title: 'No contact', value: 10 }, metadata: meta(companyId) }));
  right(
    await updateContact(deps, {
      companyId,
      contactId: contact.id,
      changes: { name: 'Ada Lovelace', tags: ['vip', 'partner'] },
      metadata: meta(companyId),
    }),
  );
  right(await changeDealStatus(deps, { companyId, dealId: deal.id, change: { status: 'won', stage: 'closed' }, metadata: meta(companyId) }));

  const agentId = newId();
  const at = new Date();
  right(
    await handleCommand(handler, {
      decider: agentDecider,
      eventCodec: AgentEvent,
      stream: agentStream(agentId),
      command: { type: 'CreateAgent', agentId, companyId, name: right(AgentName.decode('Support bot')), at },
      metadata: meta(companyId),
    }),
  );
  right(
    await handleCommand(handler, {
      decider: agentDecider,
      eventCodec: AgentEvent,
      stream: agentStream(agentId),
      command: { type: 'UpdateAgent', agentId, changes: { status: 'paused', channels: right(AgentChannels.decode(['sms', 'webchat'])) }, at },
      metadata: meta(companyId),
    }),
  );

  const keyDeps = { eventStore, newId, clock: systemClock };
  const keyInput = { companyId, type: 'generic' as const, permissions: ['contacts:read' as const], expiresAt: null, metadata: { source: 'cli' as const, correlationId: newId() } };
  const revoked = right(await issueApiKey(keyDeps, keyInput));
  right(await issueApiKey(keyDeps, keyInput));
  right(await revokeApiKey(keyDeps, { keyId: revoked.keyId, metadata: { source: 'cli', correlationId: newId() } }));
  const adminToken = right(await issueAdminToken(keyDeps, { name: right(AdminTokenName.decode('billing backend')), metadata: { source: 'cli', correlationId: newId() } }));
  const noSessions = { endAll: async () => 0 };
  right(await revokeAdminToken({ ...keyDeps, sessions: noSessions }, { tokenId: adminToken.tokenId, metadata: { source: 'cli', correlationId: newId() } }));

  const subscriptionId = newId();
  const subscription = { subscriptionId, companyId, at: new Date() };
  right(
    await handleCommand(handler, {
      decider: webhookDecider,
      eventCodec: WebhookEvent,
      stream: webhookStream(subscriptionId),
      command: { type: 'SubscribeWebhook', ...subscription, event: 'contact.created', targetUrl: 'https://hooks.example.com/a', filters: { tags: ['vip'] } },
      metadata: meta(companyId),
    }),
  );
  right(
    await handleCommand(handler, {
      decider: webhookDecider,
      eventCodec: WebhookEvent,
      stream: webhookStream(subscriptionId),
      command: { type: 'UnsubscribeWebhook', ...subscription, reason: 'client' },
      metadata: meta(companyId),
    }),
  );

  return { companyId, otherCompanyId, contactId: contact.id, dealId: deal.id, revokedKeyId: revoked.keyId };
};
