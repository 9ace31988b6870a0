import { agentDecider } from '../../domain/agents/agentDecider.js';
import { AgentEvent, agentStream } from '../../domain/agents/agentEvents.js';
import { apiKeyDecider } from '../../domain/apiKeys/apiKeyDecider.js';
import { ApiKeyEvent, apiKeyStream } from '../../domain/apiKeys/apiKeyEvents.js';
import { contactDecider } from '../../domain/contacts/contactDecider.js';
import { ContactEvent, contactStream } from '../../domain/contacts/contactEvents.js';
import { dealDecider } from '../../domain/deals/dealDecider.js';
import { DealEvent, dealStream } from '../../domain/deals/dealEvents.js';
import { userDecider } from '../../domain/users/userDecider.js';
import { UserEvent, userStream } from '../../domain/users/userEvents.js';
import { webhookDecider } from '../../domain/webhooks/webhookDecider.js';
import { WebhookEvent, webhookStream } from '../../domain/webhooks/webhookEvents.js';
import { aggregateFold, type AggregateFold } from './logFolds.js';

/** The aggregates whose streams back a read model, each folded with its decider's `evolve`. */
export const CONTACTS = aggregateFold('contact', contactStream(''), ContactEvent, contactDecider);
export const DEALS = aggregateFold('deal', dealStream(''), DealEvent, dealDecider);
export const AGENTS = aggregateFold('agent', agentStream(''), AgentEvent, agentDecider);
export const USERS = aggregateFold('user', userStream(''), UserEvent, userDecider);
export const API_KEYS = aggregateFold('apikey', apiKeyStream(''), ApiKeyEvent, apiKeyDecider);
export const WEBHOOKS = aggregateFold('webhook', webhookStream(''), WebhookEvent, webhookDecider);

export const VERIFIED_AGGREGATES: readonly AggregateFold<unknown>[] = [CONTACTS, DEALS, AGENTS, USERS, API_KEYS, WEBHOOKS];
